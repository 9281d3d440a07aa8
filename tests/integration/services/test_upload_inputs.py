"""A file input over MCP (issue 32.2): ``skills_play``'s checks take a path only under a directory
the policy's ``uploadDirs`` names (none by default), refused before a question is asked or a
browser starts; the command line is not bound by it."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillreel.errors import SkillreelError
from skillreel.model.actions import NavigateAction, UploadAction, capability_manifest
from skillreel.model.draft import Parameter
from skillreel.model.policy import Policy, PolicySettings
from skillreel.model.refs import ParameterRef
from skillreel.services.agent_access import check_play
from skillreel.services.packaging import enable_skill
from skillreel.store import Store
from tests.support import factory
from tests.support.factory import store_entry

SITE = "http://127.0.0.1:9/app"  # never started: nothing here is played


class NoVault:
    def get(self, skill: str, param: str) -> str | None:
        return None


@pytest.fixture
def store(skillreel_home: Path, project_dir: Path) -> Store:
    """An enabled skill whose second step uploads the file its ``receipt`` input names."""
    actions = (
        NavigateAction(id="a1", url=SITE),
        UploadAction(id="a2", target=factory.bundle("#f"), value=ParameterRef(name="receipt")),
    )
    entry = factory.entry(
        "send-receipt",
        environment=factory.url_environment(SITE),
        actions=actions,
        parameters=(Parameter(name="receipt", type="file"),),
        capabilities=capability_manifest(actions),
    )
    with Store.open() as opened:
        store_entry(opened, entry)
        revision = opened.get("send-receipt").revision
        enable_skill(opened, "send-receipt", "project", project_dir, approve=True, expected_revision=revision)
    return Store.open(actor="mcp")


def test_an_mcp_file_input_is_refused_until_the_policy_names_its_directory(
    store: Store, tmp_path: Path
) -> None:
    allowed = tmp_path / "inbox"
    allowed.mkdir()
    (allowed / "scan-1234.pdf").write_bytes(b"%PDF")
    path = str(allowed / "scan-1234.pdf")
    with store, pytest.raises(SkillreelError) as info:
        check_play(store, "send-receipt", {"receipt": path}, NoVault())
    assert info.value.code == "SR_REPLAY_UPLOAD_OUTSIDE"
    assert "scan-1234" not in info.value.message
    with Store.open() as admin:
        admin.set_policy(Policy.from_settings(PolicySettings(upload_dirs=(str(allowed),))))
    with Store.open(actor="mcp") as again:
        assert check_play(again, "send-receipt", {"receipt": path}, NoVault()).entry.name == "send-receipt"
        with pytest.raises(SkillreelError) as outside:
            check_play(again, "send-receipt", {"receipt": str(tmp_path / "other.pdf")}, NoVault())
        assert outside.value.code in ("SR_REPLAY_UPLOAD_OUTSIDE", "SR_REPLAY_UPLOAD_REFUSED")
