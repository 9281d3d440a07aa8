"""The rows of a batch file (model/batch.py): parsed and checked before any browser, every refusal
naming its line, no value ever echoed."""

from __future__ import annotations

import pytest

from skillreel.errors import SkillreelError
from skillreel.model.actions import ClickAction, NavigateAction, SelectAction, TypeAction
from skillreel.model.batch import BatchFile, batch_format, check_rows, parse_rows, rows_digest
from skillreel.model.draft import Draft
from skillreel.model.limits import MAX_BATCH_ROWS
from skillreel.model.refs import ParameterRef
from tests.support import factory

SECRET = "hunter2-do-not-echo"


def skill() -> Draft:
    actions = (
        NavigateAction(id="a1", url="http://127.0.0.1:8000/app"),
        TypeAction(id="a2", target=factory.bundle("#qty"), value=ParameterRef(name="qty")),
        TypeAction(id="a3", target=factory.bundle("#note"), value=ParameterRef(name="note")),
        SelectAction(id="a4", target=factory.bundle("#region"), value=ParameterRef(name="region")),
        TypeAction(id="a5", target=factory.bundle("#pin"), value=ParameterRef(name="pin")),
        ClickAction(id="a6", target=factory.bundle("#go")),
    )
    return factory.build_draft(
        "place-order", factory.url_environment(), actions, sensitive=("pin",), optional=("note", "region")
    )


def refusal(data: bytes, fmt: str = "csv") -> SkillreelError:
    with pytest.raises(SkillreelError) as caught:
        parse_rows(data, "csv" if fmt == "csv" else "jsonl")
    assert SECRET not in caught.value.message
    return caught.value


def checked(batch: BatchFile, shared: dict[str, str] | None = None) -> SkillreelError:
    with pytest.raises(SkillreelError) as caught:
        check_rows(batch, skill(), shared or {}, {"qty": 8192, "note": 8192, "region": 1024})
    assert SECRET not in caught.value.message
    return caught.value


def test_csv_rows_are_numbered_with_the_line_they_start_on() -> None:
    data = b'qty,note\n1,first\n\n2,""\n3,"two\nlines"\n4,last\n'
    batch = parse_rows(data, "csv")
    assert batch.columns == (("qty", 1), ("note", 1))
    assert [(r.number, r.line, dict(r.inputs)) for r in batch.rows] == [
        (1, 2, {"qty": "1", "note": "first"}),
        (2, 4, {"qty": "2"}),  # an empty cell gives no value
        (3, 5, {"qty": "3", "note": "two\nlines"}),
        (4, 7, {"qty": "4", "note": "last"}),
    ]


def test_csv_header_cells_are_trimmed_and_a_bom_is_ignored() -> None:
    batch = parse_rows("\ufeffqty , note\r\n1,x\r\n".encode(), "csv")
    assert [c for c, _ in batch.columns] == ["qty", "note"]
    assert dict(batch.rows[0].inputs) == {"qty": "1", "note": "x"}


def test_json_lines_take_text_and_integers_and_null_gives_no_value() -> None:
    data = b'{"qty": 1, "note": "a"}\n\n{"qty": "2", "note": null}\n'
    batch = parse_rows(data, "jsonl")
    assert batch.columns == (("qty", 1), ("note", 1))
    assert [(r.number, r.line, dict(r.inputs)) for r in batch.rows] == [
        (1, 1, {"qty": "1", "note": "a"}),
        (2, 3, {"qty": "2"}),
    ]


@pytest.mark.parametrize(
    ("data", "line", "why"),
    [
        (b"qty,qty\n1,2\n", 1, "twice"),
        (b"qty,\n1,2\n", 1, "empty column name"),
        (b"qty,note\n1\n", 2, "1 cells"),
        (b'qty\n1\n"2\n', 3, "quote"),
        (b"qty\n1\n" + SECRET.encode() + b"\xff\n", 3, "UTF-8"),
        (b"qty\n1\x00\n", 2, "NUL"),
        (b"", 1, "no rows"),
        (b"qty,note\n", 1, "no rows"),
        (b"\n\n\n", 3, "no rows"),
    ],
)
def test_malformed_csv_is_refused_naming_the_line(data: bytes, line: int, why: str) -> None:
    error = refusal(data)
    assert (error.code, error.details["line"], error.exit_status) == ("SR_REPLAY_BATCH_MALFORMED", line, 2)
    assert why in error.message
    assert f"line {line}" in error.message


@pytest.mark.parametrize(
    ("data", "line", "why"),
    [
        (b'{"qty": "1"}\n{"qty": "1", "qty": "2"}\n', 2, "twice"),
        (b'{"qty": "1"}\n["1"]\n', 2, "not a JSON object"),
        (b'{"qty": "1"}\n{"qty": ' + SECRET.encode() + b"}\n", 2, "not a JSON object"),
        (b'{"qty": true}\n', 1, "not text or an integer"),
        (b'{"qty": 1.5}\n', 1, "not text or an integer"),
        (b'{"qty": {"a": 1}}\n', 1, "not text or an integer"),
        (b'{"": "1"}\n', 1, "empty"),
        (b"\n", 1, "no rows"),
    ],
)
def test_malformed_json_lines_are_refused_naming_the_line(data: bytes, line: int, why: str) -> None:
    error = refusal(data, "jsonl")
    assert (error.code, error.details["line"]) == ("SR_REPLAY_BATCH_MALFORMED", line)
    assert why in error.message


def test_more_than_the_row_limit_is_refused_at_the_first_row_over_it() -> None:
    rows = b"qty\n" + b"1\n" * MAX_BATCH_ROWS
    assert len(parse_rows(rows, "csv").rows) == MAX_BATCH_ROWS
    error = refusal(rows + b"2\n")
    assert (error.code, error.details["line"]) == ("SR_REPLAY_BATCH_TOO_MANY_ROWS", MAX_BATCH_ROWS + 2)
    jsonl = b'{"qty": 1}\n' * (MAX_BATCH_ROWS + 1)
    error = refusal(jsonl, "jsonl")
    assert (error.code, error.details["line"]) == ("SR_REPLAY_BATCH_TOO_MANY_ROWS", MAX_BATCH_ROWS + 1)


def test_the_suffix_names_the_format() -> None:
    assert [batch_format(n) for n in ("a.csv", "b.CSV", "c.jsonl", "d.ndjson")] == [
        "csv",
        "csv",
        "jsonl",
        "jsonl",
    ]
    for name in ("rows", "rows.json", "rows.txt"):
        with pytest.raises(SkillreelError) as caught:
            batch_format(name)
        assert caught.value.code == "SR_REPLAY_BATCH_MALFORMED"


def test_a_column_that_names_no_parameter_is_refused_with_the_closest_one() -> None:
    error = checked(parse_rows(b"qty,notes\n1,x\n", "csv"))
    assert (error.code, error.details["line"]) == ("SR_REPLAY_BATCH_COLUMN_UNKNOWN", 1)
    assert "'notes'" in error.message
    assert "did you mean 'note'" in error.message
    error = checked(parse_rows(b'{"qty": "1"}\n{"qty": "2", "Bad Key": "x"}\n', "jsonl"))
    assert (error.code, error.details["line"]) == ("SR_REPLAY_BATCH_COLUMN_UNKNOWN", 2)
    assert "Bad Key" not in error.message  # only parameter-shaped names are repeated


def test_a_sensitive_column_is_refused_whatever_its_cells_hold() -> None:
    error = checked(parse_rows(b"qty,pin\n1,\n2," + SECRET.encode() + b"\n", "csv"))
    assert (error.code, error.details["line"]) == ("SR_REPLAY_BATCH_COLUMN_SENSITIVE", 1)
    assert "vault" in error.message


def test_a_row_without_a_required_value_is_refused_naming_its_line_and_row() -> None:
    error = checked(parse_rows(b"qty,note\n1,a\n,b\n", "csv"))
    assert (error.code, error.details) == ("SR_REPLAY_BATCH_INPUT_MISSING", {"line": 3, "row": 2})
    error = checked(parse_rows(b'{"qty": "1"}\n{"note": "x"}\n', "jsonl"))
    assert (error.code, error.details) == ("SR_REPLAY_BATCH_INPUT_MISSING", {"line": 2, "row": 2})
    error = checked(parse_rows(b"note\nx\n", "csv"))  # no qty column at all
    assert (error.code, error.details) == ("SR_REPLAY_BATCH_INPUT_MISSING", {"line": 2, "row": 1})


def test_a_shared_input_fills_every_row_but_never_doubles_a_column() -> None:
    batch = parse_rows(b"note\nx\ny\n", "csv")
    check_rows(batch, skill(), {"qty": "1"}, {})  # qty given to every row with --input
    error = checked(parse_rows(b"qty\n1\n", "csv"), {"qty": "2"})
    assert (error.code, error.details["line"]) == ("SR_RECORD_USAGE", 1)


def test_a_value_over_its_limit_is_refused_without_repeating_it() -> None:
    long = SECRET * 100
    error = checked(parse_rows(b"qty,region\n1,a\n2," + long.encode() + b"\n", "csv"))
    assert (error.code, error.details) == ("SR_REPLAY_BATCH_VALUE_INVALID", {"line": 3, "row": 2})
    assert "1,024" in error.message


def test_the_rows_digest_follows_the_rows_not_the_format() -> None:
    csv_rows = parse_rows(b"qty,note\n1,a\n2,\n", "csv").rows
    jsonl_rows = parse_rows(b'{"note": "a", "qty": "1"}\n{"qty": 2}\n', "jsonl").rows
    assert rows_digest(csv_rows) == rows_digest(jsonl_rows)
    changed = parse_rows(b"qty,note\n1,a\n3,\n", "csv").rows
    assert rows_digest(changed) != rows_digest(csv_rows)


# --- F8 (issue 30): a wide header is checked in one pass ---------------------------------------------

WIDE = 40_000


def wide_csv(names: list[str]) -> bytes:
    return (",".join(names) + "\n" + ",".join("x" for _ in names) + "\n").encode()


def test_a_header_of_40000_columns_is_read_and_a_duplicate_at_its_end_refused() -> None:
    """On main each name was searched for in the list of those before it: 40,000 columns took
    minutes before the refusal (112 s in the review). The suite's own timeout catches a return."""
    names = [f"c{i}" for i in range(WIDE)]
    batch = parse_rows(wide_csv(names), "csv")
    assert [name for name, _ in batch.columns] == names
    assert refusal(wide_csv([*names, "c0"])).message == "line 1: the header names 'c0' twice"
    assert checked(batch).code == "SR_REPLAY_BATCH_COLUMN_UNKNOWN"  # the first column, at once


class Counted(str):
    """A column name that counts how often it is compared with another (``==``)."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        Counted.compared += 1
        return str.__eq__(self, other)

    def __hash__(self) -> int:
        return str.__hash__(self)

    def strip(self, chars: str | None = None) -> Counted:
        return self


def test_the_header_check_compares_each_name_a_bounded_number_of_times() -> None:
    """Linear, by construction: each name is one lookup. The quadratic check (a list) made
    WIDE * (WIDE - 1) / 2 comparisons, 800 million here; a dict makes about none."""
    from skillreel.model.batch import _header  # the check itself: csv hands it plain str cells

    Counted.compared = 0
    columns = _header([Counted(f"c{i}") for i in range(WIDE)], 1)
    assert len(columns) == WIDE
    assert Counted.compared <= WIDE  # only on a hash collision


def test_every_bad_value_is_listed_with_its_line_in_one_refusal() -> None:
    """Issue 31.4: pre-flight named only the first bad value; a file with three was fixed in three
    rounds. Now every one is listed (message and details), in file order, none repeated."""
    long = (SECRET * 100).encode()
    error = checked(parse_rows(b"qty,region\n1,a\n,b\n3," + long + b"\n4,c\n,\n", "csv"))
    assert error.code == "SR_REPLAY_BATCH_INPUT_MISSING"  # the first problem's; each keeps its own below
    assert error.message.startswith("3 bad values: line 3 (row 2): no value for required parameter 'qty'; ")
    assert "line 4 (row 3): the value of 'region' is longer than 1,024 characters" in error.message
    assert "line 6 (row 5): no value for required parameter 'qty'" in error.message
    assert error.message.endswith("; no row was run")
    assert error.details["line"] == 3
    assert [(p["line"], p["row"], p["code"]) for p in error.details["problems"]] == [
        (3, 2, "SR_REPLAY_BATCH_INPUT_MISSING"),
        (4, 3, "SR_REPLAY_BATCH_VALUE_INVALID"),
        (6, 5, "SR_REPLAY_BATCH_INPUT_MISSING"),
    ]
    assert error.details["more"] == 0


def test_a_file_of_many_bad_values_lists_twenty_then_says_how_many_more() -> None:
    error = checked(parse_rows(b"note\n" + b"x\n" * 45, "csv"))
    assert error.message.startswith("45 bad values: line 2 (row 1): ")
    assert "line 21 (row 20)" in error.message
    assert "line 22 (row 21)" not in error.message
    assert error.message.endswith("; and 25 more; no row was run")
    assert (len(error.details["problems"]), error.details["more"]) == (20, 25)
