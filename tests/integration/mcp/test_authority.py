"""Who may play what over MCP (issue 30.5-6), through a real `skillreel mcp` and real Chromium: the
policy's own rules for MCP, and the first play of each approved revision confirmed by a person
(MCP form elicitation, or `enable --confirm-agent-play` beforehand)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from skillreel.store import Store
from tests.integration.mcp.client import data, error, mcp_session
from tests.integration.mcp.live_skill import live_skill
from tests.support.cli import ok
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

NAME = "find-invoices"
PLAY = {"name": NAME, "inputs": {"customer": "ACME"}}


def confirmations(home: Path) -> list[Any]:
    with Store.open(home) as store:
        return [e for e in store.audit_events(NAME) if e.kind == "agent-play-confirmed"]


def runs(home: Path) -> int:
    with Store.open(home) as store:
        return store.run_count(NAME)


def accept(request: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"play": True})


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_first_play_asks_the_person_and_an_acceptance_plays_and_is_remembered(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path, mode: str
) -> None:
    url = await live_skill(server, NAME, project_dir, confirmed=False)
    async with mcp_session(skillreel_home, tmp_path / "stderr.log", answer=accept, mode=mode) as session:
        first = await session.call("skills_play", PLAY)
        second = await session.call("skills_play", {"name": NAME, "inputs": {"customer": "Initech"}})
    assert data(first)["status"] == data(second)["status"] == "succeeded", first.structured_content
    (question,) = session.elicited  # the second play of the same approved revision asks nothing
    assert isinstance(question, types.ElicitRequestFormParams)
    text = question.message
    assert f"'{NAME}'" in text
    assert "revision" in text
    assert f"Origins it may reach: {url.split('/invoices')[0]}" in text
    assert "Capabilities: net.navigate, ui.interact, ui.observe" in text
    for step in ("a1", "a2", "a4", "a5"):  # every step, by its readable intent
        assert f". {step}: " in text
    assert "/invoices" not in text  # an origin, never a URL path
    assert question.requested_schema["required"] == ["play"]
    (event,) = confirmations(skillreel_home)
    assert (event.actor, event.revision) == ("mcp", data(first)["revision"])
    with Store.open() as store:
        assert store.agent_play_confirmed(store.get(NAME))
        run = store.run(str(data(first)["runId"]))
    assert run is not None
    assert (run.record.actor, run.record.client) == ("mcp", "mcp")  # the SDK client's own name


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (types.ElicitResult(action="decline"), "declined"),
        (types.ElicitResult(action="cancel"), "cancelled"),
        (types.ElicitResult(action="accept", content={"play": False}), "did not tick"),
    ],
)
async def test_a_declined_confirmation_plays_nothing(
    server: LocalServer,
    skillreel_home: Path,
    project_dir: Path,
    tmp_path: Path,
    answer: types.ElicitResult,
    why: str,
) -> None:
    await live_skill(server, NAME, project_dir, confirmed=False)
    before = server.request_count()
    async with mcp_session(skillreel_home, tmp_path / "stderr.log", answer=lambda _: answer) as session:
        result = await session.call("skills_play", PLAY)
    assert error(result)["code"] == "SR_MCP_CONFIRMATION_REQUIRED"
    assert why in error(result)["message"]
    assert "--confirm-agent-play" in error(result)["message"]
    assert data(result)["steps"] == []
    assert len(session.elicited) == 1
    assert server.request_count() == before  # no browser went to the site
    assert runs(skillreel_home) == 0
    assert confirmations(skillreel_home) == []


async def test_a_client_that_cannot_ask_its_user_is_refused_with_the_code(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    await live_skill(server, NAME, project_dir, confirmed=False)
    before = server.request_count()
    async with mcp_session(skillreel_home, tmp_path / "stderr.log") as session:  # no elicitation
        result = await session.call("skills_play", PLAY)
    assert error(result)["code"] == "SR_MCP_CONFIRMATION_REQUIRED"
    assert "cannot ask" in error(result)["message"]
    assert server.request_count() == before
    assert runs(skillreel_home) == 0


async def test_a_play_confirmed_on_the_command_line_asks_nothing(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    await live_skill(server, NAME, project_dir, confirmed=False)
    # the skill is enabled already: the flag confirms only (and needs --approve like every change)
    confirmed = ok(skillreel_home, "enable", NAME, "--confirm-agent-play", "--approve")
    assert (confirmed["agentPlayConfirmed"], confirmed["new"]) == (True, True)
    (event,) = confirmations(skillreel_home)
    assert event.actor == "cli"

    def never(_: types.ElicitRequestParams) -> types.ElicitResult:
        raise AssertionError("a play the CLI confirmed asks nothing")

    async with mcp_session(skillreel_home, tmp_path / "stderr.log", answer=never) as session:
        result = await session.call("skills_play", PLAY)
    assert data(result)["status"] == "succeeded", result.structured_content
    assert session.elicited == []


async def test_a_skill_the_policy_denies_to_mcp_is_refused_over_mcp_and_plays_on_the_cli(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    await live_skill(server, NAME, project_dir)
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"callers": {"mcp": {"allowedSkills": ["export-*"]}}}))
    ok(skillreel_home, "policy", "set", str(policy), "--approve")
    before = server.request_count()
    async with mcp_session(skillreel_home, tmp_path / "stderr.log") as session:
        result = await session.call("skills_play", PLAY)
    assert error(result)["code"] == "SR_POLICY_CALLER_SKILL_DENIED"
    assert error(result)["details"] == {"caller": "mcp", "rule": "allowedSkills"}
    assert server.request_count() == before
    played = ok(skillreel_home, "replay", NAME, "--input", "customer=ACME")
    assert played["status"] == "succeeded"


async def test_the_play_after_the_rate_limit_is_refused_over_mcp(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    await live_skill(server, NAME, project_dir)
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"callers": {"mcp": {"playsPerMinute": 1}}}))
    ok(skillreel_home, "policy", "set", str(policy), "--approve")
    async with mcp_session(skillreel_home, tmp_path / "stderr.log") as session:
        first = await session.call("skills_play", PLAY)
        second = await session.call("skills_play", PLAY)
    assert data(first)["status"] == "succeeded", first.structured_content
    assert error(second)["code"] == "SR_POLICY_CALLER_RATE_LIMITED"
    assert runs(skillreel_home) == 1
