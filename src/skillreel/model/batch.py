"""The rows of a batch replay (``skillreel replay NAME --batch FILE``): parsed and checked, pure.

A batch file is CSV (a header row of parameter names, then one row per replay) or JSON Lines (one
object per line, ``{"NAME": "text", ...}``), chosen by the file's suffix (:func:`batch_format`).
:func:`parse_rows` turns its bytes into :class:`BatchRow` s, refusing the whole file at its first
syntax problem; :func:`check_rows` holds them against the skill's parameters: the first bad column
is refused, and every bad value of every row is listed in one refusal (:func:`refuse_rows`: up to
``SHOWN_ROW_PROBLEMS`` of them, each with its line, then how many more). All of it before any
browser starts; no message ever repeats a value (only parameter-shaped column names are echoed).

What a cell means: a CSV cell that is empty, or a JSON Lines key that is missing or ``null``, gives
no value (a required parameter then refuses the row); a JSON Lines value is text or an integer.
Blank lines are skipped. Rows are numbered from 1 in file order; ``line`` is where a row starts.

A :class:`Runset` names one batch in the store (``--resume RUNSET``): its id, the skill, how many
rows, and :func:`rows_digest` of the rows it started with, so a resume with another file is refused.
While a batch runs it holds its runset with a :class:`RunsetClaim` (the process's lease and a token
of its own): another batch of the same runset is refused while that process lives.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Final, Literal

from pydantic import Field

from ..errors import InputError, ReplayError
from .base import Digest, Document, SkillName, Timestamp
from .canonical import tagged_digest
from .draft import Draft
from .limits import MAX_BATCH_ROWS
from .runs import Lease, RowNumber, RunsetId

BatchFormat = Literal["csv", "jsonl"]

_SUFFIXES: dict[str, BatchFormat] = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
_PARAM_SHAPE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_ROWS_TAG = "skillreel.batch-rows/v1"
_LONGEST_INT = 4_000  # digits: below Python's int/str conversion limit (4,300)


@dataclass(frozen=True)
class BatchRow:
    """One row: its number (from 1), the line it starts on, and the values it gives (name -> text)."""

    number: int
    line: int
    inputs: Mapping[str, str] = field(repr=False)


@dataclass(frozen=True)
class BatchFile:
    """A parsed batch file: its columns (each with the line it is first named on) and its rows."""

    format: BatchFormat
    columns: tuple[tuple[str, int], ...]
    rows: tuple[BatchRow, ...]


class Runset(Document):
    """One batch as the store keeps it: enough to resume it, no value of any row."""

    runset_id: RunsetId
    name: SkillName
    rows: RowNumber
    rows_digest: Digest
    created_at: Timestamp


class RunsetClaim(Document):
    """A batch holding its runset while it runs: the lease of its process (``store.lease``) and a
    token of this batch, so two batches of one process do not take each other for the same."""

    lease: Lease
    token: Annotated[str, Field(pattern=r"^[0-9a-f]{32}$")]


def batch_format(filename: str) -> BatchFormat:
    """The format a file's suffix names: ``.csv``, or ``.jsonl`` / ``.ndjson``."""
    suffix = filename[filename.rfind(".") :].lower() if "." in filename else ""
    found = _SUFFIXES.get(suffix)
    if found is None:
        raise ReplayError(
            "SR_REPLAY_BATCH_MALFORMED",
            "the batch file's name must end in .csv, .jsonl or .ndjson (it says which format it is)",
        )
    return found


def _malformed(line: int, why: str) -> ReplayError:
    return ReplayError("SR_REPLAY_BATCH_MALFORMED", f"line {line}: {why}", details={"line": line})


def _shown(name: str) -> str:
    return repr(name) if _PARAM_SHAPE.fullmatch(name) else "a column"


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _malformed(data.count(b"\n", 0, exc.start) + 1, "the file is not UTF-8 text") from None


def _too_many(line: int) -> ReplayError:
    return ReplayError(
        "SR_REPLAY_BATCH_TOO_MANY_ROWS",
        f"line {line}: the batch file holds more than {MAX_BATCH_ROWS:,} rows",
        details={"line": line},
    )


def parse_rows(data: bytes, fmt: BatchFormat) -> BatchFile:
    """The rows of a batch file's bytes; ``SR_REPLAY_BATCH_*`` naming the first bad line."""
    text = _text(data)
    if "\x00" in text:
        raise _malformed(text.count("\n", 0, text.index("\x00")) + 1, "the file holds a NUL character")
    parsed = _parse_csv(text) if fmt == "csv" else _parse_jsonl(text)
    if not parsed.rows:
        raise _malformed(_last_line(text), "the batch file holds no rows (it is empty, or a header only)")
    return parsed


def _last_line(text: str) -> int:
    return max(1, text.count("\n") + (0 if text.endswith("\n") or not text else 1))


def _parse_csv(text: str) -> BatchFile:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: tuple[tuple[str, int], ...] | None = None
    rows: list[BatchRow] = []
    seen = 0
    while True:
        line = seen + 1
        try:
            record = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            if "field larger than field limit" in str(exc):
                raise ReplayError(
                    "SR_REPLAY_BATCH_VALUE_INVALID",
                    f"line {reader.line_num or line}: a cell is longer than {csv.field_size_limit():,} "
                    "characters, more than any parameter takes",
                    details={"line": reader.line_num or line},
                ) from None
            raise _malformed(
                reader.line_num or line, "the CSV is malformed (a stray or unclosed quote)"
            ) from exc
        seen = reader.line_num
        if not record or (len(record) == 1 and not record[0].strip()):
            continue  # a blank line
        if header is None:
            header = _header(record, line)
            continue
        if len(record) != len(header):
            raise _malformed(line, f"the row has {len(record)} cells; the header names {len(header)}")
        if len(rows) == MAX_BATCH_ROWS:
            raise _too_many(line)
        values = {name: cell for (name, _), cell in zip(header, record, strict=True) if cell != ""}
        rows.append(BatchRow(len(rows) + 1, line, values))
    return BatchFile("csv", header or (), tuple(rows))


def _header(record: Sequence[str], line: int) -> tuple[tuple[str, int], ...]:
    """The header's column names, in order: one pass, each name looked up in a dict (a header of
    40,000 columns took minutes when each was searched for in a list of those before it)."""
    names: dict[str, None] = {}  # a dict keeps the columns in file order; `in` is one hash lookup
    for cell in record:
        name = cell.strip()
        if not name:
            raise _malformed(line, "the header has an empty column name")
        if name in names:
            raise _malformed(line, f"the header names {_shown(name)} twice")
        names[name] = None
    return tuple((name, line) for name in names)


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__("duplicate key")
        self.key = key


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _DuplicateKey(key)
        found[key] = value
    return found


def _integer(digits: str) -> int | str:
    """A JSON integer; one too long for Python's conversion (4,300 digits) stays its text, which the
    value checks then hold against the parameter (its length, its type)."""
    return int(digits) if len(digits) <= _LONGEST_INT else digits


def _parse_jsonl(text: str) -> BatchFile:
    columns: dict[str, int] = {}
    rows: list[BatchRow] = []
    for index, raw in enumerate(text.split("\n")):
        line = index + 1
        if not raw.strip():
            continue
        try:
            document = json.loads(raw, object_pairs_hook=_object, parse_int=_integer)
        except _DuplicateKey as exc:
            raise _malformed(line, f"the object names {_shown(exc.key)} twice") from None
        except (ValueError, RecursionError):
            raise _malformed(line, "not a JSON object (JSON Lines: one object per line)") from None
        if not isinstance(document, dict):
            raise _malformed(line, "not a JSON object (JSON Lines: one object per line)")
        if len(rows) == MAX_BATCH_ROWS:
            raise _too_many(line)
        values: dict[str, str] = {}
        for key, value in document.items():
            if not key.strip():
                raise _malformed(line, "a key is empty")
            columns.setdefault(key, line)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, str | int):
                raise _malformed(line, f"the value of {_shown(key)} is not text or an integer")
            values[key] = value if isinstance(value, str) else str(value)
        rows.append(BatchRow(len(rows) + 1, line, values))
    return BatchFile("jsonl", tuple(columns.items()), tuple(rows))


SHOWN_ROW_PROBLEMS: Final = 20  # bad values a refusal lists (message and details); the rest counted


@dataclass(frozen=True)
class RowProblem:
    """One bad value of a row, content-free: where it is, its code, and why (never the value)."""

    line: int
    row: int
    code: str
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "row": self.row, "code": self.code, "message": self.why}


def check_rows(
    batch: BatchFile, draft: Draft, shared: Mapping[str, object], limits: Mapping[str, int]
) -> None:
    """:func:`check_columns`, then every row's values (:func:`row_problems`), refused together."""
    check_columns(batch, draft, shared)
    problems = row_problems(batch, draft, shared, limits)
    if problems:
        raise refuse_rows(problems)


def check_columns(batch: BatchFile, draft: Draft, shared: Mapping[str, object]) -> None:
    """Each column names a non-sensitive parameter not also given to every row (``shared``, from
    ``--input``); the first column that does not is refused."""
    for name, line in batch.columns:
        param = draft.parameter(name)
        if param is None:
            raise _unknown(draft, name, line)
        if param.sensitive:
            raise ReplayError(
                "SR_REPLAY_BATCH_COLUMN_SENSITIVE",
                f"line {line}: column {name!r} is a sensitive parameter; its value comes from the vault only",
                details={"line": line},
            )
        if name in shared:
            raise InputError(
                "SR_RECORD_USAGE",
                f"line {line}: column {name!r} is also given with --input; give it in one place",
                details={"line": line},
            )


def row_problems(
    batch: BatchFile, draft: Draft, shared: Mapping[str, object], limits: Mapping[str, int]
) -> list[RowProblem]:
    """Every row's missing required non-sensitive value (with ``shared``) and every value longer
    than ``limits`` allows, in file order."""
    required = [p.name for p in draft.parameters if p.required and not p.sensitive and p.name not in shared]
    problems: list[RowProblem] = []
    for row in batch.rows:
        for name in required:
            if name not in row.inputs:
                problems.append(
                    RowProblem(
                        row.line,
                        row.number,
                        "SR_REPLAY_BATCH_INPUT_MISSING",
                        f"no value for required parameter {name!r}",
                    )
                )
        for name, value in row.inputs.items():
            limit = limits.get(name)
            if limit is not None and len(value) > limit:
                problems.append(
                    RowProblem(
                        row.line,
                        row.number,
                        "SR_REPLAY_BATCH_VALUE_INVALID",
                        f"the value of {name!r} is longer than {limit:,} characters",
                    )
                )
    return problems


def refuse_rows(problems: Sequence[RowProblem], shown: int = SHOWN_ROW_PROBLEMS) -> ReplayError:
    """One refusal listing every bad value (the first ``shown`` of them, then how many more), in file
    order: the first problem's code, its line and row in ``details`` beside the list."""
    ordered = sorted(problems, key=lambda p: (p.line, p.row))
    first, listed, more = ordered[0], ordered[:shown], len(ordered) - shown
    where = "; ".join(f"line {p.line} (row {p.row}): {p.why}" for p in listed)
    if more > 0:
        where += f"; and {more:,} more"
    head = "" if len(ordered) == 1 else f"{len(ordered):,} bad values: "
    details: dict[str, Any] = {"line": first.line, "row": first.row}
    if len(ordered) > 1:
        details |= {"problems": [p.to_json() for p in listed], "more": max(0, more)}
    return ReplayError(first.code, f"{head}{where}; no row was run", details=details)


def _unknown(draft: Draft, name: str, line: int) -> ReplayError:
    names = [p.name for p in draft.parameters]
    listing = f"skill {draft.name!r} takes " + (", ".join(names) if names else "no inputs")
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    if close:
        listing += f"; did you mean {close[0]!r}?"
    return ReplayError(
        "SR_REPLAY_BATCH_COLUMN_UNKNOWN",
        f"line {line}: {_shown(name)} names no parameter: {listing}",
        details={"line": line, "parameters": names},
    )


def rows_digest(rows: Sequence[BatchRow]) -> str:
    """A digest of the rows (numbers and values), to tell a resumed batch's file from another."""
    return tagged_digest(_ROWS_TAG, [[row.number, dict(sorted(row.inputs.items()))] for row in rows])
