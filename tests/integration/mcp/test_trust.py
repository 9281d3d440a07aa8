"""The trust score's effect on ``skills_list`` through `skillreel mcp`, in real Chromium: two
enabled skills on one 127.0.0.1 page, one played to success and one whose replay fails (its search
finds nothing, so its assertion does not hold); the listing tells them apart by their track record.
On main ``skills_list`` carried no run history."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.mcp.client import data, mcp_session
from tests.integration.mcp.live_skill import live_skill
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser


async def test_skills_list_shows_which_skill_works(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    await live_skill(server, "works", project_dir)
    await live_skill(server, "breaks", project_dir)
    async with mcp_session(skillreel_home, tmp_path / "stderr.log") as session:
        before = {s["name"]: s["trust"] for s in data(await session.call("skills_list", {}))["skills"]}
        played = await session.call("skills_play", {"name": "works", "inputs": {"customer": "ACME"}})
        broke = await session.call("skills_play", {"name": "breaks", "inputs": {"customer": ""}})
        listed = await session.call("skills_list", {})
    assert not played.is_error, data(played)
    assert broke.is_error
    assert before["works"]["runs"] == before["breaks"]["runs"] == 0
    trust = {s["name"]: s["trust"] for s in data(listed)["skills"]}
    works, breaks = trust["works"], trust["breaks"]
    assert (works["runs"], works["successRate"], works["lastFailureCode"]) == (1, 1.0, None)
    assert works["lastSuccessAt"] is not None
    assert (breaks["runs"], breaks["successRate"], breaks["lastSuccessAt"]) == (1, 0.0, None)
    assert breaks["lastFailureCode"] == "SR_REPLAY_UI_ASSERTION_FAILED"
