"""The skill registry: the one object the rest of skillreel uses to read and change skills.

Every mutation is one ``BEGIN IMMEDIATE`` transaction holding the compare-and-set on the entry's
revision, the entry row, its revision-history row and exactly one audit event (``prune`` writes
one event per removed skill, all in one transaction; ``trim_audit`` removes old audit events and
records it in one event, see ``audit.trim``). If anything raises, nothing is written.
Every read of a document re-validates it; see ``entries``, ``runs`` and ``audit``.

Replays are runs, not revisions (``model.runs``): :meth:`Store.reserve_run` writes the started run
and its ``run-start`` event before the browser acts (refused, with nothing written, when the store
is busy, full, at its audit limit, or the skill moved since the pre-flight);
:meth:`Store.finish_run` finishes it once with its ``run-end`` event, keeps its heal proposal and,
for the first success of an approved revision, makes that revision validated (compare-and-set:
a run that lost the race still finishes). Neither conflicts with another run of the same skill.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Self, TypeVar

from pydantic import ValidationError

from ..errors import LifecycleError, StoreError
from ..model.audit import AuditEvent, Outcome
from ..model.base import DigestedDocument
from ..model.batch import Runset, RunsetClaim
from ..model.entry import HealProposal, StoreEntry
from ..model.lifecycle import (
    check_revision,
    ensure_deletable,
    is_expired,
    parse_timestamp,
    timestamp,
    validate,
    validates,
)
from ..model.policy import Policy
from ..model.report import ReplayReport
from ..model.runs import Actor, RunRecord, interrupt_run
from . import audit, db, entries, runs
from .audit import AuditNote, AuditVerification
from .entries import EntrySummary, RevisionSummary, not_found
from .lease import lease_alive
from .runs import RunView

Clock = Callable[[], str]
D = TypeVar("D", bound=DigestedDocument)


def utc_now() -> str:
    """The current time as a wire ``Timestamp``."""
    return timestamp(datetime.now(UTC))


_RUN_END_OUTCOME: dict[str, Outcome] = {
    "succeeded": "ok",
    "failed": "failed",
    "cancelled": "cancelled",
    "interrupted": "interrupted",
}
RUNS_PAGE = 20
PRUNE_RUNS_BATCH = 16


@dataclass(frozen=True)
class RunsetHolding:
    """What :meth:`Store.claim_runset` came to: whether the batch now holds its runset, who holds
    it instead (a live batch; None when the runset is gone), the rows that already succeeded."""

    held: bool
    held_by: RunsetClaim | None = None
    done: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class StoreSize:
    """How many bytes the store's pages hold, against its bound (``policy.store_limit_bytes``)."""

    used_bytes: int
    limit_bytes: int

    def to_json(self) -> dict[str, int]:
        return {"bytes": self.used_bytes, "limitBytes": self.limit_bytes}


@dataclass(frozen=True)
class RunFinish:
    """A finished run as stored, the entry it validated (or None), and whether its heal proposal was
    kept as a new one (False when an identical proposal of the same draft was already kept)."""

    run: RunRecord
    validated: StoreEntry | None
    proposal_kept: bool


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


class Store:
    """An open store. Use :meth:`open`; close it (or use it as a context manager) when done."""

    def __init__(self, conn: sqlite3.Connection, home: Path, clock: Clock, actor: Actor = "cli") -> None:
        self._conn = conn
        self.home = home
        self._clock = clock
        self.actor: Actor = actor

    @classmethod
    def open(
        cls,
        home: Path | None = None,
        *,
        timeout: float | None = None,
        clock: Clock | None = None,
        actor: Actor | None = None,
    ) -> Store:
        """Open (creating and migrating if needed) ``home/store.db``; ``home`` defaults to
        ``$SKILLREEL_HOME`` or the platform user-data directory. ``actor`` is who the audit log
        names for changes made through this store (default: ``db.store_actor()``)."""
        home = home if home is not None else db.store_home()
        conn = db.connect(home, db.store_timeout() if timeout is None else timeout)
        return cls(conn, home, clock or utc_now, actor or db.store_actor())

    @property
    def path(self) -> Path:
        return self.home / db.DB_NAME

    def now(self) -> str:
        """The current time as a wire ``Timestamp``, from the clock the store was opened with: the one
        source of time for every use case (tests open a store with a fixed ``clock``)."""
        return self._clock()

    def close(self) -> None:
        with db.translated("closing the store"):
            self._conn.close()
        db.secure_files(self.home)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # --- reads ---------------------------------------------------------------------------------

    def find(self, name: str) -> StoreEntry | None:
        with db.translated("reading a skill"):
            return entries.load(self._conn, name)

    def get(self, name: str) -> StoreEntry:
        entry = self.find(name)
        if entry is None:
            raise not_found(name)
        return entry

    def entries(self) -> list[StoreEntry]:
        """Every current entry, each fully re-validated, by name."""
        with db.snapshot(self._conn, "reading skills"):
            found = [entries.load(self._conn, name) for name in entries.names(self._conn)]
        return [e for e in found if e is not None]

    def summaries(self) -> list[EntrySummary]:
        """The summary columns of every entry (for ``list``; no document is parsed)."""
        with db.translated("listing skills"):
            return entries.summaries(self._conn)

    def revisions(self, name: str) -> list[RevisionSummary]:
        """Every kept revision of ``name``, oldest first (empty when the name is unknown)."""
        with db.translated("listing revisions"):
            return entries.revisions(self._conn, name)

    def revision(self, name: str, revision: int) -> StoreEntry:
        """One kept revision of ``name``, fully re-validated; ``SR_RECORD_NOT_FOUND`` for an unknown
        skill, ``SR_RECORD_REVISION_NOT_FOUND`` for a revision it never had or no longer keeps."""
        with db.translated("reading a revision"):
            entry = entries.load_revision(self._conn, name, revision)
            current = None if entry is not None else entries.current_revision(self._conn, name)
        if entry is not None:
            return entry
        if current is None:
            raise not_found(name)
        if revision > current:
            raise LifecycleError(
                "SR_RECORD_REVISION_NOT_FOUND",
                f"skill {name!r} has no revision {revision} (it is at {current})",
            )
        raise LifecycleError(
            "SR_RECORD_REVISION_NOT_FOUND", f"revision {revision} of {name!r} is no longer kept"
        )

    def count(self) -> int:
        with db.translated("counting skills"):
            return entries.count(self._conn)

    def policy(self) -> Policy:
        """The policy in force (the default one until ``set_policy``), re-validated."""
        with db.translated("reading the policy"):
            return self._policy()

    def policy_is_default(self) -> bool:
        with db.translated("reading the policy"):
            return self._conn.execute("SELECT 1 FROM policy WHERE id = 1").fetchone() is None

    def audit_events(self, name: str | None = None, limit: int | None = None) -> list[AuditEvent]:
        """Audit events in order (the last ``limit``), optionally only those about ``name``."""
        with db.translated("reading the audit log"):
            return audit.read_events(self._conn, name, limit)

    def audit_count(self, name: str | None = None) -> int:
        with db.translated("reading the audit log"):
            return audit.event_count(self._conn, name)

    def verify_audit(self) -> AuditVerification:
        """Recompute the whole audit chain (``{"ok", "events", "brokenAt", "mismatch"}``), then
        every kept revision, run and heal proposal from its stored bytes: the chain attests their
        digests, and each document must still be the one its digest names (and its row's columns
        the document's). One read transaction."""
        with db.snapshot(self._conn, "verifying the audit log"):
            result = audit.verify_chain(self._conn)
            if not result.ok:
                return result
            try:
                entries.check_all(self._conn)
                runs.check_all(self._conn)
            except StoreError as exc:
                return replace(result, ok=False, mismatch=exc.message)
            return result

    def unlogged_refusals(self) -> int:
        """Refused calls counted but not yet reported by a written ``replay-refused`` event."""
        with db.translated("reading the audit log"):
            return audit.unlogged_refusals(self._conn)

    def size(self) -> StoreSize:
        """The bytes the store's pages hold against the policy's bound."""
        with db.snapshot(self._conn, "measuring the store"):
            return StoreSize(db.used_bytes(self._conn), self._policy().store_limit_bytes)

    def runs(self, name: str, *, limit: int = RUNS_PAGE, before: int | None = None) -> list[RunView]:
        """The newest ``limit`` runs of ``name`` (numbered below ``before``), newest first, each
        re-validated; a started run whose process is gone shows as ``interrupted``."""
        with db.snapshot(self._conn, "reading runs"):
            return runs.page(self._conn, name, limit, before)

    def run(self, run_id: str) -> RunView | None:
        with db.translated("reading a run"):
            return runs.load(self._conn, run_id)

    def run_count(self, name: str | None = None) -> int:
        with db.translated("counting runs"):
            return runs.count(self._conn, name)

    def heal_proposals(self, name: str) -> list[HealProposal]:
        """The heal proposals pending for ``name``'s current draft, newest first (a proposal an older
        store kept in the entry comes last). Empty when the skill is unknown."""
        with db.snapshot(self._conn, "reading heal proposals"):
            current = entries.load(self._conn, name)
            if current is None:
                return []
            found = runs.proposals(self._conn, name, current.draft.draft_digest)
        legacy = current.heal_proposal
        if legacy is not None and all(p.draft.draft_digest != legacy.draft.draft_digest for p in found):
            found.append(legacy)
        return found

    # --- mutations -----------------------------------------------------------------------------

    def insert(self, entry: StoreEntry, note: AuditNote) -> StoreEntry:
        """Store a new skill at revision 1. ``SR_RECORD_EXISTS``; policy limits apply."""
        entry = _revalidate(entry)
        if entry.revision != 1:
            raise StoreError("SR_RECORD_INTERNAL", "a new skill starts at revision 1")
        with db.atomic(self._conn, "storing a skill"):
            policy = self._policy()
            if self._conn.execute("SELECT 1 FROM entries WHERE name = ?", (entry.name,)).fetchone():
                raise LifecycleError("SR_RECORD_EXISTS", f"a skill named {entry.name!r} already exists")
            if entries.count(self._conn) >= policy.max_records:
                raise StoreError(
                    "SR_RECORD_STORE_LIMIT", f"the store holds its limit of {policy.max_records} skills"
                )
            _check_actions(entry, policy)
            entries.write(self._conn, entry, new=True)
            self._append(note, entry, policy)
        return entry

    def update(
        self,
        name: str,
        change: Callable[[StoreEntry], StoreEntry],
        note: AuditNote,
        expected_revision: int | None = None,
        *,
        drop_heal_proposals: bool = False,
    ) -> StoreEntry:
        """Apply ``change`` (a pure lifecycle function) to the current entry, compare-and-set.

        In one transaction: read and re-validate the current entry, check ``expected_revision``
        (``SR_RECORD_REVISION_CONFLICT``), compute the next entry (which must be the next revision
        of the same skill), keep it in the history and append the audit event. With
        ``drop_heal_proposals`` the heal proposals kept for the current draft are deleted too (a
        reviewer rejected them: ``review --heal-proposal --reject``).
        """
        with db.atomic(self._conn, "updating a skill"):
            policy = self._policy()
            current = self._current(name, expected_revision)
            new = _revalidate(change(current))
            if new.name != current.name or new.revision != current.revision + 1:
                raise StoreError("SR_RECORD_INTERNAL", "a change must produce the next revision of the skill")
            if new.draft.draft_digest != current.draft.draft_digest:
                _check_actions(new, policy)
            entries.write(self._conn, new, new=False)
            if drop_heal_proposals:
                runs.delete_proposals_of(self._conn, current.name, current.draft.draft_digest)
            self._append(note, new, policy)
        return new

    def remove(self, name: str, note: AuditNote, expected_revision: int | None = None) -> StoreEntry:
        """Delete a skill that is not enabled, with its history; returns what was removed."""
        with db.atomic(self._conn, "deleting a skill"):
            policy = self._policy()
            current = self._current(name, expected_revision)
            ensure_deletable(current)
            entries.delete(self._conn, name)
            runs.delete_skill(self._conn, name)
            self._append(note, current, policy)
        return current

    def prune(self, now: str | None = None, *, dry_run: bool = False) -> list[StoreEntry]:
        """Remove every skill that is not enabled and unchanged for longer than the policy's
        retention, one ``prune`` event each, in one transaction. ``dry_run`` changes nothing."""
        now = now or self._clock()
        with db.atomic(self._conn, "pruning skills"):
            policy = self._policy()
            cutoff = timestamp(parse_timestamp(now) - timedelta(days=policy.retention_days))
            expired = []
            for name in entries.stale_candidates(self._conn, cutoff):
                entry = self._current(name, None)
                if is_expired(entry, now, policy.retention_days):
                    expired.append(entry)
            if not dry_run:
                for entry in expired:
                    entries.delete(self._conn, entry.name)
                    runs.delete_skill(self._conn, entry.name)
                    self._append(AuditNote(kind="prune"), entry, policy)
        return expired

    def trim_audit(self, *, dry_run: bool = False) -> int:
        """Remove the oldest audit events when the log holds more than 90% of the policy's
        ``maxAuditEvents``, down to 80% (one content-free ``prune`` event recording the anchor),
        in one transaction; returns how many were (or, with ``dry_run``, would be) removed.
        ``SR_RECORD_STORE_CORRUPT`` if the chain does not verify: a trim never hides damage."""
        with db.atomic(self._conn, "trimming the audit log"):
            return audit.trim(self._conn, self._policy(), self._clock(), dry_run=dry_run, actor=self.actor)

    def audit(self, note: AuditNote) -> AuditEvent:
        """Append a standalone event (a failed replay, an export) in its own transaction."""
        return self.audit_many([note])[0]

    def audit_many(self, notes: Iterable[AuditNote]) -> list[AuditEvent]:
        """Append several standalone events, in order, in one transaction (all or none)."""
        notes = [self._signed(n) for n in notes]
        with db.atomic(self._conn, "writing the audit log"):
            return audit.append_many(self._conn, notes, self._clock(), self._policy())

    def audit_refusal(self, note: AuditNote) -> AuditEvent | None:
        """Log a refused call, coalesced when they come fast (``audit.refusal``): the event written,
        or None when the refusal was only counted (reported by the next written one)."""
        with db.atomic(self._conn, "writing the audit log"):
            return audit.refusal(self._conn, self._signed(note), self._clock(), self._policy())

    # --- runs ----------------------------------------------------------------------------------

    def reserve_run(self, run: RunRecord) -> RunRecord:
        """Record a started run and its ``run-start`` event, in one transaction, before anything acts.

        Refused with nothing written when the store is busy past its timeout, the disk is full, the
        audit log or the store is at its limit (``SR_RECORD_STORE_LIMIT``), or the skill is no longer
        at the run's revision and draft (``SR_RECORD_REVISION_CONFLICT``). Started runs of the same
        skill whose process is gone are recorded as interrupted first.
        """
        run = _revalidate(run)
        if run.finished:
            raise StoreError("SR_RECORD_INTERNAL", "a run is reserved as started")
        with db.atomic(self._conn, "reserving a run"):
            policy = self._policy()
            current = self._current(run.name, run.revision)
            if current.draft.draft_digest != run.draft_digest:
                raise LifecycleError(
                    "SR_RECORD_REVISION_CONFLICT", f"skill {run.name!r} changed since the pre-flight"
                )
            self._end_abandoned_runs(run.name, policy)
            runs.insert(self._conn, run)
            note = AuditNote(
                kind="run-start",
                name=run.name,
                revision=run.revision,
                digests={"run": run.run_digest, "draft": run.draft_digest},
                actor=run.actor,
                run=run.run_id,
            )
            audit.append(self._conn, note, self._clock(), policy)
        return run

    def finish_run(
        self, run: RunRecord, *, report: ReplayReport | None = None, proposal: HealProposal | None = None
    ) -> RunFinish:
        """Finish a started run once (``run``: the finished record), with its ``run-end`` event; keep
        its heal proposal (one ``heal-proposal`` event); and when it succeeded and the skill is still
        that approved revision, make it validated (``validate`` event). One transaction, never refused
        by the audit or size limits: what a run did is always recorded when the disk allows it."""
        run = _revalidate(run)
        if not run.finished:
            raise StoreError("SR_RECORD_INTERNAL", "a run is finished with its outcome")
        with db.atomic(self._conn, "recording a run"):
            policy, now = self._policy(), self._clock()
            runs.finish(self._conn, run)
            notes = [self._run_end(run)]
            kept = False
            if proposal is not None:
                kept = runs.add_proposal(self._conn, proposal, run.run_id)
                notes.append(
                    AuditNote(
                        kind="heal-proposal",
                        name=run.name,
                        revision=run.revision,
                        digests={"healProposal": proposal.draft.draft_digest, "draft": run.draft_digest},
                        actor=run.actor,
                        run=run.run_id,
                    )
                )
            audit.append_many(self._conn, notes, now, policy, limited=False)
            validated = None
            current = entries.load(self._conn, run.name)
            if (
                report is not None
                and current is not None
                and validates(current, run.revision, run.draft_digest)
            ):
                validated = _revalidate(validate(current, report, now))
                entries.write(self._conn, validated, new=False)
                note = AuditNote(kind="validate", digests={"report": report.report_digest}, run=run.run_id)
                self._append(replace(note, actor=run.actor), validated, policy, limited=False)
        return RunFinish(run, validated, kept)

    def add_runset(self, runset: Runset) -> Runset:
        """Keep a new batch's runset (``replay --batch``) before its first run is reserved."""
        with db.atomic(self._conn, "keeping a runset"):
            if runs.load_runset(self._conn, runset.runset_id) is not None:
                raise StoreError("SR_RECORD_INTERNAL", "a runset id was drawn twice")
            runs.add_runset(self._conn, runset)
        return runset

    def claim_runset(self, runset: Runset, claim: RunsetClaim, *, new: bool) -> RunsetHolding:
        """Hold a runset for one batch while it runs, in one transaction: a new one is kept held; a
        kept one is taken unless another batch whose process lives holds it (then nothing changes
        and :attr:`RunsetHolding.held_by` says which). Also the rows that already succeeded, read in
        the same transaction (a batch that ended just before is counted)."""
        with db.atomic(self._conn, "claiming a runset"):
            if new:
                if runs.load_runset(self._conn, runset.runset_id) is not None:
                    raise StoreError("SR_RECORD_INTERNAL", "a runset id was drawn twice")
                runs.add_runset(self._conn, runset, claim)
                return RunsetHolding(held=True)
            if runs.load_runset(self._conn, runset.runset_id) is None:
                return RunsetHolding(held=False)  # pruned since it was planned
            holder = runs.runset_owner(self._conn, runset.runset_id)
            if holder is not None and holder.token != claim.token and lease_alive(holder.lease):
                return RunsetHolding(held=False, held_by=holder)
            runs.hold_runset(self._conn, runset.runset_id, claim)
            return RunsetHolding(held=True, done=runs.runset_successes(self._conn, runset.runset_id))

    def release_runset(self, runset_id: str, claim: RunsetClaim) -> None:
        """Let a runset go at the end of its batch (only when ``claim`` still holds it)."""
        with db.atomic(self._conn, "releasing a runset"):
            runs.let_go_runset(self._conn, runset_id, claim)

    def runset(self, runset_id: str) -> Runset | None:
        """The runset of that id, or None (never kept, or pruned with its runs)."""
        with db.translated("reading a runset"):
            return runs.load_runset(self._conn, runset_id)

    def runset_unfinished(self, runset_id: str) -> dict[int, str]:
        """Row number -> the id of a run of that row that never ended (a fleet worker may run it)."""
        with db.translated("reading a runset's runs"):
            return runs.runset_unfinished(self._conn, runset_id)

    def runset_successes(self, runset_id: str) -> dict[int, str]:
        """Row number -> the id of a succeeded run of that row, for the rows of a runset that succeeded."""
        with db.translated("reading a runset's runs"):
            return runs.runset_successes(self._conn, runset_id)

    def prune_runs(self, now: str | None = None, *, dry_run: bool = False) -> RunsPruned:
        """Trim what replays and changes leave behind, in one transaction: end abandoned runs (started
        runs whose process is gone, as interrupted); remove finished runs that ended before the
        retention cutoff, kept revisions (never the current one) last changed before it, and heal
        proposals of drafts that are no longer current; then, while the store holds more than 3/4 of
        its bound, the oldest finished runs. One ``prune`` event per skill touched. ``dry_run``
        measures the same change and rolls it back."""
        now = now or self._clock()
        found = RunsPruned()
        try:
            with db.atomic(self._conn, "pruning runs"):
                found = self._prune_runs(now)
                if dry_run:
                    raise _DryRun
        except _DryRun:
            pass
        return found

    def set_policy(self, policy: Policy, note: AuditNote | None = None) -> Policy:
        """Replace the policy in force (one ``policy`` event with the new policy's digest)."""
        policy = _revalidate(policy)
        note = note or AuditNote(kind="policy")
        with db.atomic(self._conn, "setting the policy"):
            self._conn.execute(
                "INSERT OR REPLACE INTO policy (id, policy_digest, document) VALUES (1, ?, ?)",
                (policy.policy_digest, policy.model_dump_json(by_alias=True).encode()),
            )
            filled = replace(self._signed(note), digests={**note.digests, "policy": policy.policy_digest})
            audit.append(self._conn, filled, self._clock(), policy)
        return policy

    # --- inside a transaction ------------------------------------------------------------------

    def _policy(self) -> Policy:
        row = self._conn.execute("SELECT policy_digest, document FROM policy WHERE id = 1").fetchone()
        if row is None:
            return Policy.default()
        try:
            policy = Policy.parse(row[1])
        except (ValidationError, ValueError, RecursionError) as exc:
            raise StoreError("SR_RECORD_STORE_CORRUPT", "the stored policy failed validation") from exc
        if policy.policy_digest != row[0]:
            raise StoreError("SR_RECORD_STORE_CORRUPT", "the stored policy does not match its row")
        return policy

    def _current(self, name: str, expected_revision: int | None) -> StoreEntry:
        current = entries.load(self._conn, name)
        if current is None:
            raise not_found(name)
        check_revision(current, expected_revision)
        return current

    def _signed(self, note: AuditNote) -> AuditNote:
        return note if note.actor is not None else replace(note, actor=self.actor)

    def _append(
        self, note: AuditNote, entry: StoreEntry, policy: Policy, *, limited: bool = True
    ) -> AuditEvent:
        filled = replace(
            self._signed(note),
            name=note.name or entry.name,
            revision=note.revision or entry.revision,
            digests={**note.digests, "entry": entry.entry_digest},
        )
        return audit.append(self._conn, filled, self._clock(), policy, limited=limited)

    def _run_end(self, run: RunRecord) -> AuditNote:
        digests = {"run": run.run_digest, "draft": run.draft_digest}
        if run.report_digest is not None:
            digests["report"] = run.report_digest
        return AuditNote(
            kind="run-end",
            name=run.name,
            revision=run.revision,
            outcome=_RUN_END_OUTCOME[run.outcome],
            code=run.code,
            digests=digests,
            actor=run.actor,
            run=run.run_id,
        )

    def _end_abandoned_runs(self, name: str | None, policy: Policy) -> list[RunRecord]:
        """Record every started run (of ``name``, or all) whose process is gone as ``interrupted``,
        with its ``run-end`` event; returns them."""
        now = self._clock()
        ended = []
        for found in runs.started(self._conn, name):
            if found.outcome != "interrupted":
                continue
            run = _revalidate(interrupt_run(found.record, now))
            runs.finish(self._conn, run)
            audit.append(self._conn, self._run_end(run), now, policy, limited=False)
            ended.append(run)
        return ended

    def _prune_runs(self, now: str) -> RunsPruned:
        policy = self._policy()
        cutoff = timestamp(parse_timestamp(now) - timedelta(days=policy.retention_days))
        interrupted = self._end_abandoned_runs(None, policy)
        # skills past retention go whole with ``prune``: what they hold is not counted twice here
        expired = {
            name
            for name in entries.stale_candidates(self._conn, cutoff)
            if is_expired(self._current(name, None), now, policy.retention_days)
        }
        touched: dict[str, int] = {}
        old_runs = runs.finished_before(self._conn, cutoff, exclude=expired)
        removed = self._delete_runs([n for n, _ in old_runs], touched)
        while db.used_bytes(self._conn) * 4 > policy.store_limit_bytes * 3:
            batch = runs.oldest_finished(self._conn, PRUNE_RUNS_BATCH)
            deleted = self._delete_runs([n for n, _ in batch], touched) if batch else 0
            if not deleted:  # nothing left, or only runs of a batch still running
                break
            removed += deleted
        revisions = 0
        for name, revision in entries.stale_revisions(self._conn, cutoff):
            if name in expired:
                continue
            entries.delete_revision(self._conn, name, revision)
            touched[name] = touched.get(name, 0) + 1
            revisions += 1
        proposals = 0
        for number, name, base in runs.proposal_bases(self._conn):
            current = entries.load(self._conn, name)
            if name not in expired and (current is None or current.draft.draft_digest != base):
                runs.delete_proposals(self._conn, [number])
                touched[name] = touched.get(name, 0) + 1
                proposals += 1
        for name in sorted(touched):
            audit.append(self._conn, self._signed(AuditNote(kind="prune", name=name)), now, policy)
        return RunsPruned(removed, revisions, proposals, len(interrupted))

    def _delete_runs(self, numbers: list[int], touched: dict[str, int]) -> int:
        names = {
            int(seq): str(name)
            for n in numbers
            for seq, name in self._conn.execute(
                "SELECT seq, name FROM runs WHERE seq = ? OR runset = "
                "(SELECT runset FROM runs WHERE seq = ?)",
                (n, n),
            )
        }
        deleted = runs.delete_numbers(self._conn, numbers)
        for number in deleted:
            touched[names[number]] = touched.get(names[number], 0) + 1
        return len(deleted)


def _revalidate(document: D) -> D:
    """Never trust an object from memory: round-trip it through JSON as a reader would."""
    try:
        return type(document).parse(document.model_dump_json(by_alias=True))
    except ValidationError as exc:
        raise StoreError("SR_RECORD_INTERNAL", f"a {document.digest_tag} to store failed validation") from exc


def _check_actions(entry: StoreEntry, policy: Policy) -> None:
    if len(entry.draft.actions) > policy.max_actions:
        raise StoreError(
            "SR_RECORD_POLICY_DENIED",
            f"skill {entry.name!r} has {len(entry.draft.actions)} actions; "
            f"the policy allows {policy.max_actions}",
        )
