"""A package's ``scripts/replay`` runs the skillreel program that enabled the skill while it still
exists, else the ``skillreel`` on ``PATH``, else says what to install and import (issue 31 point 6:
a committed package works on a teammate's machine). Its store is the caller's, as for the CLI
(``SKILLREEL_HOME`` or the default), and it never creates a new, empty store (issue 11 item 10)."""

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
from skillreel.model.envelope import Envelope
from skillreel.services.packaging import enable_skill
from skillreel.store import Store
from tests.support import factory
from tests.support.cli import run_cli
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


@pytest.fixture
def teammates(tmp_path: Path) -> Path:
    """A package committed from another machine: its recorded program does not exist here."""
    gone = tmp_path / "alices-venv" / "bin" / "python"
    package = render_package(
        factory.validated_entry(), revision=4, launcher=Launcher(command=(str(gone), "-P", "-m", "skillreel"))
    )
    root = skill_roots("project", tmp_path / "checkout")[0]
    root.parent.parent.mkdir()
    install(package, (root,)).finish()
    return root / NAME / REPLAY_SCRIPT


def run_script(
    script: Path, tmp_path: Path, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    """Run the script as an agent would: from the project, with its own environment and PATH."""
    return subprocess.run(
        [str(script), *(args or ("--json",))],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, **env},
        timeout=120,
        check=False,
    )


def shim(tmp_path: Path) -> tuple[Path, Path]:
    """A fake ``skillreel`` on a PATH folder that writes its arguments and environment down."""
    folder, log = tmp_path / "bin", tmp_path / "shim-ran"
    folder.mkdir()
    fake = folder / "skillreel"
    fake.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$@" > {log}\n'
        f'printf "HOME=%s MUST=%s ACTOR=%s\\n" "$SKILLREEL_HOME" "$SKILLREEL_STORE_MUST_EXIST" '
        f'"$SKILLREEL_ACTOR" >> {log}\n'
        "exit 0\n"
    )
    fake.chmod(0o755)
    return folder, log


def bare_path() -> str:
    """A PATH with the shell tools and no ``skillreel`` (this venv's bin holds one)."""
    return "/usr/bin:/bin"


def test_the_program_that_enabled_it_comes_first_and_the_store_is_the_callers(
    enabled: Path, skillreel_home: Path, tmp_path: Path
) -> None:
    impostor_bin, marker = shim(tmp_path)
    other_home = tmp_path / "other-home"
    proc = run_script(
        enabled,
        tmp_path,
        {"PATH": f"{impostor_bin}:{os.environ['PATH']}", "SKILLREEL_HOME": str(other_home)},
    )
    assert not marker.exists(), "the script ran the skillreel on PATH while its own program exists"
    # the caller's store, as for the CLI; it does not exist, so: a clear error and no new store
    assert proc.returncode == 1, proc.stderr
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == "SR_RECORD_STORE_MISSING", error
    assert str(other_home) in error["message"]
    assert (
        f"to replay {NAME} here, import its signed export (`skillreel import {NAME}.json" in error["message"]
    )
    assert f"`skillreel enable {NAME} --expected-revision N --approve`" in error["message"]
    assert "skillreel import" in error["fix"]
    assert "skillreel enable" in error["fix"]
    assert not other_home.exists()
    # with the store that holds the skill, it is found: refused for its missing input, not unknown
    proc = run_script(enabled, tmp_path, {"SKILLREEL_HOME": str(skillreel_home)})
    assert json.loads(proc.stdout)["error"]["code"] == "SR_REPLAY_PARAMETER_MISSING", proc.stdout
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


def test_a_teammates_package_runs_the_skillreel_on_path(teammates: Path, tmp_path: Path) -> None:
    bin_dir, log = shim(tmp_path)
    proc = run_script(
        teammates,
        tmp_path,
        {"PATH": f"{bin_dir}:{bare_path()}", "SKILLREEL_HOME": "/srv/team store"},
        "--input",
        "query=a b",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    argv, environment = log.read_text().splitlines()[:-1], log.read_text().splitlines()[-1]
    assert argv == ["replay", NAME, "--input", "query=a b", "--json"]
    assert environment == "HOME=/srv/team store MUST=1 ACTOR=package-script"


def test_a_recorded_python_without_skillreel_falls_back_to_path(tmp_path: Path) -> None:
    """The recorded interpreter exists but no longer has skillreel (its venv was rebuilt)."""
    bare = tmp_path / "bare-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True, timeout=120)
    package = render_package(
        factory.validated_entry(),
        revision=4,
        launcher=Launcher(command=(str(bare / "bin" / "python"), "-P", "-m", "skillreel")),
    )
    root = skill_roots("project", tmp_path)[0]
    install(package, (root,)).finish()
    bin_dir, log = shim(tmp_path)
    proc = run_script(root / NAME / REPLAY_SCRIPT, tmp_path, {"PATH": f"{bin_dir}:{bare_path()}"})
    assert proc.returncode == 0, proc.stderr
    assert log.read_text().splitlines()[:3] == ["replay", NAME, "--json"]


def test_no_skillreel_anywhere_says_what_to_run(teammates: Path, tmp_path: Path) -> None:
    proc = run_script(teammates, tmp_path, {"PATH": bare_path()})
    assert proc.returncode == 1  # never 127, which reads as "command not found"
    envelope = json.loads(proc.stdout)
    assert envelope["ok"] is False
    assert envelope["command"] == "replay"
    assert envelope["error"]["code"] == "SR_RECORD_PROGRAM_MISSING"
    Envelope.model_validate(envelope)
    for said in (proc.stderr, envelope["error"]["message"]):
        assert "pipx install" in said
        assert f"skillreel import {NAME}.json --trust KEY.pub" in said
        assert f"skillreel enable {NAME} --expected-revision N --approve" in said
    assert "SR_RECORD_PROGRAM_MISSING" in proc.stderr
    # without --json, the same line on stderr and nothing on stdout
    proc = run_script(teammates, tmp_path, {"PATH": bare_path()}, "--input", "query=x")
    assert (proc.returncode, proc.stdout) == (1, "")
    assert f"no skillreel to replay {NAME}" in proc.stderr


def test_a_store_without_the_skill_names_it_and_how_to_import_it(
    teammates: Path, skillreel_home: Path, tmp_path: Path
) -> None:
    """A teammate's store that exists but does not hold the skill, reached through the real CLI."""
    with Store.open() as store:
        store_entry(store, factory.entry("another-skill"))
    venv_bin = str(Path(sys.executable).parent)
    proc = run_script(teammates, tmp_path, {"PATH": f"{venv_bin}:{bare_path()}"})
    assert proc.returncode == 1, proc.stderr
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == "SR_RECORD_NOT_FOUND"
    assert f"no skill named '{NAME}'" in error["message"]
    assert f"skillreel import {NAME}.json --trust KEY.pub" in error["message"]
    assert f"skillreel enable {NAME} --expected-revision N --approve" in error["message"]


def test_the_recorded_program_is_this_python_not_a_resolved_one(enabled: Path) -> None:
    script = enabled.read_text()
    assert f"exec {os.path.abspath(sys.executable)} -P -m skillreel replay {NAME} " in script


def test_the_guides_team_workflow(enabled: Path, skillreel_home: Path, tmp_path: Path) -> None:
    """docs/guide.md "Sharing skills with a team": the owner exports signed, a teammate imports with
    --trust into their own store, and the package folder the owner committed replays there through
    the skillreel on PATH; the teammate's enable in that checkout is refused (the guide says so)."""
    private, public = factory.write_keys(tmp_path)
    export = tmp_path / f"{NAME}.json"
    assert run_cli("export", NAME, "--out", str(export), "--sign", str(private)).exit_code == 0
    teammate = {"SKILLREEL_HOME": str(tmp_path / "teammate-home")}
    imported = run_cli("import", str(export), "--trust", str(public), "--json", env=teammate).data()
    assert (imported["status"], imported["revision"]) == ("validated", 1)
    # the committed folder, as on the teammate's machine: the owner's Python does not exist there
    owner_python = Launcher(command=("/home/owner/venv/bin/python", "-P", "-m", "skillreel"))
    with Store.open() as store:  # the owner's
        owned = store.get(NAME)
    committed = render_package(owned, revision=owned.revision, launcher=owner_python)
    checkout = tmp_path / "checkout"
    root = skill_roots("project", checkout)[0]
    root.parent.parent.mkdir()
    install(committed, (root,)).finish()
    venv_bin = str(Path(sys.executable).parent)
    proc = run_script(
        root / NAME / REPLAY_SCRIPT, tmp_path, {**teammate, "PATH": f"{venv_bin}:{bare_path()}"}
    )
    # found in the teammate's store and replayable: refused only for its missing input
    assert json.loads(proc.stdout)["error"]["code"] == "SR_REPLAY_PARAMETER_MISSING", proc.stdout
    refused = run_cli(
        "enable",
        NAME,
        "--project-dir",
        str(checkout),
        "--expected-revision",
        "1",
        "--approve",
        "--json",
        env=teammate,
    )
    assert refused.json()["error"]["code"] == "SR_RECORD_INSTALL_COLLISION"
