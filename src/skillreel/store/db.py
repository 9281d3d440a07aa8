"""The SQLite file: where it lives, owner-only permissions, named migrations and transactions.

This module is the one place where ``sqlite3`` errors become :class:`~skillreel.errors.StoreError`
codes (:func:`translated`): a lock held beyond the timeout is ``SR_RECORD_STORE_BUSY``, a damaged
file ``SR_RECORD_STORE_CORRUPT``, anything else ``SR_RECORD_STORE_IO``.

Location: ``$SKILLREEL_HOME/store.db``; ``SKILLREEL_HOME`` defaults to the platform user-data
directory. A home skillreel creates is made 0700; an existing one must already be a directory of
this user that no other user can read, write or enter (``SR_RECORD_STORE_HOME_UNSAFE`` otherwise:
skillreel never changes the modes of a directory it did not create). The database, ``-wal`` and
``-shm`` files inside it are skillreel's own and kept 0600. ``SKILLREEL_STORE_TIMEOUT`` (seconds,
default 10) bounds how long a writer waits for another one. ``SKILLREEL_STORE_MUST_EXIST`` (set by
a package's ``scripts/replay``) refuses to create a store: ``SR_RECORD_STORE_MISSING``, naming the
skill ``SKILLREEL_PACKAGE`` names (the script sets it) and how to import and enable it.

Durability: WAL with ``synchronous=NORMAL``. A killed process never leaves a half-written
transaction (SQLite rolls it back at the next open); a power cut may lose the last commits but
never corrupts the file.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import platformdirs

from ..errors import StoreError
from ..model.base import is_skill_name
from ..model.runs import Actor

ENV_HOME: Final = "SKILLREEL_HOME"
ENV_TIMEOUT: Final = "SKILLREEL_STORE_TIMEOUT"
# Set by a package's scripts/replay: open the store that enabled the skill, never create one.
ENV_MUST_EXIST: Final = "SKILLREEL_STORE_MUST_EXIST"
ENV_ACTOR: Final = "SKILLREEL_ACTOR"
ENV_PACKAGE: Final = "SKILLREEL_PACKAGE"  # the skill a package's scripts/replay replays
DB_NAME: Final = "store.db"
DEFAULT_TIMEOUT: Final = 10.0
DIR_MODE: Final = 0o700
FILE_MODE: Final = 0o600

# Named, ordered migrations. Each runs in its own transaction together with its record; a name,
# once released, never changes meaning. Documents are stored as JSON and re-validated on every read;
# the other columns are summaries kept in the same transaction (`list` reads only those).
MIGRATIONS: Final[tuple[tuple[str, str], ...]] = (
    (
        "0001-entries",
        """
        CREATE TABLE entries (
            name TEXT PRIMARY KEY,
            revision INTEGER NOT NULL CHECK (revision >= 1),
            status TEXT NOT NULL,
            description TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            entry_digest TEXT NOT NULL
        ) STRICT;
        CREATE TABLE revisions (
            name TEXT NOT NULL,
            revision INTEGER NOT NULL CHECK (revision >= 1),
            status TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            entry_digest TEXT NOT NULL,
            document BLOB NOT NULL,
            PRIMARY KEY (name, revision)
        ) STRICT;
    """,
    ),
    (
        "0002-audit",
        """
        CREATE TABLE audit (
            seq INTEGER PRIMARY KEY CHECK (seq >= 1),
            name TEXT,
            event_digest TEXT NOT NULL,
            document BLOB NOT NULL
        ) STRICT;
        CREATE INDEX audit_by_name ON audit (name, seq);
    """,
    ),
    (
        "0003-policy",
        """
        CREATE TABLE policy (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            policy_digest TEXT NOT NULL,
            document BLOB NOT NULL
        ) STRICT;
    """,
    ),
    # Where a trimmed audit chain starts (see ``audit.trim``): its first kept ``seq`` and the digest
    # of the last trimmed event, plus the kept revisions whose attesting events were trimmed.
    (
        "0004-audit-anchor",
        """
        CREATE TABLE audit_anchor (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            first_seq INTEGER NOT NULL CHECK (first_seq >= 2),
            prev_digest TEXT NOT NULL
        ) STRICT;
        CREATE TABLE audit_pinned (
            entry_digest TEXT PRIMARY KEY
        ) STRICT;
    """,
    ),
    # Replay runs (``model.runs``): one row per run, reserved before the browser acts and finished
    # once. ``seq`` orders them (never reused, so a page of runs stays stable while others start).
    (
        "0005-runs",
        """
        CREATE TABLE runs (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            revision INTEGER NOT NULL CHECK (revision >= 1),
            outcome TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            run_digest TEXT NOT NULL,
            document BLOB NOT NULL
        ) STRICT;
        CREATE INDEX runs_by_name ON runs (name, seq);
        CREATE INDEX runs_started ON runs (outcome) WHERE outcome = 'started';
    """,
    ),
    # Heal proposals left by runs, bound to the draft they heal; identical ones coalesce.
    (
        "0006-heal-proposals",
        """
        CREATE TABLE heal_proposals (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL,
            base_revision INTEGER NOT NULL CHECK (base_revision >= 1),
            base_draft_digest TEXT NOT NULL,
            proposal_digest TEXT NOT NULL,
            run_id TEXT NOT NULL,
            proposed_at TEXT NOT NULL,
            document BLOB NOT NULL,
            UNIQUE (name, base_draft_digest, proposal_digest)
        ) STRICT;
    """,
    ),
    # The chain head: the last event's seq and digest, written with every append, so events cut off
    # the end of the log no longer agree with it (``audit.verify_chain``). Filled from an existing log.
    (
        "0007-audit-head",
        """
        CREATE TABLE audit_head (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            seq INTEGER NOT NULL CHECK (seq >= 1),
            event_digest TEXT NOT NULL
        ) STRICT;
        INSERT INTO audit_head (id, seq, event_digest)
            SELECT 1, seq, event_digest FROM audit ORDER BY seq DESC LIMIT 1;
    """,
    ),
    # Coalescing of refused calls (``audit.refusal``): the current window and what it left unlogged.
    (
        "0008-audit-throttle",
        """
        CREATE TABLE audit_throttle (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            window_start TEXT NOT NULL,
            written INTEGER NOT NULL CHECK (written >= 0),
            pending INTEGER NOT NULL CHECK (pending >= 0)
        ) STRICT;
    """,
    ),
    # The semantic version of the current approved draft (``StoreEntry.version``), a summary column
    # for ``list``. A skill approved before versions existed is 1.0.0 (``model.versions.LEGACY_VERSION``).
    (
        "0009-entry-version",
        """
        ALTER TABLE entries ADD COLUMN version TEXT;
        UPDATE entries SET version = '1.0.0' WHERE status != 'draft';
    """,
    ),
    # Batches (``replay --batch``): a run may be a row of a runset (both in its document too), and a
    # runset row says which skill and rows it started with, so ``--resume RUNSET`` skips the rows
    # that already succeeded. Additive: earlier runs have neither.
    (
        "0010-runsets",
        """
        ALTER TABLE runs ADD COLUMN runset TEXT;
        ALTER TABLE runs ADD COLUMN batch_row INTEGER;
        CREATE INDEX runs_by_runset ON runs (runset, batch_row) WHERE runset IS NOT NULL;
        CREATE TABLE runsets (
            runset TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            rows INTEGER NOT NULL CHECK (rows >= 1),
            rows_digest TEXT NOT NULL,
            created_at TEXT NOT NULL
        ) STRICT;
    """,
    ),
    # Which batch holds a runset while it runs (``model.batch.RunsetClaim``, JSON): a ``--resume``
    # of a runset a live process holds is refused, so no row is run twice at once. NULL: none.
    (
        "0011-runset-owner",
        """
        ALTER TABLE runsets ADD COLUMN owner TEXT;
    """,
    ),
    # A person's confirmation that agents may play one approved revision (``store.confirmations``):
    # its approval's digest, when, through what (``mcp``: accepted in the client; ``cli``: ``enable
    # --confirm-agent-play``). A new approval has a new digest and is asked about again.
    (
        "0012-agent-play-confirmations",
        """
        CREATE TABLE agent_play_confirmations (
            name TEXT NOT NULL,
            approval_digest TEXT NOT NULL,
            revision INTEGER NOT NULL CHECK (revision >= 1),
            confirmed_at TEXT NOT NULL,
            via TEXT NOT NULL,
            PRIMARY KEY (name, approval_digest)
        ) STRICT;
    """,
    ),
)

_BUSY = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}
_CORRUPT = {
    sqlite3.SQLITE_CORRUPT,
    sqlite3.SQLITE_NOTADB,
    sqlite3.SQLITE_CONSTRAINT,
    sqlite3.SQLITE_MISMATCH,
    sqlite3.SQLITE_SCHEMA,
}


def store_home() -> Path:
    """``$SKILLREEL_HOME``, or the platform user-data directory for skillreel."""
    value = os.environ.get(ENV_HOME)
    if value:
        return Path(value)
    return Path(platformdirs.user_data_dir("skillreel", appauthor=False))


def store_timeout() -> float:
    """Seconds a writer waits for the lock (``SKILLREEL_STORE_TIMEOUT``, 0.1 to 600)."""
    try:
        value = float(os.environ.get(ENV_TIMEOUT, DEFAULT_TIMEOUT))
    except ValueError:
        return DEFAULT_TIMEOUT
    return min(max(value, 0.1), 600.0)


def store_actor() -> Actor:
    """Who the audit log names for this process's changes when the caller does not say:
    ``package-script`` when ``SKILLREEL_ACTOR`` says so (an installed package's ``scripts/replay``
    sets it), else ``cli``. A claim for the record, not an authentication."""
    return "package-script" if os.environ.get(ENV_ACTOR) == "package-script" else "cli"


def used_bytes(conn: sqlite3.Connection) -> int:
    """The bytes the database's pages hold (free pages left by deletions excluded); inside a
    transaction, its own changes included."""
    page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
    pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    free = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
    return (pages - free) * page_size


def _translate(exc: sqlite3.Error, action: str) -> StoreError:
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    name = getattr(exc, "sqlite_errorname", None) or type(exc).__name__
    if code in _BUSY:
        return StoreError("SR_RECORD_STORE_BUSY", f"{action}: the store is locked by another process")
    if code == sqlite3.SQLITE_FULL:
        return StoreError("SR_RECORD_STORE_IO", f"{action}: the disk is full")
    if code in _CORRUPT or isinstance(exc, sqlite3.IntegrityError):
        return StoreError("SR_RECORD_STORE_CORRUPT", f"{action}: the database failed a check ({name})")
    return StoreError("SR_RECORD_STORE_IO", f"{action}: the database could not be used ({name})")


@contextmanager
def translated(action: str) -> Iterator[None]:
    """Turn sqlite3 and OS errors raised inside the block into StoreError codes."""
    try:
        yield
    except sqlite3.Error as exc:
        raise _translate(exc, action) from exc
    except OSError as exc:
        raise StoreError("SR_RECORD_STORE_IO", f"{action}: {exc.strerror or type(exc).__name__}") from exc


def import_hint(name: str) -> str:
    """What a teammate runs to have ``name`` in their store (``name`` is a checked skill name)."""
    return (
        f"to replay {name} here, import its signed export (`skillreel import {name}.json --trust KEY.pub`), "
        f"then `skillreel enable {name} --expected-revision N --approve` on this machine"
    )


def secure_home(home: Path) -> Path:
    """Create the home directory (0700) or check an existing one (:func:`check_home`), then the
    database file (0600)."""
    with translated("preparing the store directory"):
        if os.environ.get(ENV_MUST_EXIST) and not (home / DB_NAME).is_file():
            skill = os.environ.get(ENV_PACKAGE, "")
            raise StoreError(
                "SR_RECORD_STORE_MISSING",
                f"there is no store at {home} (SKILLREEL_HOME or the default); a package's scripts/replay "
                "never creates one" + (f"; {import_hint(skill)}" if is_skill_name(skill) else ""),
            )
        try:
            home.mkdir(mode=DIR_MODE, parents=True)
        except FileExistsError:
            check_home(home)
        else:
            os.chmod(home, DIR_MODE)  # ours: exactly 0700, whatever the umask took away
        path = home / DB_NAME
        _create_or_check(path)
        secure_files(home)
    return path


def _create_or_check(path: Path) -> None:
    """Create the database file (0600), or check that the existing one is a regular file, never a
    symlink, and keep it 0600, without ever opening it.

    Closing any descriptor of a file drops every POSIX lock this process holds on it, the locks of
    its open SQLite connections included. A second ``Store.open`` in a process (the MCP server
    plays concurrently) would then leave the first connection unlocked: another process closing
    its own connection takes the database for unused, checkpoints it and deletes the WAL that the
    first connection keeps writing into, so its commits are lost while it reports them done.
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    except FileExistsError:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            raise StoreError(
                "SR_RECORD_STORE_CORRUPT", "store.db is a symlink or not a regular file"
            ) from None
        _restrict(path, FILE_MODE)
        return
    try:  # a new file: no connection of this process holds a lock on it yet
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)


def secure_files(home: Path) -> None:
    """Owner-only modes on the database and its WAL and shared-memory files, where they exist."""
    with translated("securing the store files"):
        for suffix in ("", "-wal", "-shm", "-journal"):
            path = home / f"{DB_NAME}{suffix}"
            if path.exists() and not path.is_symlink():
                _restrict(path, FILE_MODE)


def check_home(home: Path) -> None:
    """An existing home must be a directory of this user with no permission for anyone else."""
    info = os.stat(home)
    fix = f"; run `chmod 700 {home}` if it is yours and private, or set SKILLREEL_HOME to such a directory"
    if not stat.S_ISDIR(info.st_mode):
        raise StoreError("SR_RECORD_STORE_HOME_UNSAFE", f"{home} is not a directory")
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        raise StoreError(
            "SR_RECORD_STORE_HOME_UNSAFE",
            f"{home} belongs to another user; skillreel keeps its store only in a directory of yours",
        )
    loose = stat.S_IMODE(info.st_mode) & 0o077
    if loose:
        raise StoreError(
            "SR_RECORD_STORE_HOME_UNSAFE",
            f"{home} is open to other users (mode {stat.S_IMODE(info.st_mode):04o}); skillreel does not "
            f"change the modes of a directory it did not create{fix}",
        )


def _restrict(path: Path, mode: int) -> None:
    if stat.S_IMODE(path.stat().st_mode) != mode:
        path.chmod(mode)


def connect(home: Path, timeout: float) -> sqlite3.Connection:
    """Open the store database (WAL, autocommit: transactions are explicit) and migrate it."""
    path = secure_home(home)
    old_umask = os.umask(0o077)
    try:
        with translated("opening the store"):
            conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode=WAL").fetchone()
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute("PRAGMA trusted_schema=OFF")
                migrate(conn)
            except BaseException:
                conn.close()
                raise
    finally:
        os.umask(old_umask)
    secure_files(home)
    return conn


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply the migrations not yet recorded, in order, each in one transaction with its record."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        "name TEXT PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ'))"
        ") STRICT"
    )
    known = {name for name, _ in MIGRATIONS}
    recorded = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
    if recorded - known:
        raise StoreError(
            "SR_RECORD_STORE_CORRUPT",
            "the store was written by a newer skillreel (unknown migrations); left untouched",
        )
    applied: list[str] = []
    for name, script in MIGRATIONS:
        if name in recorded:
            continue
        with atomic(conn, "migrating the store"):
            if conn.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (name,)).fetchone():
                continue  # another process applied it while we waited for the lock
            for statement in filter(str.strip, script.split(";")):
                conn.execute(statement)
            conn.execute("INSERT INTO schema_migrations (name) VALUES (?)", (name,))
            applied.append(name)
    return applied


@contextmanager
def atomic(conn: sqlite3.Connection, action: str) -> Iterator[sqlite3.Connection]:
    """One ``BEGIN IMMEDIATE`` transaction: committed if the block returns, rolled back if it raises.

    The write lock is taken at the start, so a read-check-write inside the block (compare-and-set)
    cannot interleave with another writer.
    """
    with translated(action):
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


@contextmanager
def snapshot(conn: sqlite3.Connection, action: str) -> Iterator[sqlite3.Connection]:
    """A read transaction: every query in the block sees the same state of the store."""
    with translated(action):
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")
