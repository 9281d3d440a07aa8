"""Pruning: what the policy's retention and the store's size bound let go, each prune one
``BEGIN IMMEDIATE`` transaction with one ``prune`` event per skill it touched.

:func:`prune_skills` removes whole skills past retention (not enabled, unchanged that long) with
their runs; :func:`prune_runs` trims what replays and changes leave behind (abandoned runs ended as
interrupted, old finished runs, old kept revisions, heal proposals of drafts no longer current,
then the oldest finished runs while the store is over 3/4 of its bound). Runs of a runset go
together (``runs.delete_numbers``). The ``Store`` exposes both as ``prune`` and ``prune_runs``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from ..model.entry import StoreEntry
from ..model.lifecycle import is_expired, parse_timestamp, timestamp
from . import audit, confirmations, db, entries, runs
from .audit import AuditNote
from .run_book import RunBook
from .writer import StoreWriter

PRUNE_RUNS_BATCH = 16


@dataclass(frozen=True)
class RunsPruned:
    """What a prune of runs, history and dead heal proposals removed (or, dry, would remove)."""

    runs: int = 0
    revisions: int = 0
    proposals: int = 0
    interrupted: int = 0

    def __bool__(self) -> bool:
        return bool(self.runs or self.revisions or self.proposals or self.interrupted)

    def to_json(self) -> dict[str, int]:
        return {
            "runs": self.runs,
            "revisions": self.revisions,
            "healProposals": self.proposals,
            "interrupted": self.interrupted,
        }


class _DryRun(Exception):
    """Raised to roll back a transaction that only measured what it would change."""


def prune_skills(writer: StoreWriter, now: str | None = None, *, dry_run: bool = False) -> list[StoreEntry]:
    """Remove every skill that is not enabled and unchanged for longer than the policy's
    retention, one ``prune`` event each, in one transaction. ``dry_run`` changes nothing."""
    now = now or writer.clock()
    with db.atomic(writer.conn, "pruning skills"):
        policy = writer.policy()
        cutoff = timestamp(parse_timestamp(now) - timedelta(days=policy.retention_days))
        expired = []
        for name in entries.stale_candidates(writer.conn, cutoff):
            entry = writer.current(name, None)
            if is_expired(entry, now, policy.retention_days):
                expired.append(entry)
        if not dry_run:
            for entry in expired:
                entries.delete(writer.conn, entry.name)
                runs.delete_skill(writer.conn, entry.name)
                confirmations.delete_skill(writer.conn, entry.name)
                writer.append(AuditNote(kind="prune"), entry, policy)
    return expired


def prune_runs(
    writer: StoreWriter, book: RunBook, now: str | None = None, *, dry_run: bool = False
) -> RunsPruned:
    """Trim what replays and changes leave behind, in one transaction: end abandoned runs (started
    runs whose process is gone, as interrupted); remove finished runs that ended before the
    retention cutoff, kept revisions (never the current one) last changed before it, and heal
    proposals of drafts that are no longer current; then, while the store holds more than 3/4 of
    its bound, the oldest finished runs. One ``prune`` event per skill touched. ``dry_run``
    measures the same change and rolls it back."""
    now = now or writer.clock()
    found = RunsPruned()
    try:
        with db.atomic(writer.conn, "pruning runs"):
            found = _prune_runs(writer, book, now)
            if dry_run:
                raise _DryRun
    except _DryRun:
        pass
    return found


def _prune_runs(writer: StoreWriter, book: RunBook, now: str) -> RunsPruned:
    conn = writer.conn
    policy = writer.policy()
    cutoff = timestamp(parse_timestamp(now) - timedelta(days=policy.retention_days))
    interrupted = book.end_abandoned(None, policy)
    # skills past retention go whole with ``prune``: what they hold is not counted twice here
    expired = {
        name
        for name in entries.stale_candidates(conn, cutoff)
        if is_expired(writer.current(name, None), now, policy.retention_days)
    }
    touched: dict[str, int] = {}
    old_runs = runs.finished_before(conn, cutoff, exclude=expired)
    removed = _delete_runs(writer, [n for n, _ in old_runs], touched)
    while db.used_bytes(conn) * 4 > policy.store_limit_bytes * 3:
        batch = runs.oldest_finished(conn, PRUNE_RUNS_BATCH)
        deleted = _delete_runs(writer, [n for n, _ in batch], touched) if batch else 0
        if not deleted:  # nothing left, or only runs of a batch still running
            break
        removed += deleted
    revisions = 0
    for name, revision in entries.stale_revisions(conn, cutoff):
        if name in expired:
            continue
        entries.delete_revision(conn, name, revision)
        touched[name] = touched.get(name, 0) + 1
        revisions += 1
    proposals = 0
    for number, name, base in runs.proposal_bases(conn):
        current = entries.load(conn, name)
        if name not in expired and (current is None or current.draft.draft_digest != base):
            runs.delete_proposals(conn, [number])
            touched[name] = touched.get(name, 0) + 1
            proposals += 1
    for name in sorted(touched):
        audit.append(conn, writer.signed(AuditNote(kind="prune", name=name)), now, policy)
    return RunsPruned(removed, revisions, proposals, len(interrupted))


def _delete_runs(writer: StoreWriter, numbers: list[int], touched: dict[str, int]) -> int:
    names = {
        int(seq): str(name)
        for n in numbers
        for seq, name in writer.conn.execute(
            "SELECT seq, name FROM runs WHERE seq = ? OR runset = (SELECT runset FROM runs WHERE seq = ?)",
            (n, n),
        )
    }
    deleted = runs.delete_numbers(writer.conn, numbers)
    for number in deleted:
        touched[names[number]] = touched.get(names[number], 0) + 1
    return len(deleted)
