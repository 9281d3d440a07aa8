"""A batch's plan (services/batching.plan_batch): every bad input is refused before any browser
starts, with its code and line, and the store is left exactly as it was. These tests are not marked
``browser``: a Chromium start here would fail them (tests/plugins/chromium_guard.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillreel.errors import SkillreelError
from skillreel.model.actions import ClickAction, NavigateAction, TypeAction
from skillreel.model.batch import Runset
from skillreel.model.draft import Parameter
from skillreel.model.refs import ParameterRef
from skillreel.services import batching
from skillreel.services.batching import BatchRequest, plan_batch
from skillreel.services.preflight import ReplayRequest
from skillreel.store import Store
from skillreel.vault import secret_env_name
from tests.support import factory
from tests.support.readback import sql

NAME = "place-order"
SECRET = "pin-value-never-echoed"
TABLES = ("entries", "revisions", "audit", "runs", "runsets", "heal_proposals", "audit_head")


def stored_skill(store: Store) -> None:
    actions = (
        NavigateAction(id="a1", url="http://127.0.0.1:8000/app"),
        TypeAction(id="a2", target=factory.bundle("#qty"), value=ParameterRef(name="qty")),
        TypeAction(id="a3", target=factory.bundle("#note"), value=ParameterRef(name="note")),
        TypeAction(id="a4", target=factory.bundle("#pin"), value=ParameterRef(name="pin")),
        ClickAction(id="a5", target=factory.bundle("#go")),
    )
    draft = factory.build_draft(
        NAME, factory.url_environment(), actions, sensitive=("pin",), optional=("note",)
    )
    factory.store_approved(store, draft)


@pytest.fixture
def store(skillreel_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    monkeypatch.setenv(secret_env_name(NAME, "pin"), SECRET)
    with Store.open(actor="batch") as opened:
        stored_skill(opened)
        yield opened


def everything(home: Path) -> list[object]:
    return [sql(home, f"SELECT * FROM {table} ORDER BY 1") for table in TABLES]


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def plan(store: Store, path: Path, **options: object) -> batching.BatchPlan:
    inputs = options.pop("inputs", {})
    request = ReplayRequest(name=NAME, inputs=inputs)  # type: ignore[arg-type]
    return plan_batch(store, BatchRequest(request, path, **options))  # type: ignore[arg-type]


def refused(store: Store, path: Path, code: str, line: int | None, **options: object) -> SkillreelError:
    before = everything(store.home)
    with pytest.raises(SkillreelError) as caught:
        plan(store, path, **options)
    error = caught.value
    assert error.code == code, error.message
    if line is not None:
        assert error.details["line"] == line
        assert f"line {line}" in error.message
    assert SECRET not in error.message
    assert everything(store.home) == before
    return error


def test_a_good_file_plans_every_row_and_writes_nothing(store: Store, tmp_path: Path) -> None:
    before = everything(store.home)
    path = write(tmp_path, "rows.csv", b"qty,note\n1,a\n2,\n3,c\n")
    planned = plan(store, path, workers=3)
    assert [(r.number, r.line) for r in planned.pending] == [(1, 2), (2, 3), (3, 4)]
    assert planned.inputs(planned.rows[1]) == {"qty": "2"}
    assert (planned.runset.name, planned.runset.rows, planned.resumed) == (NAME, 3, False)
    assert everything(store.home) == before


@pytest.mark.parametrize(
    ("name", "data", "code", "line"),
    [
        ("bad.csv", b'qty\n1\n"2\n', "SR_REPLAY_BATCH_MALFORMED", 3),
        ("dup.csv", b"qty,note,qty\n1,2,3\n", "SR_REPLAY_BATCH_MALFORMED", 1),
        ("empty.csv", b"", "SR_REPLAY_BATCH_MALFORMED", 1),
        ("header.csv", b"qty,note\n", "SR_REPLAY_BATCH_MALFORMED", 1),
        ("bad.jsonl", b'{"qty": "1"}\n{"qty": \n', "SR_REPLAY_BATCH_MALFORMED", 2),
        ("rows.txt", b"qty\n1\n", "SR_REPLAY_BATCH_MALFORMED", None),
        ("unknown.csv", b"qty,quantity\n1,2\n", "SR_REPLAY_BATCH_COLUMN_UNKNOWN", 1),
        (
            "unknown.jsonl",
            b'{"qty": "1"}\n{"qty": "1", "colour": "red"}\n',
            "SR_REPLAY_BATCH_COLUMN_UNKNOWN",
            2,
        ),
        ("pin.csv", b"qty,pin\n1," + SECRET.encode() + b"\n", "SR_REPLAY_BATCH_COLUMN_SENSITIVE", 1),
        ("missing.csv", b"qty,note\n1,a\n,b\n", "SR_REPLAY_BATCH_INPUT_MISSING", 3),
        ("long.csv", b"qty\n1\n" + b"9" * 9000 + b"\n", "SR_REPLAY_BATCH_VALUE_INVALID", 3),
        ("many.csv", b"qty\n" + b"1\n" * 100_001, "SR_REPLAY_BATCH_TOO_MANY_ROWS", 100_002),
        # a lone surrogate is valid JSON but not text: refused, not an internal error
        ("surrogate.jsonl", b'{"qty": "1"}\n{"qty": "\\ud800"}\n', "SR_REPLAY_BATCH_VALUE_INVALID", 2),
        # a cell past the csv module's field limit is too long, not a quoting problem
        ("huge.csv", b"qty\n1\n" + b"9" * 140_000 + b"\n", "SR_REPLAY_BATCH_VALUE_INVALID", 3),
        ("huge-quoted.csv", b'qty\n"' + b"9" * 140_000 + b'"\n', "SR_REPLAY_BATCH_VALUE_INVALID", 2),
        # an integer past Python's conversion limit is a value too long, not "not a JSON object"
        ("huge.jsonl", b'{"qty": 1}\n{"qty": ' + b"9" * 9_000 + b"}\n", "SR_REPLAY_BATCH_VALUE_INVALID", 2),
    ],
)
def test_a_bad_file_is_refused_naming_its_line(
    store: Store, tmp_path: Path, name: str, data: bytes, code: str, line: int | None
) -> None:
    error = refused(store, write(tmp_path, name, data), code, line)
    assert error.exit_status == 2


def test_a_symlink_a_directory_or_a_missing_file_is_refused(store: Store, tmp_path: Path) -> None:
    real = write(tmp_path, "real.csv", b"qty\n1\n")
    link = tmp_path / "link.csv"
    os.symlink(real, link)
    refused(store, link, "SR_RECORD_INPUT_NOT_REGULAR", None)
    refused(store, tmp_path, "SR_RECORD_INPUT_NOT_REGULAR", None)
    refused(store, tmp_path / "absent.csv", "SR_RECORD_INPUT_NOT_REGULAR", None)


def test_an_oversize_file_is_refused_before_it_is_parsed(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(batching, "MAX_BATCH_BYTES", 64)
    refused(store, write(tmp_path, "big.csv", b"qty\n" + b"1\n" * 40), "SR_RECORD_INPUT_TOO_LARGE", None)


def test_skill_level_refusals_come_before_any_row_runs(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, "rows.csv", b"qty\n1\n")
    refused(store, path, "SR_RECORD_USAGE", None, workers=17)
    monkeypatch.delenv(secret_env_name(NAME, "pin"))
    error = refused(store, path, "SR_REPLAY_SECRET_MISSING", None)
    assert secret_env_name(NAME, "pin") in error.message
    before = everything(store.home)
    with pytest.raises(SkillreelError) as caught:
        plan_batch(store, BatchRequest(ReplayRequest(name="no-such-skill"), path))
    assert caught.value.code == "SR_RECORD_NOT_FOUND"
    assert everything(store.home) == before


def test_a_shared_input_and_a_column_of_the_same_name_are_refused(store: Store, tmp_path: Path) -> None:
    path = write(tmp_path, "rows.csv", b"qty,note\n1,a\n")
    refused(store, path, "SR_RECORD_USAGE", 1, inputs={"note": "b"})
    shared = plan(store, write(tmp_path, "notes.csv", b"note\na\n"), inputs={"qty": "5"})
    assert shared.inputs(shared.rows[0]) == {"qty": "5", "note": "a"}


def test_resume_needs_the_runset_of_this_skill_and_the_same_rows(store: Store, tmp_path: Path) -> None:
    path = write(tmp_path, "rows.csv", b"qty\n1\n2\n")
    first = plan(store, path)
    store.add_runset(first.runset)
    resumed = plan(store, path, resume=first.runset.runset_id)
    assert (resumed.resumed, resumed.runset, dict(resumed.done)) == (True, first.runset, {})
    refused(store, path, "SR_REPLAY_RUNSET_UNKNOWN", None, resume="0123456789abcdef")
    refused(store, path, "SR_REPLAY_RUNSET_UNKNOWN", None, resume="../../etc")
    changed = write(tmp_path, "changed.csv", b"qty\n1\n3\n")
    error = refused(store, changed, "SR_REPLAY_RUNSET_MISMATCH", None, resume=first.runset.runset_id)
    assert error.exit_status == 2
    other = Runset(
        runset_id="fedcba9876543210",
        name="other-skill",
        rows=2,
        rows_digest=first.runset.rows_digest,
        created_at=factory.T1,
    )
    store.add_runset(other)
    refused(store, path, "SR_REPLAY_RUNSET_UNKNOWN", None, resume=other.runset_id)


def typed_skill(store: Store) -> None:
    """An approved skill ``typed-order`` of a required integer ``qty`` and an optional boolean ``gift``."""
    typed = (
        Parameter(name="qty", type="integer"),
        Parameter(name="gift", type="boolean", required=False),
    )
    actions = (
        NavigateAction(id="a1", url="http://127.0.0.1:8000/app"),
        TypeAction(id="a2", target=factory.bundle("#qty"), value=ParameterRef(name="qty")),
        TypeAction(id="a3", target=factory.bundle("#gift"), value=ParameterRef(name="gift")),
    )
    draft = factory.graph_draft(
        actions, name="typed-order", parameters=typed, environment=factory.url_environment()
    )
    factory.store_approved(store, draft)


def test_a_value_that_does_not_fit_its_parameters_type_is_refused_before_any_row_runs(
    store: Store, tmp_path: Path
) -> None:
    """A typed (schema v2) parameter is checked for every row at planning, as one replay's
    pre-flight checks it, naming the line: a batch never stops at row 30 of 40 for a typo."""
    typed_skill(store)
    good = write(tmp_path, "good.csv", b"qty,gift\n1,true\n 2 ,false\n3,\n")
    request = ReplayRequest(name="typed-order", inputs={})
    assert len(plan_batch(store, BatchRequest(request, good)).rows) == 3
    for name, data, line, why in (
        ("qty.csv", b"qty,gift\n1,true\n2,false\ntwelve,true\n", 4, "expects an integer"),
        ("gift.jsonl", b'{"qty": 1, "gift": "yes"}\n', 1, "expects true or false"),
    ):
        before = everything(store.home)
        with pytest.raises(SkillreelError) as caught:
            plan_batch(store, BatchRequest(request, write(tmp_path, name, data)))
        error = caught.value
        assert error.code == "SR_REPLAY_BATCH_VALUE_INVALID", error.message
        assert error.details["line"] == line
        assert f"line {line} " in error.message
        assert why in error.message
        assert "twelve" not in error.message
        assert "yes" not in error.message
        assert everything(store.home) == before


def test_every_row_whose_value_does_not_fit_its_type_is_listed_before_any_row_runs(
    store: Store, tmp_path: Path
) -> None:
    """Issue 31.4: the type checks of plan_batch list every bad row too, beside the missing and
    too-long values of the same file (one problem per row, in file order, no value repeated)."""
    typed_skill(store)
    path = write(tmp_path, "rows.csv", b"qty,gift\ntwelve,true\n2,false\n,true\n4,yes\n")
    before = everything(store.home)
    with pytest.raises(SkillreelError) as caught:
        plan_batch(store, BatchRequest(ReplayRequest(name="typed-order"), path))
    error = caught.value
    assert error.code == "SR_REPLAY_BATCH_VALUE_INVALID"
    assert [(p["line"], p["code"]) for p in error.details["problems"]] == [
        (2, "SR_REPLAY_BATCH_VALUE_INVALID"),
        (4, "SR_REPLAY_BATCH_INPUT_MISSING"),
        (5, "SR_REPLAY_BATCH_VALUE_INVALID"),
    ]
    assert "expects an integer" in error.message
    assert "expects true or false" in error.message
    assert "twelve" not in error.message
    assert "yes" not in error.message
    assert everything(store.home) == before
