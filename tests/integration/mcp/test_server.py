"""`skillreel mcp` as a real subprocess, driven by the official SDK's stdio client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from skillreel.services.agent_access import confirm_enabled_skill
from skillreel.services.packaging import enable_skill
from skillreel.store import Store
from tests.integration.mcp.client import data, error, mcp_session
from tests.support import factory
from tests.support.factory import store_entry

pytestmark = pytest.mark.slow  # an MCP server subprocess per test

NAME = "search-invoices"
SECRET_NAME = "sign-in"
FIXTURE_NAME = "offline-form"


@pytest.fixture
def stderr_path(tmp_path: Path) -> Path:
    return tmp_path / "server-stderr.log"


@pytest.fixture
def skills(skillreel_home: Path, project_dir: Path) -> None:
    """Enabled: a skill, one with a sensitive parameter, one on an HTML fixture; one only validated."""
    site = factory.url_environment("http://127.0.0.1:9/app")  # never started: nothing here is played
    with Store.open() as store:
        kinds: tuple[tuple[str, dict[str, Any]], ...] = (
            (NAME, {}),
            (SECRET_NAME, {"sensitive": True}),
            (FIXTURE_NAME, {"environment": None}),
        )
        for name, kw in kinds:
            store_entry(store, factory.entry(name, **{"environment": site, **kw}))
            enable_skill(
                store, name, "project", project_dir, approve=True, expected_revision=store.get(name).revision
            )
            confirm_enabled_skill(store, name, approve=True)  # a person confirmed agent plays
        store_entry(store, factory.entry("not-enabled-yet", environment=site))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_tools_are_list_and_play_with_honest_annotations(
    skillreel_home: Path, stderr_path: Path, mode: str
) -> None:
    async with mcp_session(skillreel_home, stderr_path, mode=mode) as session:
        tools = {t.name: t for t in (await session.client.list_tools()).tools}
    assert set(tools) == {"skills_list", "skills_play"}  # nothing records, edits, approves or enables
    listing, play = tools["skills_list"].annotations, tools["skills_play"].annotations
    assert listing is not None
    assert play is not None
    assert listing.read_only_hint is True
    assert listing.open_world_hint is False
    assert play.read_only_hint is False
    assert play.open_world_hint is True
    assert play.destructive_hint is True
    schema = tools["skills_play"].input_schema
    assert set(schema["properties"]) == {"name", "inputs", "environment"}  # environment: optional
    assert schema["required"] == ["name"]
    assert session.stray == []


async def test_list_shows_enabled_skills_only_with_parameters_and_revision(
    skills: None, skillreel_home: Path, stderr_path: Path
) -> None:
    async with mcp_session(skillreel_home, stderr_path) as session:
        result = await session.call("skills_list")
    assert not result.is_error
    listed = {s["name"]: s for s in data(result)["skills"]}
    assert set(listed) == {NAME, SECRET_NAME, FIXTURE_NAME}
    assert listed[NAME]["target"] == {
        "kind": "url",
        "origin": "http://127.0.0.1:9",
        "allowedOrigins": ["http://127.0.0.1:9"],
    }
    assert listed[NAME]["playable"] is True
    assert listed[FIXTURE_NAME]["playable"] is False
    assert listed[NAME]["revision"] == 4
    assert listed[NAME]["description"] == "Search invoices by customer."
    assert listed[NAME]["parameters"] == [{"name": "query", "required": True, "sensitive": False}]
    assert listed[SECRET_NAME]["parameters"] == [
        {"name": "query", "required": True, "sensitive": True, "env": "SKILLREEL_SECRET_SIGN_IN_QUERY"}
    ]
    assert "selector" not in str(listed)
    assert "candidates" not in str(listed)
    assert session.stray == []


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("not-enabled-yet", "SR_RECORD_STATE_INVALID"),
        (FIXTURE_NAME, "SR_RECORD_TARGET_INVALID"),
        ("no-such-skill", "SR_RECORD_NOT_FOUND"),
        ("Not_A_Name", "SR_RECORD_NAME_INVALID"),
    ],
)
async def test_only_enabled_skills_are_playable(
    skills: None, skillreel_home: Path, stderr_path: Path, name: str, code: str
) -> None:
    async with mcp_session(skillreel_home, stderr_path) as session:
        result = await session.call("skills_play", {"name": name, "inputs": {"query": "x"}})
    assert result.is_error
    assert data(result)["status"] == "failed"
    assert error(result)["code"] == code
    assert session.stray == []


async def test_a_sensitive_value_from_the_model_is_refused_and_never_echoed(
    skills: None, skillreel_home: Path, stderr_path: Path
) -> None:
    async with mcp_session(skillreel_home, stderr_path, answer=lambda _: pytest.fail("asked")) as session:
        result = await session.call(
            "skills_play", {"name": SECRET_NAME, "inputs": {"query": "hunter2-secret"}}
        )
    assert result.is_error
    refusal = error(result)
    assert refusal["code"] == "SR_MCP_SENSITIVE_INPUT"  # MCP's own code: no argv, no command line
    assert "command line" not in refusal["message"] + refusal["fix"]
    assert "hunter2-secret" not in str(result.model_dump())
    assert "hunter2-secret" not in stderr_path.read_text()
    assert session.elicited == []


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_missing_sensitive_value_fails_closed_when_the_client_cannot_ask(
    skills: None, skillreel_home: Path, stderr_path: Path, mode: str
) -> None:
    async with mcp_session(skillreel_home, stderr_path, mode=mode) as session:
        result = await session.call("skills_play", {"name": SECRET_NAME})
    assert result.is_error
    refusal = error(result)
    assert refusal["code"] == "SR_REPLAY_SECRET_MISSING"
    assert "SKILLREEL_SECRET_SIGN_IN_QUERY" in refusal["message"]


@pytest.mark.parametrize("action", ["decline", "cancel"])
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_missing_sensitive_value_is_asked_of_the_user_who_may_decline(
    skills: None, skillreel_home: Path, stderr_path: Path, mode: str, action: str
) -> None:
    def answer(_: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action=action)

    async with mcp_session(skillreel_home, stderr_path, answer=answer, mode=mode) as session:
        result = await session.call("skills_play", {"name": SECRET_NAME})
    assert result.is_error
    assert error(result)["code"] == "SR_REPLAY_SECRET_MISSING"
    assert len(session.elicited) == 1
    question = session.elicited[0]
    assert isinstance(question, types.ElicitRequestFormParams)
    assert "query" in question.message
    assert "SKILLREEL_SECRET_SIGN_IN_QUERY" in question.message
    assert list(question.requested_schema["properties"]) == ["query"]
    assert question.requested_schema["required"] == ["query"]


PLANTED = "planted-secret-7q"


@pytest.mark.parametrize(
    ("arguments", "argument", "kind"),
    [
        ({"name": 4242, "inputs": {"query": PLANTED}}, "name", "string_type"),
        # inputs are typed JSON scalars (schema v2): a list is of no input's type
        ({"name": NAME, "inputs": {"query": [17], "other": PLANTED}}, "inputs", "string_type"),
        ({"name": NAME, "inputs": PLANTED}, "inputs", "dict_type"),
        ({"name": [PLANTED], "inputs": {}}, "name", "string_type"),
        ({"inputs": {"query": PLANTED}}, "name", "missing"),
        ({"name": PLANTED * 10}, "name", "string_too_long"),
    ],
)
async def test_arguments_of_the_wrong_type_get_a_code_and_never_an_echo(
    skills: None,
    skillreel_home: Path,
    stderr_path: Path,
    arguments: dict[str, Any],
    argument: str,
    kind: str,
) -> None:
    """The SDK's own validation message quotes the rejected values (``input_value=...``); a model may
    have put a secret there. The server answers with the envelope and an SR_* code instead."""
    async with mcp_session(skillreel_home, stderr_path) as session:
        result = await session.call("skills_play", arguments)
    assert result.is_error
    refusal = error(result)
    assert refusal["code"] == "SR_RECORD_TOOL_ARGUMENTS_INVALID"
    assert argument in refusal["message"]
    assert kind in refusal["message"]
    dumped = str(result.model_dump())
    assert PLANTED not in dumped
    assert "4242" not in dumped
    assert PLANTED not in stderr_path.read_text()
    assert session.stray == []
