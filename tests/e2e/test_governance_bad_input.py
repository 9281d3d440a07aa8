"""Bad input for every governance verb through the console script: one or two refusals per verb get
their SR_* code and exit status (1 or 2), in JSON and in human form, never a traceback, and the store
is exactly as it was. Click's own checks (usage errors) can only be seen here; every other refusal of
every use case is tested as a function in tests/integration/services/test_bad_input.py."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from skillreel.store import Store
from tests.support.cli import run_cli
from tests.support.factory import seed
from tests.support.readback import assert_owner_only

NAME = "search-invoices"
Setup = Callable[[Path], list[str]]


def _file(name: str, data: bytes | str) -> Setup:
    def make(tmp: Path) -> list[str]:
        path = tmp / name
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return [str(path)]

    return make


def _none(tmp: Path) -> list[str]:
    return []


CASES: list[tuple[str, list[str], Setup, list[str], str, int]] = [
    # id, verb args before the setup's, setup, args after, code (without SR_RECORD_), exit status
    ("policy-malformed", ["policy", "set"], _file("p.json", "{"), ["--approve"], "INPUT_MALFORMED", 2),
    ("import-malformed", ["import"], _file("e.json", b"\xff{"), [], "INPUT_MALFORMED", 2),
    ("show-unknown", ["show", "missing-skill"], _none, [], "NOT_FOUND", 1),
    ("show-revision-zero", ["show", NAME, "--revision", "0"], _none, [], "USAGE", 2),
    ("review-no-reviewer", ["review", NAME, "--approve"], _none, [], "USAGE", 2),
    ("delete-no-approve", ["delete", NAME], _none, [], "APPROVAL_REQUIRED", 1),
    ("prune-no-approve", ["prune"], _none, [], "APPROVAL_REQUIRED", 1),
    ("export-no-out", ["export", NAME], _none, [], "USAGE", 2),
    ("audit-bad-limit", ["audit", "--limit", "0"], _none, [], "USAGE", 2),
    ("list-unknown-option", ["list", "--all"], _none, [], "USAGE", 2),
    ("template-unknown-option", ["policy-template", "--out"], _none, [], "USAGE", 2),
]


def _snapshot(home: Path) -> list[object]:
    with sqlite3.connect(f"file:{home / 'store.db'}?mode=ro", uri=True) as conn:
        return [
            conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            for table in ("entries", "revisions", "audit", "policy", "schema_migrations")
        ]


@pytest.mark.parametrize(
    ("before", "setup", "after", "code", "status"), [pytest.param(*case[1:], id=case[0]) for case in CASES]
)
def test_bad_input_is_refused_cleanly(
    skillreel_home: Path,
    tmp_path: Path,
    before: list[str],
    setup: Setup,
    after: list[str],
    code: str,
    status: int,
) -> None:
    with Store.open() as store:
        seed(store, NAME)
        seed(store, "live-skill", "enabled")
        seed(store, "old-draft", now="2020-01-01T00:00:00Z")
    args, code = [*before, *setup(tmp_path), *after], f"SR_RECORD_{code}"
    snapshot = _snapshot(skillreel_home)
    files = sorted(p.name for p in tmp_path.iterdir())

    result = run_cli(*args, "--json")
    assert "Traceback" not in result.stderr + result.stdout
    assert result.json()["error"]["code"] == code, result.stdout
    assert result.exit_code == status

    human = run_cli(*args)
    assert "Traceback" not in human.stderr + human.stdout
    assert human.exit_code == status
    assert code in human.stderr

    assert _snapshot(skillreel_home) == snapshot
    assert sorted(p.name for p in tmp_path.iterdir()) == files
    assert_owner_only(skillreel_home)


def test_a_home_open_to_other_users_is_refused_with_its_fix_and_never_chmodded(tmp_path: Path) -> None:
    home = tmp_path / "shared-home"
    home.mkdir()
    home.chmod(0o755)
    env = {"SKILLREEL_HOME": str(home)}
    result = run_cli("list", "--json", env=env)
    error = result.json()["error"]
    assert (result.exit_code, error["code"]) == (1, "SR_RECORD_STORE_HOME_UNSAFE")
    assert f"chmod 700 {home}" in error["message"]
    assert "chmod 700" in error["fix"]
    human = run_cli("list", env=env)
    assert "SR_RECORD_STORE_HOME_UNSAFE" in human.stderr
    assert "Traceback" not in human.stderr
    assert (home.stat().st_mode & 0o777, list(home.iterdir())) == (0o755, [])
    home.chmod(0o700)  # the fix the message gives
    assert run_cli("list", "--json", env=env).data()["skills"] == []
