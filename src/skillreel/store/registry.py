"""The skill registry: the one object the rest of skillreel uses to read and change skills.

Every mutation is one ``BEGIN IMMEDIATE`` transaction holding the compare-and-set on the entry's
revision, the entry row, its revision-history row and exactly one audit event (``prune`` writes
one event per removed skill, all in one transaction; ``trim_audit`` removes old audit events and
records it in one event, see ``audit.trim``). If anything raises, nothing is written.
Every read of a document re-validates it; see ``entries``, ``runs`` and ``audit``.

The ``Store`` composes its parts, each in its own module: ``writer`` (the connection, clock and
actor every change goes through), ``run_book`` (reserving and finishing runs, holding runsets) and
``retention`` (pruning skills, runs, kept revisions and dead heal proposals).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Self

from ..errors import LifecycleError, StoreError
from ..model.audit import AuditEvent
from ..model.batch import Runset, RunsetClaim
from ..model.entry import HealProposal, StoreEntry
from ..model.lifecycle import ensure_deletable, timestamp
from ..model.policy import Policy
from ..model.report import ReplayReport
from ..model.runs import Actor, RunRecord
from ..model.trust import TrustScore
from . import audit, confirmations, db, entries, retention, runs
from .audit import AuditNote, AuditVerification
from .entries import EntrySummary, RevisionSummary, not_found
from .retention import RunsPruned
from .run_book import RunBook, RunFinish, RunsetHolding
from .runs import RunView
from .writer import Clock, StoreWriter, revalidate

RUNS_PAGE = 20


def utc_now() -> str:
    """The current time as a wire ``Timestamp``."""
    return timestamp(datetime.now(UTC))


@dataclass(frozen=True)
class StoreSize:
    """How many bytes the store's pages hold, against its bound (``policy.store_limit_bytes``)."""

    used_bytes: int
    limit_bytes: int

    def to_json(self) -> dict[str, int]:
        return {"bytes": self.used_bytes, "limitBytes": self.limit_bytes}


class Store:
    """An open store. Use :meth:`open`; close it (or use it as a context manager) when done."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        home: Path,
        clock: Clock,
        actor: Actor = "cli",
        client: str | None = None,
    ) -> None:
        self._conn = conn
        self.home = home
        self.client = client  # the MCP client's name its runs record (``RunRecord.client``)
        self._writer = StoreWriter(conn, clock, actor)
        self._run_book = RunBook(self._writer)

    @property
    def actor(self) -> Actor:
        """Who the audit events of changes made through this store name (``Store.open(actor=...)``)."""
        return self._writer.actor

    @classmethod
    def open(
        cls,
        home: Path | None = None,
        *,
        timeout: float | None = None,
        clock: Clock | None = None,
        actor: Actor | None = None,
        client: str | None = None,
    ) -> Store:
        """Open (creating and migrating if needed) ``home/store.db``; ``home`` defaults to
        ``$SKILLREEL_HOME`` or the platform user-data directory. ``actor`` is who the audit log
        names for changes made through this store (default: ``db.store_actor()``); ``client``, the
        MCP client's name the runs it starts record."""
        home = home if home is not None else db.store_home()
        conn = db.connect(home, db.store_timeout() if timeout is None else timeout)
        return cls(conn, home, clock or utc_now, actor or db.store_actor(), client)

    @property
    def path(self) -> Path:
        return self.home / db.DB_NAME

    def now(self) -> str:
        """The current time as a wire ``Timestamp``, from the clock the store was opened with: the one
        source of time for every use case (tests open a store with a fixed ``clock``)."""
        return self._writer.clock()

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
            return self._writer.policy()

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
            return StoreSize(db.used_bytes(self._conn), self._writer.policy().store_limit_bytes)

    def runs(self, name: str, *, limit: int = RUNS_PAGE, before: int | None = None) -> list[RunView]:
        """The newest ``limit`` runs of ``name`` (numbered below ``before``), newest first, each
        re-validated; a started run whose process is gone shows as ``interrupted``."""
        with db.snapshot(self._conn, "reading runs"):
            return runs.page(self._conn, name, limit, before)

    def trust(self, name: str | None = None) -> dict[str, TrustScore]:
        """The trust score of each skill's current draft from its finished runs (``name``: that
        skill only); a skill with no finished run of its current draft is not in the mapping."""
        with db.snapshot(self._conn, "reading the track record"):
            return runs.trust(self._conn, name)

    def matched_ranks(self, name: str, draft_digest: str) -> list[dict[str, int]]:
        """The locator ranks that found targets in the finished runs of that draft (newest first)."""
        with db.snapshot(self._conn, "reading runs"):
            return runs.matched_ranks(self._conn, name, draft_digest)

    def run(self, run_id: str) -> RunView | None:
        with db.translated("reading a run"):
            return runs.load(self._conn, run_id)

    def plays_since(self, actor: Actor, since: str) -> int:
        """How many runs ``actor`` started at or after ``since`` (a wire timestamp)."""
        with db.translated("counting runs"):
            return runs.started_since(self._conn, since, actor)

    def agent_play_confirmed(self, entry: StoreEntry) -> bool:
        """Whether a person confirmed that agents may play ``entry``'s approved revision."""
        if entry.approval is None:
            return False
        with db.translated("reading a confirmation"):
            return confirmations.confirmed(self._conn, entry.name, entry.approval.approval_digest)

    def confirm_agent_play(self, entry: StoreEntry) -> bool:
        """Remember that a person confirmed agents may play ``entry``'s approved revision (via this
        store's actor), with one ``agent-play-confirmed`` event, if the skill is still at that
        revision (``SR_RECORD_REVISION_CONFLICT``); False when it was already confirmed."""
        if entry.approval is None:
            raise StoreError("SR_RECORD_INTERNAL", "only an approved revision can be confirmed")
        digest = entry.approval.approval_digest
        with db.atomic(self._conn, "recording a confirmation"):
            policy = self._writer.policy()
            current = self._writer.current(entry.name, entry.revision)
            if current.entry_digest != entry.entry_digest:
                raise LifecycleError("SR_RECORD_REVISION_CONFLICT", f"skill {entry.name!r} changed meanwhile")
            added = confirmations.add(
                self._conn, entry.name, digest, entry.revision, self._writer.clock(), self.actor
            )
            if added:
                note = AuditNote(kind="agent-play-confirmed", digests={"approval": digest})
                self._writer.append(note, current, policy)
        return added

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
        entry = revalidate(entry)
        if entry.revision != 1:
            raise StoreError("SR_RECORD_INTERNAL", "a new skill starts at revision 1")
        with db.atomic(self._conn, "storing a skill"):
            policy = self._writer.policy()
            if self._conn.execute("SELECT 1 FROM entries WHERE name = ?", (entry.name,)).fetchone():
                raise LifecycleError("SR_RECORD_EXISTS", f"a skill named {entry.name!r} already exists")
            if entries.count(self._conn) >= policy.max_records:
                raise StoreError(
                    "SR_RECORD_STORE_LIMIT", f"the store holds its limit of {policy.max_records} skills"
                )
            _check_actions(entry, policy)
            entries.write(self._conn, entry, new=True)
            self._writer.append(note, entry, policy)
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
            policy = self._writer.policy()
            current = self._writer.current(name, expected_revision)
            new = revalidate(change(current))
            if new.name != current.name or new.revision != current.revision + 1:
                raise StoreError("SR_RECORD_INTERNAL", "a change must produce the next revision of the skill")
            if new.draft.draft_digest != current.draft.draft_digest:
                _check_actions(new, policy)
            entries.write(self._conn, new, new=False)
            if drop_heal_proposals:
                runs.delete_proposals_of(self._conn, current.name, current.draft.draft_digest)
            self._writer.append(note, new, policy)
        return new

    def remove(self, name: str, note: AuditNote, expected_revision: int | None = None) -> StoreEntry:
        """Delete a skill that is not enabled, with its history; returns what was removed."""
        with db.atomic(self._conn, "deleting a skill"):
            policy = self._writer.policy()
            current = self._writer.current(name, expected_revision)
            ensure_deletable(current)
            entries.delete(self._conn, name)
            runs.delete_skill(self._conn, name)
            confirmations.delete_skill(self._conn, name)
            self._writer.append(note, current, policy)
        return current

    def prune(self, now: str | None = None, *, dry_run: bool = False) -> list[StoreEntry]:
        """Remove every skill past the policy's retention, with its runs (``retention.prune_skills``)."""
        return retention.prune_skills(self._writer, now, dry_run=dry_run)

    def trim_audit(self, *, dry_run: bool = False) -> int:
        """Remove the oldest audit events when the log holds more than 90% of the policy's
        ``maxAuditEvents``, down to 80% (one content-free ``prune`` event recording the anchor),
        in one transaction; returns how many were (or, with ``dry_run``, would be) removed.
        ``SR_RECORD_STORE_CORRUPT`` if the chain does not verify: a trim never hides damage."""
        with db.atomic(self._conn, "trimming the audit log"):
            return audit.trim(
                self._conn, self._writer.policy(), self._writer.clock(), dry_run=dry_run, actor=self.actor
            )

    def audit(self, note: AuditNote) -> AuditEvent:
        """Append a standalone event (a failed replay, an export) in its own transaction."""
        return self.audit_many([note])[0]

    def audit_many(self, notes: Iterable[AuditNote]) -> list[AuditEvent]:
        """Append several standalone events, in order, in one transaction (all or none)."""
        notes = [self._writer.signed(n) for n in notes]
        with db.atomic(self._conn, "writing the audit log"):
            return audit.append_many(self._conn, notes, self._writer.clock(), self._writer.policy())

    def audit_refusal(self, note: AuditNote) -> AuditEvent | None:
        """Log a refused call, coalesced when they come fast (``audit.refusal``): the event written,
        or None when the refusal was only counted (reported by the next written one)."""
        with db.atomic(self._conn, "writing the audit log"):
            return audit.refusal(
                self._conn, self._writer.signed(note), self._writer.clock(), self._writer.policy()
            )

    # --- runs ----------------------------------------------------------------------------------

    def reserve_run(self, run: RunRecord) -> RunRecord:
        """Record a started run and its ``run-start`` event before anything acts (``RunBook.reserve``)."""
        return self._run_book.reserve(run)

    def finish_run(
        self, run: RunRecord, *, report: ReplayReport | None = None, proposal: HealProposal | None = None
    ) -> RunFinish:
        """Finish a started run once, keep its heal proposal, validate its revision (``RunBook.finish``)."""
        return self._run_book.finish(run, report=report, proposal=proposal)

    def add_runset(self, runset: Runset) -> Runset:
        """Keep a new batch's runset before its first run is reserved (``RunBook.add_runset``)."""
        return self._run_book.add_runset(runset)

    def claim_runset(self, runset: Runset, claim: RunsetClaim, *, new: bool) -> RunsetHolding:
        """Hold a runset for one batch while it runs (``RunBook.claim_runset``)."""
        return self._run_book.claim_runset(runset, claim, new=new)

    def release_runset(self, runset_id: str, claim: RunsetClaim) -> None:
        """Let a runset go at the end of its batch (``RunBook.release_runset``)."""
        self._run_book.release_runset(runset_id, claim)

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
        """Trim runs, kept revisions and dead heal proposals past retention or over the size bound,
        ending abandoned runs first (``retention.prune_runs``)."""
        return retention.prune_runs(self._writer, self._run_book, now, dry_run=dry_run)

    def set_policy(self, policy: Policy, note: AuditNote | None = None) -> Policy:
        """Replace the policy in force (one ``policy`` event with the new policy's digest)."""
        policy = revalidate(policy)
        note = note or AuditNote(kind="policy")
        with db.atomic(self._conn, "setting the policy"):
            self._conn.execute(
                "INSERT OR REPLACE INTO policy (id, policy_digest, document) VALUES (1, ?, ?)",
                (policy.policy_digest, policy.model_dump_json(by_alias=True).encode()),
            )
            filled = replace(
                self._writer.signed(note), digests={**note.digests, "policy": policy.policy_digest}
            )
            audit.append(self._conn, filled, self._writer.clock(), policy)
        return policy


def _check_actions(entry: StoreEntry, policy: Policy) -> None:
    if len(entry.draft.actions) > policy.max_actions:
        raise StoreError(
            "SR_RECORD_POLICY_DENIED",
            f"skill {entry.name!r} has {len(entry.draft.actions)} actions; "
            f"the policy allows {policy.max_actions}",
        )
