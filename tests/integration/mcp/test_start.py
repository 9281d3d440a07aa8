"""`skillreel mcp` answers `initialize` after the MCP SDK's own imports: nothing of the browser, the
replay engine or the store is imported (let alone started) until a tool needs it, and Chromium starts
on the first `skills_play` (issue 29; the time it takes is `bench/mcp_start.py`'s, not a test's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from skillreel.mcp import server as mcp_server
from skillreel.sandbox import warm
from tests.integration.mcp.client import data
from tests.integration.mcp.live_skill import live_skill
from tests.support.server import LocalServer

ROOT = Path(__file__).resolve().parents[3]
NAME = "find-invoices"


def test_initialize_imports_neither_the_browser_nor_the_replay_nor_the_store(skillreel_home: Path) -> None:
    """In a fresh interpreter: the server built and `initialize` answered import none of skillreel's
    heavy parts; `skills_list` then opens the store, and still no browser and no replay engine."""
    proc = subprocess.run(
        [sys.executable, "-m", "tests.support.mcp_start_probe"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYDANTIC_DISABLE_PLUGINS": "__all__"},
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    assert seen["built"] == []
    assert seen["initialized"] == []
    assert seen["listed"] == ["skillreel.store"]


@pytest.mark.browser
async def test_chromium_starts_on_the_first_play_and_not_before(
    server: LocalServer, skillreel_home: Path, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[warm.WarmBrowser] = []

    class Counted(warm.WarmBrowser):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            made.append(self)

    monkeypatch.setattr(warm, "WarmBrowser", Counted)
    await live_skill(server, NAME, project_dir)
    async with Client(mcp_server.build_server(browser_idle_s=600), mode="legacy") as client:
        await client.call_tool("skills_list", {})
        assert made == []  # initialized and listed: no warm browser, so no Chromium
        first = await client.call_tool("skills_play", {"name": NAME, "inputs": {"customer": "ACME"}})
        assert data(first)["status"] == "succeeded"
        assert [m.launches for m in made] == [1]
        second = await client.call_tool("skills_play", {"name": NAME, "inputs": {"customer": "ACME"}})
        assert data(second)["status"] == "succeeded"
        assert [m.launches for m in made] == [1]  # the same Chromium, kept warm
    assert not made[0].running  # closed with the server
