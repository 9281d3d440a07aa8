"""Checks the use-case tests share: a refusal changes nothing in the store."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from skillreel.errors import SkillreelError

NAME = "search-invoices"


def snapshot(home: Path) -> list[object]:
    """Every row of every table, read through a separate read-only connection."""
    with sqlite3.connect(f"file:{home / 'store.db'}?mode=ro", uri=True) as conn:
        return [
            conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            for table in ("entries", "revisions", "audit", "policy", "schema_migrations")
        ]


def refused(home: Path, code: str, call: Callable[[], object], exit_status: int = 1) -> SkillreelError:
    """``call`` raises ``code`` (with its exit status) and leaves the store exactly as it was."""
    before = snapshot(home)
    with pytest.raises(SkillreelError) as info:
        call()
    assert (info.value.code, info.value.exit_status) == (code, exit_status), info.value.message
    assert snapshot(home) == before
    return info.value
