"""Bad input files for `replay` get the same codes as everywhere else, before any browser starts."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from skillreel.model import lifecycle
from skillreel.model.actions import NavigateAction, UploadAction, capability_manifest
from skillreel.model.draft import Parameter
from skillreel.model.refs import ParameterRef
from skillreel.store import AuditNote, Store
from tests.support import factory
from tests.support.cli import run_cli
from tests.support.uploads import bad_upload


def approve(name: str, **kw: Any) -> str:
    with Store.open() as store:
        store.insert(factory.entry(name, **kw), AuditNote(kind="record"))
        store.update(name, lambda e: lifecycle.approve(e, "rev", factory.T0), AuditNote(kind="review"))
    return name


@pytest.fixture
def approved_fixture_skill(skillreel_home: Path) -> str:
    return approve("fixture-skill")


@pytest.mark.parametrize(("option", "target"), [("--html", "html"), ("--storage-state", "url")])
def test_a_directory_is_not_a_regular_file(
    skillreel_home: Path, tmp_path: Path, option: str, target: str
) -> None:
    name = (
        approve("dir-skill")
        if target == "html"
        else approve("dir-skill", environment=factory.url_environment())
    )
    result = run_cli("replay", name, option, str(tmp_path), "--input", "query=x", "--json")
    assert result.exit_code == 2, result.stdout + result.stderr
    assert result.json()["error"]["code"] == "SR_RECORD_INPUT_NOT_REGULAR"
    assert "Traceback" not in result.stderr


def test_a_storage_state_for_an_html_fixture_is_a_target_error(
    approved_fixture_skill: str, tmp_path: Path
) -> None:
    state = tmp_path / "state.json"
    state.write_text('{"cookies": [], "origins": []}')
    result = run_cli(
        "replay", approved_fixture_skill, "--storage-state", str(state), "--input", "query=x", "--json"
    )
    assert result.exit_code == 2
    assert result.json()["error"]["code"] == "SR_RECORD_TARGET_INVALID"


def test_a_symlinked_fixture_is_refused(approved_fixture_skill: str, tmp_path: Path) -> None:
    real = tmp_path / "real.html"
    real.write_text("<html><body>fixture</body></html>")
    link = tmp_path / "link.html"
    os.symlink(real, link)
    result = run_cli("replay", approved_fixture_skill, "--html", str(link), "--input", "query=x", "--json")
    assert result.exit_code == 2
    assert result.json()["error"]["code"] == "SR_RECORD_INPUT_NOT_REGULAR"


def _upload_skill() -> str:
    """An approved skill whose second step uploads the file its ``receipt`` input names."""
    actions = (
        NavigateAction(id="a1", url="https://fixture.skillreel.invalid/"),
        UploadAction(id="a2", target=factory.bundle("#f"), value=ParameterRef(name="receipt")),
    )
    return approve(
        "upload-skill",
        actions=actions,
        parameters=(Parameter(name="receipt", type="file"),),
        capabilities=capability_manifest(actions),
    )


@pytest.mark.parametrize("problem", ["missing", "directory", "symlink"])
def test_a_bad_file_input_is_refused_on_the_command_line_before_any_browser(
    skillreel_home: Path, tmp_path: Path, problem: str
) -> None:
    name = _upload_skill()
    html = tmp_path / "page.html"
    html.write_text("<html><body><input type=file id=f></body></html>")
    path = bad_upload(tmp_path, problem, "private-report.pdf")
    result = run_cli("replay", name, "--html", str(html), "--input", f"receipt=@{path}", "--json")
    assert result.exit_code == 2, result.stdout + result.stderr
    assert result.json()["error"]["code"] == "SR_REPLAY_UPLOAD_REFUSED"
    assert "private-report" not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
