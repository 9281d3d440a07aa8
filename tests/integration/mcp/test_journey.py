"""The whole journey with the real console script: record a scripted demonstration, review, replay,
enable; then an agent runs it through the installed `scripts/replay` and over MCP; then revoke."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.integration.mcp.client import data, error, mcp_session
from tests.integration.mcp.live_skill import PAGE
from tests.support.cli import run_cli
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NAME = "find-invoices"
PIN_ENV = "SKILLREEL_SECRET_FIND_INVOICES_PIN"
VAULT = {PIN_ENV: "4711"}


def ok(*args: str, env: dict[str, str] | None = None) -> Any:
    result = run_cli(*args, "--json", env=env)
    assert result.exit_code == 0, (args, result.stdout, result.stderr)
    return result.data()


def write(path: Path, document: dict[str, Any]) -> str:
    path.write_text(json.dumps(document))
    return str(path)


@pytest.fixture
def enabled(server: LocalServer, tmp_path: Path, project_dir: Path) -> Path:
    """find-invoices recorded, reviewed, replayed and enabled with the CLI, as a person would."""
    server.set_page("/invoices", PAGE)
    automation = write(
        tmp_path / "demo.json",
        {
            "steps": [
                {"do": "type", "selector": "#customer", "text": "ACME"},
                {"do": "type", "selector": "#pin", "text": VAULT[PIN_ENV]},
                {"do": "click", "selector": "#go"},
            ]
        },
    )
    assertions = write(
        tmp_path / "checks.json",
        {
            "assertions": [
                {"kind": "assert", "selector": "#out", "check": "text_contains", "expected": "Found"}
            ]
        },
    )
    recorded = ok(
        "record",
        NAME,
        "--url",
        server.url("/invoices"),
        "--automation",
        automation,
        "--assertions",
        assertions,
        "--description",
        "Search the invoices of one customer.",
        "--failure",
        "The page says Nothing found.",
    )
    params = [(p["name"], p["sensitive"]) for p in recorded["parameters"]]
    assert params == [("customer", False), ("pin", True)]
    ok("review", NAME, "--reviewer", "alice", "--expected-revision", "1", "--approve")
    assert ok("replay", NAME, "--input", "customer=ACME", env=VAULT)["status"] == "succeeded"
    enabled = ok(
        "enable",
        NAME,
        "--expected-revision",
        "3",
        "--approve",
        "--confirm-agent-play",
        "--project-dir",
        str(project_dir),
    )
    roots = (".agents", ".claude")
    assert enabled["installations"] == [str(project_dir / r / "skills" / NAME) for r in roots]
    return project_dir


def test_an_agent_runs_the_installed_script(enabled: Path) -> None:
    folder = enabled / ".claude" / "skills" / NAME
    skill_md = (folder / "SKILL.md").read_text()
    assert f"`{PIN_ENV}`" in skill_md
    assert "VAULT" not in skill_md
    assert VAULT[PIN_ENV] not in skill_md
    env = {**os.environ, **VAULT, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(
        [str(folder / "scripts" / "replay"), "--input", "customer=ACME", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["data"]["status"] == "succeeded"


async def test_an_agent_lists_and_plays_over_mcp_until_it_is_revoked(
    enabled: Path, skillreel_home: Path, tmp_path: Path
) -> None:
    stderr = tmp_path / "mcp-stderr.log"
    async with mcp_session(skillreel_home, stderr, env=VAULT) as session:
        listed = data(await session.call("skills_list"))["skills"]
        played = await session.call("skills_play", {"name": NAME, "inputs": {"customer": "ACME"}})
    assert [s["name"] for s in listed] == [NAME]
    assert data(played)["status"] == "succeeded"
    assert [s["actionId"] for s in data(played)["steps"]] == ["a1", "a2", "a3", "a4", "a5"]
    assert session.stray == []
    assert VAULT[PIN_ENV] not in stderr.read_text()

    assert ok("revoke", NAME, "--expected-revision", "4", "--approve")["status"] == "revoked"
    assert not (enabled / ".agents" / "skills" / NAME).exists()
    async with mcp_session(skillreel_home, stderr, env=VAULT) as session:
        assert data(await session.call("skills_list"))["skills"] == []
        refused = await session.call("skills_play", {"name": NAME, "inputs": {"customer": "ACME"}})
    assert error(refused)["code"] == "SR_RECORD_STATE_INVALID"
