"""The tests' fork server (tests/support/cli_fork.py) gives a child what ``python -m skillreel`` gets: the
caller's arguments, environment, working directory, stdin, and its exit status and output."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.cli import run_cli


def test_a_forked_run_and_a_fresh_interpreter_print_the_same_document(tmp_path: Path) -> None:
    forked = run_cli("list", "--json")
    fresh = run_cli("list", "--json", fresh=True)
    assert (forked.exit_code, forked.json()) == (fresh.exit_code, fresh.json()) == (0, fresh.json())
    assert forked.json()["ok"] is True


def test_the_child_gets_the_callers_environment_not_the_servers(tmp_path: Path) -> None:
    home = tmp_path / "elsewhere"
    home.mkdir(mode=0o700)
    result = run_cli("list", "--json", env={"SKILLREEL_HOME": str(home)})
    assert result.exit_code == 0, result.stderr
    assert (home / "store.db").exists()  # the store was made where the caller's variable says


def test_an_error_exits_with_its_status_and_the_envelope_names_the_code() -> None:
    result = run_cli("show", "no-such-skill", "--json")
    assert result.exit_code == 1
    assert result.json()["error"]["code"] == "SR_RECORD_NOT_FOUND"
    usage = run_cli("show")  # a usage error: status 2, on stderr
    assert (usage.exit_code, usage.stdout) == (2, "")
    assert usage.stderr.startswith("error SR_RECORD_USAGE: Missing argument 'NAME'.")


def test_the_child_works_in_the_callers_directory(tmp_path: Path) -> None:
    (tmp_path / "export.json").write_text("{")
    relative = run_cli("import", "export.json", "--json", cwd=tmp_path)
    assert relative.json()["error"]["code"] == "SR_RECORD_INPUT_MALFORMED"  # found, read, refused
    elsewhere = run_cli("import", "export.json", "--json", cwd=tmp_path.parent)
    assert elsewhere.json()["error"]["code"] == "SR_RECORD_INPUT_NOT_REGULAR"  # not there


def test_a_run_past_its_timeout_is_killed_like_subprocess_run() -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        run_cli("ui", "--port", "0", timeout=3)  # serves until stopped
