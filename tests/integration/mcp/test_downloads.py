"""A skill that downloads, played over MCP (issue 32.4): refused while the policy names no
downloads directory for MCP (``callers.mcp.downloadsDir``), played into that directory once it
does, on the warm browser's fresh context that accepts downloads."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from skillreel.services.agent_access import confirm_enabled_skill
from skillreel.store import Store
from tests.integration.mcp.client import data, error, mcp_session
from tests.support.cli import ok
from tests.support.desk_pages import DESK_V1, POPUP_STEPS, RECEIPT, serve
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

NAME = "desk-receipt"


async def test_a_download_over_mcp_needs_the_policys_directory(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    url = serve(server, DESK_V1)
    automation = tmp_path / "desk.json"
    automation.write_text(json.dumps({"steps": POPUP_STEPS[-1:]}))
    ok(skillreel_home, "record", NAME, "--url", url, "--automation", str(automation))
    ok(skillreel_home, "review", NAME, "--reviewer", "alice", "--expected-revision", "1", "--approve")
    cli_dir = tmp_path / "cli"
    cli_dir.mkdir()
    ok(skillreel_home, "replay", NAME, "--downloads", str(cli_dir))
    project = str(project_dir)
    ok(skillreel_home, "enable", NAME, "--project-dir", project, "--expected-revision", "3", "--approve")
    with Store.open(skillreel_home) as store:
        confirm_enabled_skill(store, NAME, approve=True)
    before = server.request_count()
    async with mcp_session(skillreel_home, tmp_path / "stderr.log") as session:
        refused = await session.call("skills_play", {"name": NAME, "inputs": {}})
    assert error(refused)["code"] == "SR_REPLAY_DOWNLOADS_DIR_MISSING"
    assert server.request_count() == before  # nothing ran
    mcp_dir = tmp_path / "mcp-downloads"
    mcp_dir.mkdir()
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"callers": {"mcp": {"downloadsDir": str(mcp_dir)}}}))
    ok(skillreel_home, "policy", "set", str(policy), "--approve")
    async with mcp_session(skillreel_home, tmp_path / "stderr.log") as session:
        played = await session.call("skills_play", {"name": NAME, "inputs": {}})
    got = data(played)
    assert got["status"] == "succeeded", played.structured_content
    receipt = got["outputs"]["receipt"]
    assert Path(receipt["path"]).parent == mcp_dir.resolve()
    assert receipt["sha256"] == hashlib.sha256(RECEIPT).hexdigest()
    assert Path(receipt["path"]).read_bytes() == RECEIPT
