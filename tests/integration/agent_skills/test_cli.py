"""`skillreel enable` / `skillreel revoke` as a user runs them: the console entry point in a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillreel.store import Store
from tests.support import factory
from tests.support.cli import CliResult, run_cli
from tests.support.factory import store_entry
from tests.support.readback import snapshot

pytestmark = pytest.mark.slow  # the console script in a subprocess, several times per test

NAME = "search-invoices"
ROOTS = (".agents", ".claude")


@pytest.fixture
def validated() -> None:
    with Store.open() as store:
        store_entry(store, factory.entry(NAME))


def paths(project: Path) -> list[str]:
    return [str(project / root / "skills" / NAME) for root in ROOTS]


def test_without_approve_enable_says_what_it_would_install_and_changes_nothing(
    validated: None, project_dir: Path
) -> None:
    result = run_cli("enable", NAME, "--project-dir", str(project_dir), "--json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "SR_RECORD_APPROVAL_REQUIRED"
    assert all(p in error["message"] for p in paths(project_dir))
    assert snapshot(project_dir) == {}


def test_enable_then_revoke_with_approve(validated: None, project_dir: Path) -> None:
    # DIR defaults to cwd
    enabled = run_cli("enable", NAME, "--expected-revision", "3", "--approve", "--json", cwd=project_dir)
    assert enabled.exit_code == 0, enabled.stderr
    body = enabled.data()
    assert body["status"] == "enabled"
    assert body["revision"] == 4
    assert body["packageDigest"].startswith("sha256:")
    assert body["installations"] == paths(project_dir)
    assert all((Path(p) / "SKILL.md").is_file() for p in paths(project_dir))

    plan = run_cli("revoke", NAME, "--json")
    assert plan.json()["error"]["code"] == "SR_RECORD_APPROVAL_REQUIRED"
    assert all((Path(p) / "SKILL.md").is_file() for p in paths(project_dir))

    unpinned = run_cli("revoke", NAME, "--approve", "--json")
    assert unpinned.exit_code == 2
    error = unpinned.json()["error"]
    assert error["code"] == "SR_RECORD_REVISION_UNPINNED"
    assert f"`skillreel revoke {NAME} --expected-revision 4 --approve`" in error["message"]
    assert error["details"] == {
        "revision": 4,
        "command": f"skillreel revoke {NAME} --expected-revision 4 --approve",
    }
    assert all((Path(p) / "SKILL.md").is_file() for p in paths(project_dir))
    revoked = run_cli("revoke", NAME, "--expected-revision", "4", "--approve", "--json")
    assert revoked.exit_code == 0, revoked.stderr
    assert revoked.data()["status"] == "revoked"
    assert revoked.data()["removed"] == paths(project_dir)
    assert not any(Path(p).exists() for p in paths(project_dir))


def test_enable_prints_a_human_summary(validated: None, project_dir: Path) -> None:
    result = run_cli(
        "enable", NAME, "--expected-revision", "3", "--approve", "--project-dir", str(project_dir)
    )
    assert result.exit_code == 0, result.stderr
    assert f"enabled {NAME} at revision 4" in result.stdout
    assert paths(project_dir)[1] in result.stdout


@pytest.mark.parametrize(
    ("args", "code", "status"),
    [
        (["enable", "missing-skill", "--approve"], "SR_RECORD_NOT_FOUND", 1),
        (["enable", "Bad_Name", "--approve"], "SR_RECORD_NAME_INVALID", 2),
        (["enable", NAME, "--approve", "--scope", "user"], "SR_RECORD_POLICY_DENIED", 1),
        (["enable", NAME, "--approve", "--scope", "everywhere"], "SR_RECORD_USAGE", 2),
        (["revoke", NAME, "--approve"], "SR_RECORD_STATE_INVALID", 1),
    ],
)
def test_refusals_have_a_code_and_an_exit_status(
    validated: None, project_dir: Path, tmp_path: Path, args: list[str], code: str, status: int
) -> None:
    result = run_cli(*args, "--json", cwd=project_dir, env={"HOME": str(tmp_path)})
    assert result.exit_code == status
    assert result.json()["error"]["code"] == code
    assert snapshot(project_dir) == {}
    assert "Traceback" not in result.stderr


# --- a read-only skill root, for real --------------------------------------------------------

SETPRIV = shutil.which("setpriv")
UNPRIVILEGED = [SETPRIV or "setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]


@pytest.mark.skipif(
    os.geteuid() != 0 or SETPRIV is None,
    reason="root without CAP_DAC_OVERRIDE via setpriv (test_install covers non-root)",
)
def test_a_read_only_skill_root_is_install_failed_and_nothing_changes(
    validated: None, project_dir: Path
) -> None:
    (project_dir / ".claude" / "skills").mkdir(parents=True)
    (project_dir / ".claude" / "skills").chmod(0o555)
    files_before = snapshot(project_dir)
    command = [
        *UNPRIVILEGED,
        sys.executable,
        "-m",
        "skillreel",
        "enable",
        NAME,
        "--expected-revision",
        "3",
        "--approve",
        "--project-dir",
        str(project_dir),
        "--json",
    ]
    proc = subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)
    result = CliResult(proc.returncode, proc.stdout, proc.stderr)
    assert result.exit_code == 1, result.stderr
    assert result.json()["error"]["code"] == "SR_RECORD_INSTALL_FAILED"
    assert snapshot(project_dir) == files_before  # .agents/skills, created first, was rolled back too
    with Store.open() as store:
        assert store.get(NAME).status == "validated"
