"""Entry rows: every revision's document in ``revisions``, the current one's summary in ``entries``.

Reads re-validate the whole document (``StoreEntry.parse``: strict keys, every nested digest, the
lifecycle invariants) and check it against its row's columns; any failure is
``SR_RECORD_STORE_CORRUPT`` and nothing is written. Only :func:`summaries` (``list``) trusts the
summary columns, which are written in the same transaction as the document, so it never parses
10,000 documents to print a table; everything that acts on an entry reads it through :func:`load`.

Validation is a pure function of the stored bytes, so a process keeps the last few documents it
validated (:class:`_Validated`, keyed by the exact bytes read, bounded): a replay reads its skill three
times (pre-flight, reservation, run end) and a batch once more per row; every read still fetches the
row and checks its columns, and bytes that differ in any way are validated afresh.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ..errors import LifecycleError, StoreError
from ..model.entry import StoreEntry
from .db import import_hint, store_actor

_CURRENT = """
    SELECT e.revision, e.status, e.description, e.created_at, e.updated_at, e.entry_digest, e.version,
           r.revision, r.status, r.updated_at, r.entry_digest, r.document
    FROM entries e LEFT JOIN revisions r ON r.name = e.name AND r.revision = e.revision
    WHERE e.name = ?
"""


@dataclass(frozen=True)
class EntrySummary:
    """One line of ``list``: read from the summary columns only."""

    name: str
    status: str
    revision: int
    description: str
    created_at: str
    updated_at: str
    entry_digest: str
    version: str | None = None  # of the approved draft; None for a draft

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "revision": self.revision,
            "version": self.version,
            "description": self.description,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "entryDigest": self.entry_digest,
        }


@dataclass(frozen=True)
class RevisionSummary:
    """One kept revision of an entry."""

    revision: int
    status: str
    updated_at: str
    entry_digest: str

    def to_json(self) -> dict[str, Any]:
        return {
            "revision": self.revision,
            "status": self.status,
            "updatedAt": self.updated_at,
            "entryDigest": self.entry_digest,
        }


def not_found(name: str) -> LifecycleError:
    message = f"no skill named {name!r}"
    if store_actor() == "package-script":  # a package committed elsewhere, run on a teammate's store
        message += f" in this store (SKILLREEL_HOME or the default); {import_hint(name)}"
    return LifecycleError("SR_RECORD_NOT_FOUND", message)


def _corrupt(name: str, revision: object, why: str) -> StoreError:
    return StoreError(
        "SR_RECORD_STORE_CORRUPT", f"skill {name!r} revision {revision}: {why}; the store was left untouched"
    )


class _Validated:
    """The documents this process validated last, by their exact bytes (at most ``items`` of them and
    ``budget`` bytes together): a document read again byte for byte is the entry validated before
    (a ``StoreEntry`` is frozen). Only successes are kept; thread-safe (fleet workers use threads)."""

    def __init__(self, *, items: int = 16, budget: int = 16 * 1024 * 1024) -> None:
        self._items, self._budget = items, budget
        self._kept: OrderedDict[bytes, StoreEntry] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, document: bytes) -> StoreEntry | None:
        with self._lock:
            entry = self._kept.get(document)
            if entry is not None:
                self._kept.move_to_end(document)
            return entry

    def keep(self, document: bytes, entry: StoreEntry) -> None:
        if len(document) > self._budget // 4:
            return
        with self._lock:
            if document in self._kept:
                return
            self._kept[document] = entry
            self._size += len(document)
            while len(self._kept) > self._items or self._size > self._budget:
                dropped, _ = self._kept.popitem(last=False)
                self._size -= len(dropped)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self._size = 0


_VALIDATED = _Validated()


def parse_document(name: str, revision: int, document: object) -> StoreEntry:
    """Re-validate one stored document and check that it is the row's name and revision."""
    if not isinstance(document, bytes):
        raise _corrupt(name, revision, "the document is not stored as bytes")
    entry = _VALIDATED.get(document)
    if entry is None:
        try:
            entry = StoreEntry.parse(document)
        except (ValidationError, ValueError, RecursionError) as exc:
            raise _corrupt(name, revision, "the document failed validation") from exc
        _VALIDATED.keep(document, entry)
    if entry.name != name or entry.revision != revision:
        raise _corrupt(name, revision, "the document belongs to another row")
    return entry


def load(conn: sqlite3.Connection, name: str) -> StoreEntry | None:
    """The current revision of ``name``, fully re-validated, or None."""
    row = conn.execute(_CURRENT, (name,)).fetchone()
    if row is None:
        return None
    summary = tuple(row[:7])
    if row[7] is None:
        raise _corrupt(name, summary[0], "the current revision's document is missing")
    entry = parse_document(name, summary[0], row[11])
    expected = (
        entry.revision,
        entry.status,
        entry.draft.description,
        entry.created_at,
        entry.updated_at,
        entry.entry_digest,
        entry.version,
    )
    if summary != expected or tuple(row[7:11]) != (
        entry.revision,
        entry.status,
        entry.updated_at,
        entry.entry_digest,
    ):
        raise _corrupt(name, summary[0], "the summary columns do not match the document")
    return entry


def load_revision(conn: sqlite3.Connection, name: str, revision: int) -> StoreEntry | None:
    row = conn.execute(
        "SELECT status, updated_at, entry_digest, document FROM revisions WHERE name = ? AND revision = ?",
        (name, revision),
    ).fetchone()
    if row is None:
        return None
    entry = parse_document(name, revision, row[3])
    if tuple(row[:3]) != (entry.status, entry.updated_at, entry.entry_digest):
        raise _corrupt(name, revision, "the revision's columns do not match the document")
    return entry


def check_all(conn: sqlite3.Connection) -> None:
    """Every kept revision re-validated against its digest and its row's columns, and every entry's
    summary columns against its current revision; ``SR_RECORD_STORE_CORRUPT`` at the first that is
    not (``audit --verify``)."""
    keys = conn.execute("SELECT name, revision FROM revisions ORDER BY name, revision").fetchall()
    for name, revision in keys:
        load_revision(conn, str(name), int(revision))
    for name in names(conn):
        load(conn, name)


def current_revision(conn: sqlite3.Connection, name: str) -> int | None:
    row = conn.execute("SELECT revision FROM entries WHERE name = ?", (name,)).fetchone()
    return None if row is None else int(row[0])


def names(conn: sqlite3.Connection) -> list[str]:
    return [row[0] for row in conn.execute("SELECT name FROM entries ORDER BY name")]


def count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0])


def summaries(conn: sqlite3.Connection) -> list[EntrySummary]:
    rows = conn.execute(
        "SELECT name, status, revision, description, created_at, updated_at, entry_digest, version "
        "FROM entries ORDER BY name"
    ).fetchall()
    return [EntrySummary(*row) for row in rows]


def revisions(conn: sqlite3.Connection, name: str) -> list[RevisionSummary]:
    rows = conn.execute(
        "SELECT revision, status, updated_at, entry_digest FROM revisions WHERE name = ? ORDER BY revision",
        (name,),
    ).fetchall()
    return [RevisionSummary(*row) for row in rows]


def stale_candidates(conn: sqlite3.Connection, cutoff: str) -> list[str]:
    """Names whose summary says not enabled and last changed before ``cutoff`` (re-checked by caller)."""
    rows = conn.execute(
        "SELECT name FROM entries WHERE status != 'enabled' AND updated_at < ? ORDER BY name", (cutoff,)
    )
    return [row[0] for row in rows]


def write(conn: sqlite3.Connection, entry: StoreEntry, *, new: bool) -> None:
    """Keep ``entry`` as a new revision and make it the current one. Inside ``atomic`` only."""
    conn.execute(
        "INSERT INTO revisions (name, revision, status, updated_at, entry_digest, document) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (
            entry.name,
            entry.revision,
            entry.status,
            entry.updated_at,
            entry.entry_digest,
            entry.model_dump_json(by_alias=True).encode(),
        ),
    )
    summary = (
        entry.revision,
        entry.status,
        entry.draft.description,
        entry.created_at,
        entry.updated_at,
        entry.entry_digest,
        entry.version,
        entry.name,
    )
    if new:
        conn.execute(
            "INSERT INTO entries (revision, status, description, created_at, updated_at, "
            "entry_digest, version, name) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            summary,
        )
    else:
        cursor = conn.execute(
            "UPDATE entries SET revision = ?, status = ?, description = ?, created_at = ?, "
            "updated_at = ?, entry_digest = ?, version = ? WHERE name = ? AND revision = ?",
            (*summary, entry.revision - 1),
        )
        if cursor.rowcount != 1:
            raise _corrupt(entry.name, entry.revision, "the current row changed under the write lock")


def delete(conn: sqlite3.Connection, name: str) -> None:
    """Remove an entry and every kept revision of it. Inside ``atomic`` only."""
    conn.execute("DELETE FROM revisions WHERE name = ?", (name,))
    conn.execute("DELETE FROM entries WHERE name = ?", (name,))


def stale_revisions(conn: sqlite3.Connection, cutoff: str) -> list[tuple[str, int]]:
    """(name, revision) of kept revisions last changed before ``cutoff`` that are not the current one."""
    rows = conn.execute(
        "SELECT r.name, r.revision FROM revisions r JOIN entries e ON e.name = r.name "
        "WHERE r.revision != e.revision AND r.updated_at < ? ORDER BY r.name, r.revision",
        (cutoff,),
    ).fetchall()
    return [(str(name), int(revision)) for name, revision in rows]


def delete_revision(conn: sqlite3.Connection, name: str, revision: int) -> None:
    """Remove one kept revision that is not the current one. Inside ``atomic`` only."""
    conn.execute(
        "DELETE FROM revisions WHERE name = ? AND revision = ? "
        "AND revision != (SELECT revision FROM entries WHERE name = ?)",
        (name, revision, name),
    )
