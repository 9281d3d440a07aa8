"""The skill registry: the one object the rest of skillreel uses to read and change skills.

Every mutation is one ``BEGIN IMMEDIATE`` transaction holding the compare-and-set on the entry's
revision, the entry row, its revision-history row and exactly one audit event (``prune`` writes
one event per removed skill, all in one transaction; ``trim_audit`` removes old audit events and
records it in one event, see ``audit.trim``). If anything raises, nothing is written.
Every read of a document re-validates it; see ``entries`` and ``audit``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Self, TypeVar

from pydantic import ValidationError

from ..errors import LifecycleError, StoreError
from ..model.audit import AuditEvent
from ..model.base import DigestedDocument
from ..model.entry import StoreEntry
from ..model.lifecycle import check_revision, ensure_deletable, is_expired, parse_timestamp, timestamp
from ..model.policy import Policy
from . import audit, db, entries
from .audit import AuditNote, AuditVerification
from .entries import EntrySummary, RevisionSummary, not_found

Clock = Callable[[], str]
D = TypeVar("D", bound=DigestedDocument)


def utc_now() -> str:
    """The current time as a wire ``Timestamp``."""
    return timestamp(datetime.now(UTC))


class Store:
    """An open store. Use :meth:`open`; close it (or use it as a context manager) when done."""

    def __init__(self, conn: sqlite3.Connection, home: Path, clock: Clock) -> None:
        self._conn = conn
        self.home = home
        self._clock = clock

    @classmethod
    def open(
        cls, home: Path | None = None, *, timeout: float | None = None, clock: Clock | None = None
    ) -> Store:
        """Open (creating and migrating if needed) ``home/store.db``; ``home`` defaults to
        ``$SKILLREEL_HOME`` or the platform user-data directory."""
        home = home if home is not None else db.store_home()
        conn = db.connect(home, db.store_timeout() if timeout is None else timeout)
        return cls(conn, home, clock or utc_now)

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
        """Recompute the whole audit chain (``{"ok", "events", "brokenAt"}``)."""
        with db.snapshot(self._conn, "verifying the audit log"):
            return audit.verify_chain(self._conn)

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
    ) -> StoreEntry:
        """Apply ``change`` (a pure lifecycle function) to the current entry, compare-and-set.

        In one transaction: read and re-validate the current entry, check ``expected_revision``
        (``SR_RECORD_REVISION_CONFLICT``), compute the next entry (which must be the next revision
        of the same skill), keep it in the history and append the audit event.
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
            self._append(note, new, policy)
        return new

    def remove(self, name: str, note: AuditNote, expected_revision: int | None = None) -> StoreEntry:
        """Delete a skill that is not enabled, with its history; returns what was removed."""
        with db.atomic(self._conn, "deleting a skill"):
            policy = self._policy()
            current = self._current(name, expected_revision)
            ensure_deletable(current)
            entries.delete(self._conn, name)
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
                    self._append(AuditNote(kind="prune"), entry, policy)
        return expired

    def trim_audit(self, *, dry_run: bool = False) -> int:
        """Remove the oldest audit events when the log holds more than 90% of the policy's
        ``maxAuditEvents``, down to 80% (one content-free ``prune`` event recording the anchor),
        in one transaction; returns how many were (or, with ``dry_run``, would be) removed.
        ``SR_RECORD_STORE_CORRUPT`` if the chain does not verify: a trim never hides damage."""
        with db.atomic(self._conn, "trimming the audit log"):
            return audit.trim(self._conn, self._policy(), self._clock(), dry_run=dry_run)

    def audit(self, note: AuditNote) -> AuditEvent:
        """Append a standalone event (a failed replay, an export) in its own transaction."""
        return self.audit_many([note])[0]

    def audit_many(self, notes: Iterable[AuditNote]) -> list[AuditEvent]:
        """Append several standalone events, in order, in one transaction (all or none)."""
        with db.atomic(self._conn, "writing the audit log"):
            return audit.append_many(self._conn, notes, self._clock(), self._policy())

    def set_policy(self, policy: Policy, note: AuditNote | None = None) -> Policy:
        """Replace the policy in force (one ``policy`` event with the new policy's digest)."""
        policy = _revalidate(policy)
        note = note or AuditNote(kind="policy")
        with db.atomic(self._conn, "setting the policy"):
            self._conn.execute(
                "INSERT OR REPLACE INTO policy (id, policy_digest, document) VALUES (1, ?, ?)",
                (policy.policy_digest, policy.model_dump_json(by_alias=True).encode()),
            )
            filled = replace(note, digests={**note.digests, "policy": policy.policy_digest})
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

    def _append(self, note: AuditNote, entry: StoreEntry, policy: Policy) -> AuditEvent:
        filled = replace(
            note,
            name=note.name or entry.name,
            revision=note.revision or entry.revision,
            digests={**note.digests, "entry": entry.entry_digest},
        )
        return audit.append(self._conn, filled, self._clock(), policy)


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
