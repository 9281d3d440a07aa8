"""Run rows and heal-proposal rows: append-only records beside the entries.

A run row is inserted when a replay is reserved (``outcome = 'started'``) and updated exactly once,
from ``started`` to how it ended; nothing else ever rewrites it (``prune`` removes old finished
ones). Every read re-validates the whole document (``RunRecord.parse``: strict keys, its digest,
its own rules) and checks it against its row's columns; any failure is ``SR_RECORD_STORE_CORRUPT``.

A run of a batch (``replay --batch``) also names its runset and row, in its document and in two
columns; a runset row (``runsets``) says which skill and rows the batch started with. Runs of a
runset are pruned together, never a part of them (so ``--resume`` never runs a row again whose
success was trimmed away), and a runset goes with its last run.

A heal-proposal row holds one candidate draft with healed locators, bound to the draft (and the
revision) it heals; identical proposals from concurrent runs coalesce into one row. A proposal is
pending while its base draft is the skill's current draft.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import ValidationError

from ..errors import SkillreelError, StoreError
from ..model.base import Document
from ..model.batch import Runset, RunsetClaim
from ..model.canonical import canonical_json
from ..model.entry import HealProposal
from ..model.runs import INTERRUPTED_CODE, RunOutcome, RunRecord, shown_outcome
from ..model.trust import RunFacts, TrustScore, trust_score
from .lease import lease_alive

_D = TypeVar("_D", bound=Document)

_RUN_COLUMNS = (
    "seq, run_id, name, revision, outcome, started_at, finished_at, run_digest, runset, batch_row, document"
)


@dataclass(frozen=True)
class RunView:
    """One run as a reader sees it: the record, its place in the store (``number``), and its outcome
    as shown (a started run whose process is gone shows as ``interrupted``)."""

    number: int
    record: RunRecord
    outcome: RunOutcome

    def to_json(self) -> dict[str, Any]:
        r = self.record
        found_dead = self.outcome != r.outcome  # still started in the store, its process gone
        return {
            "runId": r.run_id,
            "number": self.number,
            "name": r.name,
            "revision": r.revision,
            "draftDigest": r.draft_digest,
            "actor": r.actor,
            "startedAt": r.started_at,
            "finishedAt": r.finished_at,
            "outcome": self.outcome,
            "code": INTERRUPTED_CODE if found_dead else r.code,
            "reportDigest": r.report_digest,
            "stepsTotal": r.steps_total,
            "stepsRun": r.steps_run,
            "stepsActed": r.steps_acted,
            "sideEffects": r.steps_acting > 0 if found_dead else r.side_effects,
            "healedSteps": list(r.healed_steps),
            "matchedRanks": dict(r.matched_ranks or {}),
            "healProposalDigest": r.heal_proposal_digest,
            "runset": r.runset,
            "row": r.row,
            "runDigest": r.run_digest,
        }


def _corrupt(what: str, why: str) -> StoreError:
    return StoreError("SR_RECORD_STORE_CORRUPT", f"{what}: {why}; the store was left untouched")


def _document(kind: type[_D], what: str, document: object) -> _D:
    """A stored document parsed and re-validated (its digest recomputed), or the store is corrupt."""
    if not isinstance(document, bytes):
        raise _corrupt(what, "the document is not stored as bytes")
    try:
        return kind.parse(document)
    except (ValidationError, ValueError, RecursionError) as exc:
        raise _corrupt(what, "the document failed validation") from exc


def _parse_run(row: tuple[Any, ...]) -> tuple[int, RunRecord]:
    seq, run_id, name, revision, outcome, started_at, finished_at, digest, runset, batch_row, document = row
    what = f"run {seq}"
    run = _document(RunRecord, what, document)
    columns = (run_id, name, revision, outcome, started_at, finished_at, digest, runset, batch_row)
    if columns != (
        run.run_id,
        run.name,
        run.revision,
        run.outcome,
        run.started_at,
        run.finished_at,
        run.run_digest,
        run.runset,
        run.row,
    ):
        raise _corrupt(what, "the columns do not match the document")
    return int(seq), run


def view(row: tuple[Any, ...]) -> RunView:
    number, run = _parse_run(row)
    alive = run.outcome != "started" or lease_alive(run.lease)
    return RunView(number, run, shown_outcome(run, alive))


def insert(conn: sqlite3.Connection, run: RunRecord) -> int:
    """Add a reserved run; returns its number. Inside ``atomic`` only."""
    cursor = conn.execute(
        "INSERT INTO runs (run_id, name, revision, outcome, started_at, finished_at, run_digest, runset, "
        "batch_row, document) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        _values(run),
    )
    return int(cursor.lastrowid or 0)


def finish(conn: sqlite3.Connection, run: RunRecord) -> None:
    """Replace a started run's row with its finished record, once. Inside ``atomic`` only."""
    cursor = conn.execute(
        "UPDATE runs SET run_id = ?, name = ?, revision = ?, outcome = ?, started_at = ?, finished_at = ?, "
        "run_digest = ?, runset = ?, batch_row = ?, document = ? WHERE run_id = ? AND outcome = 'started'",
        (*_values(run), run.run_id),
    )
    if cursor.rowcount != 1:
        raise StoreError("SR_RECORD_INTERNAL", "the run was not found as started; it was not finished twice")


def _values(run: RunRecord) -> tuple[object, ...]:
    return (
        run.run_id,
        run.name,
        run.revision,
        run.outcome,
        run.started_at,
        run.finished_at,
        run.run_digest,
        run.runset,
        run.row,
        run.model_dump_json(by_alias=True).encode(),
    )


def load(conn: sqlite3.Connection, run_id: str) -> RunView | None:
    row = conn.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE run_id = ?", (run_id,)).fetchone()  # noqa: S608
    return view(row) if row else None


def page(conn: sqlite3.Connection, name: str, limit: int, before: int | None) -> list[RunView]:
    """The newest ``limit`` runs of ``name`` (numbered below ``before`` when given), newest first."""
    rows = conn.execute(
        f"SELECT {_RUN_COLUMNS} FROM runs WHERE name = ? AND seq < ? ORDER BY seq DESC LIMIT ?",  # noqa: S608
        (name, before if before is not None else 2**62, limit),
    ).fetchall()
    return [view(row) for row in rows]


# The finished runs of each skill's current draft, newest first: what its trust score reads
# (``model.trust``). A summary: the fields are read from the documents as stored, not re-validated
# run by run (``verify`` does that; a corrupt row fails every other read).
_TRUST_ROWS = """
WITH current AS (
    SELECT e.name AS name,
           json_extract(CAST(r.document AS TEXT), '$.draft.draftDigest') AS draft_digest
    FROM entries e JOIN revisions r ON r.name = e.name AND r.revision = e.revision
    WHERE e.name = :name OR :name IS NULL
)
SELECT runs.name, runs.outcome, runs.finished_at,
       json_extract(CAST(runs.document AS TEXT), '$.code'),
       json_array_length(CAST(runs.document AS TEXT), '$.healedSteps')
FROM runs JOIN current ON current.name = runs.name
    AND json_extract(CAST(runs.document AS TEXT), '$.draftDigest') = current.draft_digest
WHERE runs.outcome != 'started'
ORDER BY runs.name, runs.seq DESC
"""


def trust(conn: sqlite3.Connection, name: str | None = None) -> dict[str, TrustScore]:
    """The trust score of ``name``'s current draft (of every skill when None) from its finished
    runs; a skill without runs of its current draft is left out."""
    grouped: dict[str, list[RunFacts]] = {}
    for skill, outcome, finished_at, code, healed in conn.execute(_TRUST_ROWS, {"name": name}):
        grouped.setdefault(skill, []).append(RunFacts(outcome, finished_at, code, bool(healed)))
    return {skill: trust_score(facts) for skill, facts in grouped.items()}


def matched_ranks(conn: sqlite3.Connection, name: str, draft_digest: str) -> list[dict[str, int]]:
    """The ``matchedRanks`` of every finished run of ``name``'s draft ``draft_digest`` that has
    them, newest first (what the rank proposal counts: ``locate.proposals.rank_promotions``)."""
    rows = conn.execute(
        "SELECT json_extract(CAST(document AS TEXT), '$.matchedRanks') FROM runs "
        "WHERE name = ? AND outcome != 'started' "
        "AND json_extract(CAST(document AS TEXT), '$.draftDigest') = ? "
        "AND json_extract(CAST(document AS TEXT), '$.matchedRanks') IS NOT NULL ORDER BY seq DESC",
        (name, draft_digest),
    ).fetchall()
    out: list[dict[str, int]] = []
    for (text,) in rows:
        ranks = json.loads(text)
        if not isinstance(ranks, dict) or not all(isinstance(v, int) for v in ranks.values()):
            raise _corrupt(f"a run of skill {name!r}", "its matched ranks are not step ranks")
        out.append({str(k): v for k, v in ranks.items()})
    return out


def count(conn: sqlite3.Connection, name: str | None = None) -> int:
    if name is None:
        return int(conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])
    return int(conn.execute("SELECT COUNT(*) FROM runs WHERE name = ?", (name,)).fetchone()[0])


def started_since(conn: sqlite3.Connection, since: str, actor: str) -> int:
    """How many runs ``actor`` started at or after ``since`` (a caller's rate, ``policy.callers``)."""
    rows = conn.execute("SELECT document FROM runs WHERE started_at >= ?", (since,)).fetchall()
    counted = 0
    for (document,) in rows:
        try:
            counted += json.loads(document).get("actor") == actor
        except (ValueError, AttributeError):
            counted += 1  # an unreadable run counts against the caller: fail closed
    return counted


def started(conn: sqlite3.Connection, name: str | None = None) -> list[RunView]:
    """The runs still marked started (of ``name``, or all), each with its lease checked."""
    where = "outcome = 'started'" + (" AND name = ?" if name is not None else "")
    rows = conn.execute(
        f"SELECT {_RUN_COLUMNS} FROM runs WHERE {where} ORDER BY seq",  # noqa: S608
        (name,) if name is not None else (),
    ).fetchall()
    return [view(row) for row in rows]


def finished_before(
    conn: sqlite3.Connection, cutoff: str, exclude: Collection[str] = ()
) -> list[tuple[int, str]]:
    """(number, run digest) of the finished runs that ended before ``cutoff`` (of skills not in
    ``exclude``), oldest first."""
    rows = conn.execute(
        "SELECT seq, run_digest, name FROM runs WHERE outcome != 'started' AND finished_at < ? ORDER BY seq",
        (cutoff,),
    ).fetchall()
    return [(int(seq), str(digest)) for seq, digest, name in rows if name not in exclude]


def oldest_finished(conn: sqlite3.Connection, limit: int) -> list[tuple[int, str]]:
    rows = conn.execute(
        "SELECT seq, run_digest FROM runs WHERE outcome != 'started' ORDER BY seq LIMIT ?", (limit,)
    ).fetchall()
    return [(int(seq), str(digest)) for seq, digest in rows]


def delete_numbers(conn: sqlite3.Connection, numbers: list[int]) -> list[int]:
    """Delete these finished runs, together with every other finished run of the runsets they belong
    to; a runset with a run still started keeps all of its runs. Returns the numbers deleted. Inside
    ``atomic`` only."""
    wanted = set(numbers)
    runsets = {
        str(r)
        for n in numbers
        for (r,) in conn.execute("SELECT runset FROM runs WHERE seq = ? AND runset IS NOT NULL", (n,))
    }
    for runset in sorted(runsets):
        rows = conn.execute("SELECT seq, outcome FROM runs WHERE runset = ?", (runset,)).fetchall()
        members = {int(seq) for seq, _ in rows}
        if any(outcome == "started" for _, outcome in rows):
            wanted -= members
        else:
            wanted |= members
    doomed = sorted(wanted)
    conn.executemany("DELETE FROM runs WHERE seq = ?", [(n,) for n in doomed])
    held = _held(conn)  # a batch that has not reserved its first run yet keeps its runset
    conn.executemany(
        "DELETE FROM runsets WHERE runset = ?",
        [
            (r,)
            for (r,) in conn.execute(
                "SELECT runset FROM runsets WHERE runset NOT IN "
                "(SELECT runset FROM runs WHERE runset IS NOT NULL)"
            ).fetchall()
            if str(r) not in held
        ],
    )
    return doomed


def digests(conn: sqlite3.Connection) -> list[str]:
    return [str(d) for (d,) in conn.execute("SELECT run_digest FROM runs")]


# --- runsets (batches) ---------------------------------------------------------------------------


def add_runset(conn: sqlite3.Connection, runset: Runset, owner: RunsetClaim | None = None) -> None:
    """Keep a new batch's runset (held by ``owner``). Inside ``atomic`` only."""
    conn.execute(
        "INSERT INTO runsets (runset, name, rows, rows_digest, created_at, owner) VALUES (?, ?, ?, ?, ?, ?)",
        (
            runset.runset_id,
            runset.name,
            runset.rows,
            runset.rows_digest,
            runset.created_at,
            None if owner is None else _owner_text(owner),
        ),
    )


def _owner_text(owner: RunsetClaim) -> str:
    return canonical_json(owner.to_json()).decode()


def runset_owner(conn: sqlite3.Connection, runset_id: str) -> RunsetClaim | None:
    """The batch that holds a runset, alive or not (None: no batch holds it)."""
    row = conn.execute("SELECT owner FROM runsets WHERE runset = ?", (runset_id,)).fetchone()
    if row is None or row[0] is None:
        return None
    try:
        return RunsetClaim.parse(str(row[0]))
    except (SkillreelError, ValidationError) as exc:
        raise _corrupt(f"runset {runset_id}", "its owner failed validation") from exc


def hold_runset(conn: sqlite3.Connection, runset_id: str, owner: RunsetClaim) -> None:
    """Hold a runset for ``owner``. Inside ``atomic`` only."""
    conn.execute("UPDATE runsets SET owner = ? WHERE runset = ?", (_owner_text(owner), runset_id))


def let_go_runset(conn: sqlite3.Connection, runset_id: str, owner: RunsetClaim) -> None:
    """Let a runset go, only when ``owner`` still holds it. Inside ``atomic`` only."""
    conn.execute(
        "UPDATE runsets SET owner = NULL WHERE runset = ? AND owner = ?", (runset_id, _owner_text(owner))
    )


def _held(conn: sqlite3.Connection) -> set[str]:
    """The runsets a live batch holds."""
    held = set()
    for runset_id, text in conn.execute("SELECT runset, owner FROM runsets WHERE owner IS NOT NULL"):
        try:
            alive = lease_alive(RunsetClaim.parse(str(text)).lease)
        except (SkillreelError, ValidationError):
            alive = False  # a held runset that cannot be read holds nothing
        if alive:
            held.add(str(runset_id))
    return held


def load_runset(conn: sqlite3.Connection, runset_id: str) -> Runset | None:
    row = conn.execute(
        "SELECT runset, name, rows, rows_digest, created_at FROM runsets WHERE runset = ?", (runset_id,)
    ).fetchone()
    if row is None:
        return None
    runset, name, rows, digest, created_at = row
    try:
        return Runset(runset_id=runset, name=name, rows=rows, rows_digest=digest, created_at=created_at)
    except ValidationError as exc:
        raise _corrupt(f"runset {runset_id}", "the row failed validation") from exc


def runset_unfinished(conn: sqlite3.Connection, runset_id: str) -> dict[int, str]:
    """Row number -> the id of the newest run of that row that never ended (started, or interrupted
    since): a row a fleet worker may still be running."""
    return _rows_with(conn, runset_id, ("started", "interrupted"), newest=True)


def runset_successes(conn: sqlite3.Connection, runset_id: str) -> dict[int, str]:
    """Row number -> the id of a succeeded run of that row, for every row of the runset that succeeded
    (each run re-validated)."""
    return _rows_with(conn, runset_id, ("succeeded",), newest=False)


def _rows_with(
    conn: sqlite3.Connection, runset_id: str, outcomes: tuple[str, ...], *, newest: bool
) -> dict[int, str]:
    """Row number -> the id of its first (or newest) run with one of ``outcomes`` (each re-validated)."""
    marks = ", ".join("?" for _ in outcomes)
    rows = conn.execute(
        f"SELECT {_RUN_COLUMNS} FROM runs WHERE runset = ? AND outcome IN ({marks}) ORDER BY seq",  # noqa: S608
        (runset_id, *outcomes),
    ).fetchall()
    found: dict[int, str] = {}
    for row in rows:
        _, run = _parse_run(row)
        if run.row is not None and (newest or run.row not in found):
            found[run.row] = run.run_id
    return found


# --- heal proposals ------------------------------------------------------------------------------


def add_proposal(conn: sqlite3.Connection, proposal: HealProposal, run_id: str) -> bool:
    """Keep a run's heal proposal; False when an identical one of the same draft is already kept."""
    cursor = conn.execute(
        "INSERT OR IGNORE INTO heal_proposals (name, base_revision, base_draft_digest, proposal_digest, "
        "run_id, proposed_at, document) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            proposal.draft.name,
            proposal.base_revision,
            proposal.base_draft_digest,
            proposal.draft.draft_digest,
            run_id,
            proposal.proposed_at,
            proposal.model_dump_json(by_alias=True).encode(),
        ),
    )
    return cursor.rowcount == 1


def proposals(conn: sqlite3.Connection, name: str, draft_digest: str) -> list[HealProposal]:
    """The kept proposals that heal exactly ``draft_digest`` of ``name``, newest first."""
    rows = conn.execute(
        "SELECT seq, name, base_revision, base_draft_digest, proposal_digest, proposed_at, document "
        "FROM heal_proposals WHERE name = ? AND base_draft_digest = ? ORDER BY seq DESC",
        (name, draft_digest),
    ).fetchall()
    return [_parse_proposal(row) for row in rows]


def check_all(conn: sqlite3.Connection) -> None:
    """Every kept run and heal proposal re-validated against its digest and its row's columns;
    ``SR_RECORD_STORE_CORRUPT`` at the first that is not (``audit --verify``)."""
    cursor = conn.execute(f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY seq")  # noqa: S608
    while rows := cursor.fetchmany(1024):
        for row in rows:
            _parse_run(row)
    for row in conn.execute(
        "SELECT seq, name, base_revision, base_draft_digest, proposal_digest, proposed_at, document "
        "FROM heal_proposals ORDER BY seq"
    ).fetchall():
        _parse_proposal(row)


def _parse_proposal(row: tuple[Any, ...]) -> HealProposal:
    seq, name, base_revision, base_draft_digest, proposal_digest, proposed_at, document = row
    what = f"heal proposal {seq}"
    proposal = _document(HealProposal, what, document)
    if (name, base_revision, base_draft_digest, proposal_digest, proposed_at) != (
        proposal.draft.name,
        proposal.base_revision,
        proposal.base_draft_digest,
        proposal.draft.draft_digest,
        proposal.proposed_at,
    ):
        raise _corrupt(what, "the columns do not match the document")
    return proposal


def delete_skill(conn: sqlite3.Connection, name: str) -> None:
    """Remove a deleted skill's runs and proposals. Inside ``atomic`` only."""
    conn.execute("DELETE FROM runs WHERE name = ?", (name,))
    conn.execute("DELETE FROM runsets WHERE name = ?", (name,))
    conn.execute("DELETE FROM heal_proposals WHERE name = ?", (name,))


def proposal_bases(conn: sqlite3.Connection) -> list[tuple[int, str, str]]:
    """(number, skill name, base draft digest) of every kept proposal."""
    rows = conn.execute("SELECT seq, name, base_draft_digest FROM heal_proposals ORDER BY seq").fetchall()
    return [(int(seq), str(name), str(base)) for seq, name, base in rows]


def delete_proposals_of(conn: sqlite3.Connection, name: str, draft_digest: str) -> None:
    """Drop every proposal kept for ``draft_digest`` of ``name`` (a reviewer rejected them)."""
    conn.execute("DELETE FROM heal_proposals WHERE name = ? AND base_draft_digest = ?", (name, draft_digest))


def delete_proposals(conn: sqlite3.Connection, numbers: list[int]) -> None:
    conn.executemany("DELETE FROM heal_proposals WHERE seq = ?", [(n,) for n in numbers])
