"""What every change of the store goes through: the connection, the clock that dates its audit
events and the actor that signs them, and what a transaction reads before it writes (the policy in
force, the current entry at an expected revision).

The ``Store`` holds one :class:`StoreWriter` and hands it to its collaborators (``run_book``,
``retention``); each of their changes runs inside one ``db.atomic`` transaction of theirs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from pydantic import ValidationError

from ..errors import StoreError
from ..model.audit import AuditEvent
from ..model.base import DigestedDocument
from ..model.entry import StoreEntry
from ..model.lifecycle import check_revision
from ..model.policy import Policy
from ..model.runs import Actor
from . import audit, entries
from .audit import AuditNote
from .entries import not_found

Clock = Callable[[], str]
D = TypeVar("D", bound=DigestedDocument)


class StoreWriter:
    """The open connection with the store's clock and actor. Its methods are called inside a
    transaction (``db.atomic`` or ``db.snapshot``) their caller holds."""

    def __init__(self, conn: sqlite3.Connection, clock: Clock, actor: Actor) -> None:
        self.conn = conn
        self.clock = clock
        self.actor: Actor = actor

    def policy(self) -> Policy:
        """The policy in force (the default one when none was set), re-validated."""
        row = self.conn.execute("SELECT policy_digest, document FROM policy WHERE id = 1").fetchone()
        if row is None:
            return Policy.default()
        try:
            policy = Policy.parse(row[1])
        except (ValidationError, ValueError, RecursionError) as exc:
            raise StoreError("SR_RECORD_STORE_CORRUPT", "the stored policy failed validation") from exc
        if policy.policy_digest != row[0]:
            raise StoreError("SR_RECORD_STORE_CORRUPT", "the stored policy does not match its row")
        return policy

    def current(self, name: str, expected_revision: int | None) -> StoreEntry:
        """The current entry of ``name`` (``SR_RECORD_NOT_FOUND``), at ``expected_revision`` when
        given (``SR_RECORD_REVISION_CONFLICT``)."""
        current = entries.load(self.conn, name)
        if current is None:
            raise not_found(name)
        check_revision(current, expected_revision)
        return current

    def signed(self, note: AuditNote) -> AuditNote:
        """``note`` naming this store's actor unless it names its own."""
        return note if note.actor is not None else replace(note, actor=self.actor)

    def append(
        self, note: AuditNote, entry: StoreEntry, policy: Policy, *, limited: bool = True
    ) -> AuditEvent:
        """Append the audit event of a change to ``entry``: signed, with its name, revision and digest."""
        filled = replace(
            self.signed(note),
            name=note.name or entry.name,
            revision=note.revision or entry.revision,
            digests={**note.digests, "entry": entry.entry_digest},
        )
        return audit.append(self.conn, filled, self.clock(), policy, limited=limited)


def revalidate(document: D) -> D:
    """Never trust an object from memory: round-trip it through JSON as a reader would."""
    try:
        return type(document).parse(document.model_dump_json(by_alias=True))
    except ValidationError as exc:
        raise StoreError("SR_RECORD_INTERNAL", f"a {document.digest_tag} to store failed validation") from exc
