"""A person's confirmation that agents may play one approved revision of a skill (issue 30.6).

One row per skill and approval digest: the first ``skills_play`` of an approved revision asks the
user (MCP elicitation) unless a row is there; ``enable --confirm-agent-play`` writes one from the
command line. A new approval (a review, an adopted heal, a rollback) has a new digest and so is
asked about again. Rows hold digests, a revision, a time and ``mcp``/``cli``: no content.
"""

from __future__ import annotations

import sqlite3


def confirmed(conn: sqlite3.Connection, name: str, approval_digest: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM agent_play_confirmations WHERE name = ? AND approval_digest = ?",
        (name, approval_digest),
    ).fetchone()
    return row is not None


def add(conn: sqlite3.Connection, name: str, approval_digest: str, revision: int, at: str, via: str) -> bool:
    """Remember the confirmation; False when it was already there (nothing written)."""
    cursor = conn.execute(
        "INSERT OR IGNORE INTO agent_play_confirmations (name, approval_digest, revision, confirmed_at, via) "
        "VALUES (?, ?, ?, ?, ?)",
        (name, approval_digest, revision, at, via),
    )
    return cursor.rowcount == 1


def delete_skill(conn: sqlite3.Connection, name: str) -> None:
    conn.execute("DELETE FROM agent_play_confirmations WHERE name = ?", (name,))
