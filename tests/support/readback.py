"""What tests read back after the code under test ran: directory snapshots, permission bits, raw rows
of the store's database, and the audit events as JSON."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

from skillreel.store import Store


def snapshot(root: Path) -> dict[str, tuple[str, int, bytes]]:
    """Everything under ``root``: kind, permission bits and bytes of each entry (symlinks not followed)."""
    found: dict[str, tuple[str, int, bytes]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                kind, data = "link", os.readlink(path).encode()
            elif stat.S_ISDIR(st.st_mode):
                kind, data = "dir", b""
            else:
                kind, data = "file", path.read_bytes()
            found[str(path.relative_to(root))] = (kind, stat.S_IMODE(st.st_mode), data)
    return found


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def assert_owner_only(home: Path) -> None:
    """The home (when a command created it) is 0700 and every database file in it 0600."""
    if not home.exists():
        return
    assert mode(home) == 0o700
    for path in home.iterdir():
        if path.name.startswith("store.db"):
            assert mode(path) == 0o600, path.name


def sql(home: Path, statement: str, *args: object) -> list[tuple[object, ...]]:
    """Run one statement on the store's database file directly (autocommit), bypassing the Store."""
    with sqlite3.connect(home / "store.db", isolation_level=None) as conn:
        return conn.execute(statement, args).fetchall()


def audit_json(store: Store) -> list[dict[str, Any]]:
    return [e.to_json() for e in store.audit_events()]
