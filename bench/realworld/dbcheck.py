"""Database snapshots, their difference, and the outcome of one run.

A snapshot reads every table of the app's SQLite database but the ignored ones (sessions, logs),
keyed by primary key, without the ignored columns (timestamps such as ``last_login``). A password
hash is replaced by ``<password:VALUE>`` when it verifies against one of the passwords the run
knows (the seed's and the task's), else by ``<password:?>``: salted hashes never compare equal,
the passwords they hold do.

Outcomes (``classify``): **right** when the tool reported success and the database shows exactly
the intended change; **failed closed** when the tool stopped with an error and the database is
unchanged, or shows exactly the intended change made before the failing step (a final check
failed); **wrong** otherwise: an unintended change, or success reported without the change.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .spec import App, Change, Row, Tables

RIGHT = "right"
FAILED_CLOSED = "failed closed"
WRONG = "wrong"


def snapshot(db: Path, app: App, passwords: Iterable[str]) -> Tables:
    known = tuple(dict.fromkeys((*app.known_passwords, *passwords)))
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        names = [
            r[0]
            for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        return {name: _table(con, name, app, known) for name in names if name not in app.ignored_tables}
    finally:
        con.close()


def _table(con: sqlite3.Connection, name: str, app: App, known: tuple[str, ...]) -> dict[object, Row]:
    info = con.execute(f'PRAGMA table_info("{name}")').fetchall()
    columns = [c[1] for c in info]
    keys = [c[1] for c in sorted(info, key=lambda c: c[5]) if c[5] > 0]
    ignored = app.ignored_columns.get(name, frozenset())
    password = app.password_columns.get(name)
    rows: dict[object, Row] = {}
    for values in con.execute(f'SELECT * FROM "{name}"'):
        row = dict(zip(columns, values, strict=True))
        key: object = (
            tuple(row[k] for k in keys) if len(keys) > 1 else row[keys[0]] if keys else tuple(values)
        )
        if password and password in row:
            row[password] = name_password(str(row[password] or ""), known)
        rows[key] = {c: v for c, v in row.items() if c not in ignored and c not in keys}
    return rows


def name_password(stored: str, known: tuple[str, ...]) -> str:
    for candidate in known:
        if verify_password(stored, candidate):
            return f"<password:{candidate}>"
    return "<password:?>"


def verify_password(stored: str, password: str) -> bool:
    """Django's ``pbkdf2_sha256$iterations$salt$b64`` and Werkzeug's ``pbkdf2:sha256:N$salt$hex``."""
    parts = stored.split("$")
    if len(parts) == 4 and parts[0] == "pbkdf2_sha256":
        digest = hashlib.pbkdf2_hmac("sha256", password.encode(), parts[2].encode(), int(parts[1]))
        return hmac.compare_digest(base64.b64encode(digest).decode(), parts[3])
    if len(parts) == 3 and parts[0].startswith("pbkdf2:"):
        method = parts[0].split(":")
        digest = hashlib.pbkdf2_hmac(method[1], password.encode(), parts[1].encode(), int(method[2]))
        return hmac.compare_digest(digest.hex(), parts[2])
    return False


def diff(before: Tables, after: Tables) -> Change:
    added: dict[str, tuple[Row, ...]] = {}
    removed: dict[str, frozenset[object]] = {}
    changed: dict[str, dict[object, Row]] = {}
    for table in sorted(set(before) | set(after)):
        old, new = before.get(table, {}), after.get(table, {})
        if rows := tuple(new[k] for k in new if k not in old):
            added[table] = rows
        if keys := frozenset(k for k in old if k not in new):
            removed[table] = keys
        edits = {
            k: {c: v for c, v in new[k].items() if old[k].get(c) != v}
            for k in new
            if k in old and new[k] != old[k]
        }
        if edits:
            changed[table] = edits
    return Change(added, removed, changed)


def same_change(actual: Change, expected: Change) -> bool:
    tables = set(actual.added) | set(expected.added)
    if any(
        sorted(map(_canon, actual.added.get(t, ()))) != sorted(map(_canon, expected.added.get(t, ())))
        for t in tables
    ):
        return False
    tables = set(actual.removed) | set(expected.removed)
    if any(actual.removed.get(t, frozenset()) != expected.removed.get(t, frozenset()) for t in tables):
        return False
    tables = set(actual.changed) | set(expected.changed)
    return all(
        _canon_edits(actual.changed.get(t, {})) == _canon_edits(expected.changed.get(t, {})) for t in tables
    )


def _canon(row: Row) -> str:
    return repr(sorted((k, str(v)) for k, v in row.items()))


def _canon_edits(edits: object) -> dict[object, str]:
    assert isinstance(edits, dict)
    return {k: _canon(v) for k, v in edits.items()}


@dataclass(frozen=True)
class Outcome:
    verdict: str  # RIGHT, FAILED_CLOSED or WRONG
    detail: str  # why, in a few words (the tool's error code, what the DB shows)


def classify(tool_ok: bool, tool_detail: str, actual: Change, expected: Change) -> Outcome:
    intended = same_change(actual, expected)
    if tool_ok:
        if intended:
            return Outcome(RIGHT, "exactly the intended change")
        what = "no change" if actual.is_empty() else "an unintended change"
        return Outcome(WRONG, f"reported success; the database shows {what}")
    if actual.is_empty():
        return Outcome(FAILED_CLOSED, f"{tool_detail}; database unchanged")
    if intended:
        return Outcome(FAILED_CLOSED, f"{tool_detail}; the intended change was made before the failing step")
    return Outcome(WRONG, f"{tool_detail}; the database shows an unintended change")


def describe(change: Change) -> str:
    """A short content-light summary of a change, for the detail of a wrong run."""
    parts = [f"+{len(rows)} {t}" for t, rows in change.added.items()]
    parts += [f"-{len(keys)} {t}" for t, keys in change.removed.items()]
    parts += [f"~{len(rows)} {t}" for t, rows in change.changed.items()]
    return ", ".join(parts) or "nothing"
