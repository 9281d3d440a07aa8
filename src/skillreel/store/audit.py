"""The audit log: content-free events in a hash chain, appended inside the mutation's transaction.

Each event (``model.audit.AuditEvent``) carries ``seq`` and ``prevDigest``, the digest of the event
before it (the first one points at ``GENESIS_DIGEST``); its own digest covers both, so changing,
removing or reordering any event breaks every later link. :func:`verify_chain` recomputes the whole
chain from the stored bytes.

Limit: when the log holds ``policy.maxAuditEvents`` events, every audited operation is refused with
``SR_RECORD_STORE_LIMIT`` (nothing is ever dropped from a chain), except a policy change, so the
owner can still raise the limit.

Every entry revision the store keeps is attested by the event written in its transaction (the
event's ``entry`` digest), so cutting events off the end of the chain is detected too.

The chain detects damage and edits by anything short of an attacker who rewrites the whole store
as its owner; it is not an external, append-only (WORM) log.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from pydantic import ValidationError

from ..errors import StoreError
from ..model.audit import AuditEvent, AuditKind
from ..model.canonical import GENESIS_DIGEST, canonical_json
from ..model.policy import Policy

_TAG: Final = AuditEvent.digest_tag.encode("ascii") + b"\x00"


@dataclass(frozen=True)
class AuditNote:
    """What a caller says about an operation; content-free by construction (the event's fields).

    ``name`` and ``revision`` default to the entry the mutation wrote; the store adds the entry's
    digest to ``digests`` as ``entry``.
    """

    kind: AuditKind
    name: str | None = None
    revision: int | None = None
    outcome: Literal["ok", "failed"] = "ok"
    code: str | None = None
    digests: Mapping[str, str] = field(default_factory=dict)
    reviewer: str | None = None


@dataclass(frozen=True)
class AuditVerification:
    """The result of recomputing the chain: ``broken_at`` is the first bad ``seq`` (or None)."""

    ok: bool
    events: int
    broken_at: int | None

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "events": self.events, "brokenAt": self.broken_at}


def event_count(conn: sqlite3.Connection, name: str | None = None) -> int:
    """Events in the log, or only those about ``name``."""
    if name is None:
        row = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM audit").fetchone()
    else:
        row = conn.execute("SELECT COUNT(*) FROM audit WHERE name = ?", (name,)).fetchone()
    return int(row[0])


def parse_event(seq: int, event_digest: str, document: bytes) -> AuditEvent:
    """Re-validate one stored event (every field, its digest, and its row's columns)."""
    try:
        event = AuditEvent.parse(document)
    except (ValidationError, ValueError, RecursionError) as exc:
        raise StoreError("SR_RECORD_STORE_CORRUPT", f"audit event {seq} failed validation") from exc
    if event.seq != seq or event.event_digest != event_digest:
        raise StoreError("SR_RECORD_STORE_CORRUPT", f"audit event {seq} does not match its row")
    return event


def append(conn: sqlite3.Connection, note: AuditNote, at: str, policy: Policy) -> AuditEvent:
    """Append one event chained to the last one. Call inside an ``atomic`` transaction."""
    return append_many(conn, [note], at, policy)[0]


def append_many(conn: sqlite3.Connection, notes: Iterable[AuditNote], at: str,
                policy: Policy) -> list[AuditEvent]:
    """Append events in order, each chained to the one before; the last stored event is re-validated
    first, so nothing is ever chained onto a damaged event. Call inside an ``atomic`` transaction."""
    row = conn.execute("SELECT seq, event_digest, document FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
    last = parse_event(*row) if row else None
    seq, prev = (last.seq, last.event_digest) if last else (0, GENESIS_DIGEST)
    events = []
    for note in notes:
        seq += 1
        if seq > policy.max_audit_events and note.kind != "policy":
            raise StoreError("SR_RECORD_STORE_LIMIT",
                             f"the audit log holds its limit of {policy.max_audit_events} events")
        event = _build(note, seq, at, prev)
        document = event.model_dump_json(by_alias=True).encode()
        conn.execute("INSERT INTO audit (seq, name, event_digest, document) VALUES (?, ?, ?, ?)",
                     (event.seq, event.name, event.event_digest, document))
        events.append(event)
        prev = event.event_digest
    return events


def _build(note: AuditNote, seq: int, at: str, prev: str) -> AuditEvent:
    try:
        return AuditEvent.build(seq=seq, kind=note.kind, name=note.name, revision=note.revision,
                                outcome=note.outcome, code=note.code, digests=dict(note.digests),
                                reviewer=note.reviewer, at=at, prev_digest=prev)
    except ValidationError as exc:
        raise StoreError("SR_RECORD_INTERNAL", f"an audit note of kind {note.kind!r} is invalid") from exc


def read_events(conn: sqlite3.Connection, name: str | None = None,
                limit: int | None = None) -> list[AuditEvent]:
    """Events in order (the last ``limit`` of them), each fully re-validated."""
    args: list[object] = [name] if name is not None else []
    where = "WHERE name = ?" if name is not None else ""
    query = f"SELECT seq, event_digest, document FROM audit {where} ORDER BY seq DESC"  # noqa: S608
    if limit is not None:
        query += " LIMIT ?"
        args.append(limit)
    rows = conn.execute(query, args).fetchall()
    return [parse_event(*row) for row in reversed(rows)]


def _canonical(value: Any) -> bytes:
    """RFC 8785 bytes. For ASCII output, sorted compact ``json.dumps`` is byte-identical and ~5x
    faster; otherwise (non-ASCII text, where key order and escapes could differ) use rfc8785."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.encode("ascii") if text.isascii() else canonical_json(value)


def _checked_body(seq: int, column_digest: str, document: bytes, expected_seq: int,
                  prev: str) -> dict[str, Any] | None:
    """The event's decoded body if its digest, ``seq`` and link are right, else None."""
    try:
        body = json.loads(document)
        claimed = body.pop("eventDigest")
        computed = "sha256:" + hashlib.sha256(_TAG + _canonical(body)).hexdigest()
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None
    ok = (seq == expected_seq and body.get("seq") == seq and body.get("prevDigest") == prev
          and claimed == column_digest == computed)
    return body if ok else None


def verify_chain(conn: sqlite3.Connection) -> AuditVerification:
    """Recompute every event's digest from its stored bytes and check every link and ``seq``; then
    check that every kept entry revision is attested by an event (its ``entry`` digest).

    A digest computed over the stored bytes that equals the digest written at append time (when the
    event was built and validated) proves the content is the one written; no event is trusted
    because it parses. The attestation check catches what a chain alone cannot: events cut off its
    end (``brokenAt`` is then the first missing ``seq``).
    """
    total = int(conn.execute("SELECT COUNT(*) FROM audit").fetchone()[0])
    prev, expected = GENESIS_DIGEST, 1
    attested: set[str] = set()
    cursor = conn.execute("SELECT seq, event_digest, document FROM audit ORDER BY seq")
    while rows := cursor.fetchmany(4096):
        for seq, column_digest, document in rows:
            body = _checked_body(seq, column_digest, document, expected, prev)
            if body is None:
                cursor.close()
                return AuditVerification(ok=False, events=total, broken_at=min(seq, expected))
            digests = body.get("digests")
            if isinstance(digests, dict) and isinstance(digests.get("entry"), str):
                attested.add(digests["entry"])
            prev, expected = column_digest, expected + 1
    for (digest,) in conn.execute("SELECT entry_digest FROM revisions"):
        if digest not in attested:
            return AuditVerification(ok=False, events=total, broken_at=expected)
    return AuditVerification(ok=True, events=total, broken_at=None)
