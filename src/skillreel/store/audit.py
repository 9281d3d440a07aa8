"""The audit log: content-free events in a hash chain, appended inside the mutation's transaction.

Each event (``model.audit.AuditEvent``) carries ``seq`` and ``prevDigest``, the digest of the event
before it (the first one points at ``GENESIS_DIGEST``); its own digest covers both, so changing,
removing or reordering any event breaks every later link. :func:`verify_chain` recomputes the whole
chain from the stored bytes.

Limits. An operation that starts something (record, review, replay, enable, export, import...) is
refused with ``SR_RECORD_STORE_LIMIT`` once the log would hold more than ``maxAuditEvents`` minus
a headroom (:func:`headroom`), or the store's pages hold more than its size bound minus a headroom
(``policy.store_limit_bytes``; ``db.used_bytes``). The kill switch and the owner's tools are never
refused by either: ``revoke``, ``delete``, ``policy`` and ``prune`` events (:data:`UNLIMITED_KINDS`),
and neither are the events that finish a run already reserved (``limited=False``), so a replay
that acted is always recorded. Nothing is ever dropped silently: only an explicit, approved
:func:`trim` (``skillreel prune --approve``) removes the oldest events, and it leaves a verifiable
anchor (see below).

Refused calls are coalesced (:func:`refusal`): at most ``REFUSAL_BURST`` events per
``REFUSAL_WINDOW_S`` seconds; the refusals past that are counted and reported by the next refusal
event that is written (its ``suppressed`` count), so a script or an agent that repeats a bad call
cannot fill the log faster than a person can trim it, and no refusal goes uncounted.

Every entry revision, run and heal proposal the store keeps is attested by an event written in its
transaction (the event's ``entry``, ``run`` or ``healProposal`` digest), and the chain head (the
last event's ``seq`` and digest, ``audit_head``) is written with every append: events cut off the end
of the chain no longer agree with the head, so a tail cut is detected even when the removed events
attested nothing that is still kept.

Trimming. When the log holds more than ``TRIM_AT`` of the limit, :func:`trim` removes the oldest
events so that ``TRIM_TO`` of the limit remain (counting the event that records the trim). In one
transaction it first verifies the whole chain (a trim never destroys evidence of damage), deletes
the oldest events, writes the anchor (``audit_anchor``: the first kept ``seq`` and the digest of the
last removed event) and the pinned set (``audit_pinned``: the kept revisions whose attesting events
were removed), and appends one content-free ``prune`` event (no name) whose ``anchor`` digest covers
the anchor and the pinned set. :func:`verify_chain` then starts from the anchor instead of genesis
and requires:

* the kept chain starts exactly at the anchor's ``seq`` and links to its digest (an event removed
  after the anchor, or a renumbered start, breaks the chain);
* the newest anchor-recording ``prune`` event in the kept chain carries exactly the digest of the
  stored anchor and pinned set (an anchor moved forward to hide removed events, a pinned set widened
  to excuse a forged revision, an anchor row deleted or the trim event cut off are all detected);
* the last kept event is the chain head;
* every kept revision (run, proposal) is attested by a kept event, or else is pinned. The rule is
  not relaxed to "revisions older than the anchor need no event": that would let anyone excuse a
  forged revision with an old timestamp, or events cut off the end of the chain, by backdating.
  Pinning names each excused revision digest, fixed at trim time inside the chained trim event, so
  revisions written after the trim are checked exactly as before and nothing new can join the excused set.

What this cannot stop is the known limit of an unkeyed chain: someone who can write the database can
remove a prefix, write an anchor and append a matching trim event, just as they could already append
forged events or rewrite the whole store.

The chain detects damage and edits by anything short of an attacker who rewrites the whole store
as its owner; it is not an external, append-only (WORM) log.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from pydantic import ValidationError

from ..errors import StoreError
from ..model.audit import AuditEvent, AuditKind, Outcome
from ..model.canonical import GENESIS_DIGEST, canonical_json
from ..model.lifecycle import parse_timestamp
from ..model.policy import Policy
from ..model.runs import Actor
from . import db

_TAG: Final = AuditEvent.digest_tag.encode("ascii") + b"\x00"
_ANCHOR_TAG: Final = b"skillreel.audit-anchor/v1\x00"
TRIM_AT: Final = (9, 10)  # trim once the log holds more than 9/10 of maxAuditEvents ...
TRIM_TO: Final = (8, 10)  # ... down to 8/10 of it, the event recording the trim included
# The kill switch and the owner's tools: never refused by the audit or size limits.
UNLIMITED_KINDS: Final = frozenset({"revoke", "delete", "policy", "prune"})
REFUSAL_WINDOW_S: Final = 60
REFUSAL_BURST: Final = 10
# What an attesting event names, by kind: the kept rows whose digest it vouches for.
_ATTESTING: Final = {"run-start": "run", "run-end": "run", "heal-proposal": "healProposal"}


def headroom(policy: Policy) -> int:
    """Audit events kept free for the kill switch and for finishing reserved runs."""
    return max(5, policy.max_audit_events // 100)


def size_headroom(policy: Policy) -> int:
    """Store bytes kept free for the kill switch and for finishing reserved runs (1/32 of the bound)."""
    return policy.store_limit_bytes // 32


@dataclass(frozen=True)
class AuditNote:
    """What a caller says about an operation; content-free by construction (the event's fields).

    ``name`` and ``revision`` default to the entry the mutation wrote; the store adds the entry's
    digest to ``digests`` as ``entry``, and ``actor`` defaults to the store's (who opened it).
    """

    kind: AuditKind
    name: str | None = None
    revision: int | None = None
    outcome: Outcome = "ok"
    code: str | None = None
    digests: Mapping[str, str] = field(default_factory=dict)
    reviewer: str | None = None
    actor: Actor | None = None
    run: str | None = None
    suppressed: int | None = None


@dataclass(frozen=True)
class AuditVerification:
    """The result of recomputing the chain: ``broken_at`` is the first bad ``seq`` (or None);
    ``mismatch`` says which kept document does not match its digest or its row (content-free), with
    the chain itself intact."""

    ok: bool
    events: int
    broken_at: int | None
    mismatch: str | None = None

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"ok": self.ok, "events": self.events, "brokenAt": self.broken_at}
        if self.mismatch is not None:
            found["mismatch"] = self.mismatch
        return found


@dataclass(frozen=True)
class Anchor:
    """Where a trimmed chain starts: its first kept ``seq``, the digest of the last removed event,
    and the kept revisions whose attesting events were removed."""

    first_seq: int
    prev_digest: str
    pinned: frozenset[str]

    @property
    def digest(self) -> str:
        body = {"firstSeq": self.first_seq, "prevDigest": self.prev_digest, "pinned": sorted(self.pinned)}
        return "sha256:" + hashlib.sha256(_ANCHOR_TAG + _canonical(body)).hexdigest()


def read_anchor(conn: sqlite3.Connection) -> Anchor | None:
    row = conn.execute("SELECT first_seq, prev_digest FROM audit_anchor WHERE id = 1").fetchone()
    if row is None:
        return None
    pinned = frozenset(str(d) for (d,) in conn.execute("SELECT entry_digest FROM audit_pinned"))
    return Anchor(int(row[0]), str(row[1]), pinned)


def _first_seq(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT first_seq FROM audit_anchor WHERE id = 1").fetchone()
    return int(row[0]) if row else 1


def _kept(conn: sqlite3.Connection) -> tuple[int, int]:
    """The first ``seq`` of the kept chain and how many events it holds."""
    first = _first_seq(conn)
    last = conn.execute("SELECT MAX(seq) FROM audit").fetchone()[0]
    return first, max(int(last) - first + 1, 0) if last is not None else 0


def event_count(conn: sqlite3.Connection, name: str | None = None) -> int:
    """Events in the log (since the anchor, when it was trimmed), or only those about ``name``."""
    if name is None:
        return _kept(conn)[1]
    row = conn.execute("SELECT COUNT(*) FROM audit WHERE name = ?", (name,)).fetchone()
    return int(row[0])


def trim_count(count: int, policy: Policy) -> int:
    """How many of ``count`` events a trim removes under ``policy`` (0 below the threshold)."""
    limit = policy.max_audit_events
    if count * TRIM_AT[1] <= limit * TRIM_AT[0]:
        return 0
    keep = limit * TRIM_TO[0] // TRIM_TO[1] - 1  # old events kept; the trim event is the last one
    return max(count - keep, 0)


def trim(
    conn: sqlite3.Connection, policy: Policy, at: str, *, dry_run: bool = False, actor: Actor | None = None
) -> int:
    """Remove the oldest events when the log is nearly full (see the module doc); returns how many.

    Call inside an ``atomic`` transaction: the chain check, the deletion, the anchor and the ``prune``
    event that records it are one change. ``SR_RECORD_STORE_CORRUPT`` if the chain does not verify.
    """
    first, count = _kept(conn)
    removed = trim_count(count, policy)
    if removed == 0 or dry_run:
        return removed
    checked = verify_chain(conn)
    if not checked.ok:
        raise StoreError(
            "SR_RECORD_STORE_CORRUPT",
            f"the audit chain breaks at event {checked.broken_at}; nothing was trimmed",
        )
    new_first = first + removed
    (prev,) = conn.execute("SELECT event_digest FROM audit WHERE seq = ?", (new_first - 1,)).fetchone()
    conn.execute("DELETE FROM audit WHERE seq < ?", (new_first,))
    walk = _walk(conn, new_first, str(prev))
    if walk.broken_at is not None:  # cannot happen after the check above; never write a bad anchor
        raise StoreError("SR_RECORD_INTERNAL", "the trimmed audit chain does not verify")
    anchor = Anchor(new_first, str(prev), frozenset(_kept_digests(conn) - walk.attested))
    conn.execute(
        "INSERT OR REPLACE INTO audit_anchor (id, first_seq, prev_digest) VALUES (1, ?, ?)",
        (anchor.first_seq, anchor.prev_digest),
    )
    conn.execute("DELETE FROM audit_pinned")
    conn.executemany(
        "INSERT INTO audit_pinned (entry_digest) VALUES (?)", [(d,) for d in sorted(anchor.pinned)]
    )
    append(conn, AuditNote(kind="prune", digests={"anchor": anchor.digest}, actor=actor), at, policy)
    return removed


def parse_event(seq: int, event_digest: str, document: bytes) -> AuditEvent:
    """Re-validate one stored event (every field, its digest, and its row's columns)."""
    try:
        event = AuditEvent.parse(document)
    except (ValidationError, ValueError, RecursionError) as exc:
        raise StoreError("SR_RECORD_STORE_CORRUPT", f"audit event {seq} failed validation") from exc
    if event.seq != seq or event.event_digest != event_digest:
        raise StoreError("SR_RECORD_STORE_CORRUPT", f"audit event {seq} does not match its row")
    return event


def append(
    conn: sqlite3.Connection, note: AuditNote, at: str, policy: Policy, *, limited: bool = True
) -> AuditEvent:
    """Append one event chained to the last one. Call inside an ``atomic`` transaction."""
    return append_many(conn, [note], at, policy, limited=limited)[0]


def append_many(
    conn: sqlite3.Connection, notes: Iterable[AuditNote], at: str, policy: Policy, *, limited: bool = True
) -> list[AuditEvent]:
    """Append events in order, each chained to the one before, and move the chain head; the last
    stored event is re-validated first, so nothing is ever chained onto a damaged event. The limits
    of the module docstring apply unless ``limited`` is false (a reserved run's end) or the kind is
    unlimited. Call inside an ``atomic`` transaction."""
    notes = list(notes)
    row = conn.execute("SELECT seq, event_digest, document FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
    last = parse_event(*row) if row else None
    seq, prev = (last.seq, last.event_digest) if last else (0, GENESIS_DIGEST)
    first = _first_seq(conn)
    checked = [limited and n.kind not in UNLIMITED_KINDS for n in notes]
    if any(checked):
        check_size(conn, policy)
    events = []
    for note, check in zip(notes, checked, strict=True):
        seq += 1
        if check and seq - first + 1 > policy.max_audit_events - headroom(policy):
            raise StoreError(
                "SR_RECORD_STORE_LIMIT",
                f"the audit log holds its limit of {policy.max_audit_events} events (less "
                f"{headroom(policy)} kept for revoke, delete and policy); "
                "run `skillreel prune --approve` to trim it",
            )
        event = _build(note, seq, at, prev)
        document = event.model_dump_json(by_alias=True).encode()
        conn.execute(
            "INSERT INTO audit (seq, name, event_digest, document) VALUES (?, ?, ?, ?)",
            (event.seq, event.name, event.event_digest, document),
        )
        events.append(event)
        prev = event.event_digest
    if events:
        conn.execute(
            "INSERT OR REPLACE INTO audit_head (id, seq, event_digest) VALUES (1, ?, ?)",
            (events[-1].seq, events[-1].event_digest),
        )
    return events


def check_size(conn: sqlite3.Connection, policy: Policy) -> None:
    """``SR_RECORD_STORE_LIMIT`` when the store's pages hold more than its bound allows for
    something new (the bound less :func:`size_headroom`)."""
    used, limit = db.used_bytes(conn), policy.store_limit_bytes
    if used > limit - size_headroom(policy):
        raise StoreError(
            "SR_RECORD_STORE_LIMIT",
            f"the store holds {used:,} bytes of its {limit:,}-byte limit (less {size_headroom(policy):,} "
            "kept for revoke, delete and finishing runs); run `skillreel prune --approve`",
        )


def refusal(conn: sqlite3.Connection, note: AuditNote, at: str, policy: Policy) -> AuditEvent | None:
    """Log a refused call, coalesced (module docstring): the event, or None when it was only counted.
    Call inside an ``atomic`` transaction."""
    row = conn.execute("SELECT window_start, written, pending FROM audit_throttle WHERE id = 1").fetchone()
    window, written, pending = (str(row[0]), int(row[1]), int(row[2])) if row else (at, 0, 0)
    elapsed = (parse_timestamp(at) - parse_timestamp(window)).total_seconds()
    if elapsed >= REFUSAL_WINDOW_S or elapsed < 0:
        window, written = at, 0
    event = None
    if written < REFUSAL_BURST:
        try:
            event = append(conn, replace(note, suppressed=pending or None), at, policy)
        except StoreError as exc:
            if exc.code != "SR_RECORD_STORE_LIMIT":
                raise
    if event is None:
        pending += 1
    else:
        written, pending = written + 1, 0
    conn.execute(
        "INSERT OR REPLACE INTO audit_throttle (id, window_start, written, pending) VALUES (1, ?, ?, ?)",
        (window, written, pending),
    )
    return event


def unlogged_refusals(conn: sqlite3.Connection) -> int:
    """Refusals counted but not yet reported by a written event."""
    row = conn.execute("SELECT pending FROM audit_throttle WHERE id = 1").fetchone()
    return int(row[0]) if row else 0


def _build(note: AuditNote, seq: int, at: str, prev: str) -> AuditEvent:
    try:
        return AuditEvent.build(
            seq=seq,
            kind=note.kind,
            name=note.name,
            revision=note.revision,
            outcome=note.outcome,
            code=note.code,
            digests=dict(note.digests),
            reviewer=note.reviewer,
            actor=note.actor,
            run=note.run,
            suppressed=note.suppressed,
            at=at,
            prev_digest=prev,
        )
    except ValidationError as exc:
        raise StoreError("SR_RECORD_INTERNAL", f"an audit note of kind {note.kind!r} is invalid") from exc


def read_events(
    conn: sqlite3.Connection, name: str | None = None, limit: int | None = None
) -> list[AuditEvent]:
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


def _checked_body(
    seq: int, column_digest: str, document: bytes, expected_seq: int, prev: str
) -> dict[str, Any] | None:
    """The event's decoded body if its digest, ``seq`` and link are right, else None."""
    try:
        body = json.loads(document)
        claimed = body.pop("eventDigest")
        computed = "sha256:" + hashlib.sha256(_TAG + _canonical(body)).hexdigest()
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None
    ok = (
        seq == expected_seq
        and body.get("seq") == seq
        and body.get("prevDigest") == prev
        and claimed == column_digest == computed
    )
    return body if ok else None


@dataclass
class _Walk:
    broken_at: int | None
    next_seq: int
    attested: set[str]
    anchor_claim: str | None  # the ``anchor`` digest of the newest trim event, if any


def _walk(conn: sqlite3.Connection, first: int, prev: str) -> _Walk:
    """Check every stored event's digest, ``seq`` and link, starting at ``first`` after ``prev``."""
    walk = _Walk(None, first, set(), None)
    cursor = conn.execute("SELECT seq, event_digest, document FROM audit ORDER BY seq")
    while rows := cursor.fetchmany(4096):
        for seq, column_digest, document in rows:
            body = _checked_body(seq, column_digest, document, walk.next_seq, prev)
            if body is None:
                cursor.close()
                walk.broken_at = min(seq, walk.next_seq)
                return walk
            digests = body.get("digests")
            if isinstance(digests, dict):
                if isinstance(digests.get("entry"), str):
                    walk.attested.add(digests["entry"])
                named = _ATTESTING.get(str(body.get("kind")))
                if named is not None and isinstance(digests.get(named), str):
                    walk.attested.add(digests[named])
                if (
                    body.get("kind") == "prune"
                    and body.get("name") is None
                    and isinstance(digests.get("anchor"), str)
                ):
                    walk.anchor_claim = digests["anchor"]
            prev, walk.next_seq = column_digest, walk.next_seq + 1
    return walk


def verify_chain(conn: sqlite3.Connection) -> AuditVerification:
    """Recompute every event's digest from its stored bytes and check every link and ``seq`` (from
    the anchor when the log was trimmed, else from genesis); check that the newest trim event
    records exactly the stored anchor; then check that every kept entry revision is attested by a
    kept event (its ``entry`` digest) or pinned by the anchor.

    A digest computed over the stored bytes that equals the digest written at append time (when the
    event was built and validated) proves the content is the one written; no event is trusted
    because it parses. The attestation check catches what a chain alone cannot: events cut off its
    end (``brokenAt`` is then the first missing ``seq``). A wrong anchor reports its first ``seq``.
    """
    total = int(conn.execute("SELECT COUNT(*) FROM audit").fetchone()[0])
    anchor = read_anchor(conn)
    first, prev = (anchor.first_seq, anchor.prev_digest) if anchor else (1, GENESIS_DIGEST)
    walk = _walk(conn, first, prev)
    if walk.broken_at is not None:
        return AuditVerification(ok=False, events=total, broken_at=walk.broken_at)
    if walk.anchor_claim != (anchor.digest if anchor else None):
        return AuditVerification(ok=False, events=total, broken_at=first)
    cut = _head_break(conn, first, walk.next_seq)
    if cut is not None:
        return AuditVerification(ok=False, events=total, broken_at=cut)
    pinned = anchor.pinned if anchor else frozenset()
    if _kept_digests(conn) - walk.attested - pinned:
        return AuditVerification(ok=False, events=total, broken_at=walk.next_seq)
    return AuditVerification(ok=True, events=total, broken_at=None)


def _kept_digests(conn: sqlite3.Connection) -> set[str]:
    """The digests of every kept row an event must attest: revisions, runs, heal proposals."""
    found = {str(d) for (d,) in conn.execute("SELECT entry_digest FROM revisions")}
    found |= {str(d) for (d,) in conn.execute("SELECT run_digest FROM runs")}
    found |= {str(d) for (d,) in conn.execute("SELECT proposal_digest FROM heal_proposals")}
    return found


def _head_break(conn: sqlite3.Connection, first: int, next_seq: int) -> int | None:
    """Where the stored chain and its head disagree (the first missing ``seq``), or None.
    ``next_seq`` is one past the last stored event (``first`` when there is none)."""
    head = conn.execute("SELECT seq, event_digest FROM audit_head WHERE id = 1").fetchone()
    last = next_seq - 1
    if head is None:
        return None if last < first else next_seq  # events without a head were added behind its back
    head_seq, head_digest = int(head[0]), str(head[1])
    if head_seq > last:
        return max(last + 1, first)  # events were cut off the end
    if head_seq < last:
        return head_seq + 1  # events were appended without moving the head
    (stored,) = conn.execute("SELECT event_digest FROM audit WHERE seq = ?", (last,)).fetchone()
    return None if stored == head_digest else last
