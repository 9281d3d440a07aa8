"""A package's ``scripts/replay`` runs the exact skillreel program and store that enabled the skill
(issue 11 item 10): not whatever ``skillreel`` comes first on ``PATH``, not the store the caller's
``SKILLREEL_HOME`` names, and never a new empty store when the recorded one is gone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillreel.agent_skills.install import install, skill_roots
from skillreel.agent_skills.package import REPLAY_SCRIPT, Launcher, render_package
from skillreel.services.packaging import enable_skill
from skillreel.store import Store
from tests.support import factory
from tests.support.factory import store_entry

NAME = "search-invoices"


@pytest.fixture
def enabled(skillreel_home: Path, tmp_path: Path) -> Path:
    """The installed script of a skill enabled from ``skillreel_home``."""
    project = tmp_path / "project"
    project.mkdir()
    with Store.open() as store:
        store_entry(store, factory.entry(NAME))
        enable_skill(
            store, NAME, "project", project, approve=True, expected_revision=store.get(NAME).revision
        )
    return project / ".agents" / "skills" / NAME / REPLAY_SCRIPT


def run_script(script: Path, tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run the script as an agent would: from the project, with its own environment and PATH."""
    return subprocess.run(
        [str(script), "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, **env},
        timeout=120,
        check=False,
    )


def test_the_script_ignores_another_skillreel_on_path_and_another_home(
    enabled: Path, skillreel_home: Path, tmp_path: Path
) -> None:
    impostor_bin, marker = tmp_path / "bin", tmp_path / "impostor-ran"
    impostor_bin.mkdir()
    impostor = impostor_bin / "skillreel"
    impostor.write_text(f"#!/bin/sh\ntouch {marker}\nexit 0\n")
    impostor.chmod(0o755)
    other_home = tmp_path / "other-home"
    proc = run_script(
        enabled,
        tmp_path,
        {"PATH": f"{impostor_bin}:{os.environ['PATH']}", "SKILLREEL_HOME": str(other_home)},
    )
    assert not marker.exists(), "the script ran the skillreel first on PATH"
    assert not other_home.exists(), "the script opened (and created) the caller's store"
    envelope = json.loads(proc.stdout)
    # the skill was found in the store that enabled it: refused for its missing input, not unknown
    assert envelope["error"]["code"] == "SR_REPLAY_PARAMETER_MISSING", envelope
    assert "Traceback" not in proc.stderr


def test_a_store_that_is_gone_is_a_clear_error_and_no_new_store(
    enabled: Path, skillreel_home: Path, tmp_path: Path
) -> None:
    moved = tmp_path / "moved-home"
    shutil.move(str(skillreel_home), moved)
    skillreel_home.mkdir(mode=0o700)  # the directory is back, its store is not
    proc = run_script(enabled, tmp_path, {})
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["error"]["code"] == "SR_RECORD_STORE_MISSING"
    assert list(skillreel_home.iterdir()) == []  # no new empty store
    skillreel_home.rmdir()
    proc = run_script(enabled, tmp_path, {})
    assert json.loads(proc.stdout)["error"]["code"] == "SR_RECORD_STORE_MISSING"
    assert not skillreel_home.exists()


def test_a_program_that_is_gone_is_a_clear_error(skillreel_home: Path, tmp_path: Path) -> None:
    gone = tmp_path / "old-venv" / "bin" / "python"
    package = render_package(
        factory.validated_entry(),
        revision=4,
        launcher=Launcher(command=(str(gone), "-P", "-m", "skillreel"), home=str(skillreel_home)),
    )
    (root,) = skill_roots("project", tmp_path)[:1]
    install(package, (root,)).finish()
    proc = run_script(root / NAME / REPLAY_SCRIPT, tmp_path, {})
    assert proc.returncode == 127
    assert "the skillreel program that enabled search-invoices is gone" in proc.stderr
    assert proc.stdout == ""


def test_the_recorded_program_is_this_python_not_a_resolved_one(enabled: Path) -> None:
    script = enabled.read_text()
    assert f"exec {os.path.abspath(sys.executable)} -P -m skillreel replay {NAME} " in script
