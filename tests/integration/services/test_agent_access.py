"""What a coding agent may list and play (``services.agent_access``), as functions over a temporary
store; tests/integration/mcp/ drives the same through the MCP server."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillreel.errors import SkillreelError
from skillreel.services.agent_access import check_play, enabled_skills
from skillreel.services.packaging import enable_skill
from skillreel.store import Store
from tests.support import factory
from tests.support.factory import store_entry

SITE = "http://127.0.0.1:9/app"  # never started: nothing here is played


class DictVault:
    def __init__(self, values: dict[tuple[str, str], str] | None = None) -> None:
        self.values = values or {}

    def get(self, skill: str, param: str) -> str | None:
        return self.values.get((skill, param))


@pytest.fixture
def skills(store: Store, project_dir: Path) -> Store:
    """Enabled: a skill, one with a sensitive parameter, one on an HTML fixture; one only validated."""
    site = factory.url_environment(SITE)
    for entry in (
        factory.entry("plain", environment=site),
        factory.entry("sign-in", environment=site, sensitive=True),
        factory.entry("offline-form"),
    ):
        stored = store_entry(store, entry)
        enable_skill(
            store, entry.name, "project", project_dir, approve=True, expected_revision=stored.revision
        )
    store_entry(store, factory.entry("not-enabled-yet", environment=site))
    return store


def test_only_enabled_skills_are_listed_with_metadata(skills: Store) -> None:
    listed = {s["name"]: s for s in enabled_skills(skills).to_json()["skills"]}
    assert set(listed) == {"plain", "sign-in", "offline-form"}
    assert (listed["plain"]["playable"], listed["offline-form"]["playable"]) == (True, False)
    assert "HTML fixture" in listed["offline-form"]["needs"]
    assert listed["sign-in"]["parameters"] == [
        {"name": "query", "required": True, "sensitive": True, "env": "SKILLREEL_SECRET_SIGN_IN_QUERY"}
    ]
    assert "selector" not in str(listed)


@pytest.mark.parametrize(
    ("name", "inputs", "code"),
    [
        ("not-enabled-yet", {"query": "x"}, "SR_RECORD_STATE_INVALID"),
        ("offline-form", {"query": "x"}, "SR_RECORD_TARGET_INVALID"),
        ("no-such-skill", {}, "SR_RECORD_NOT_FOUND"),
        ("Not_A_Name", {}, "SR_RECORD_NAME_INVALID"),
        ("sign-in", {"query": "hunter2-secret"}, "SR_MCP_SENSITIVE_INPUT"),  # not the CLI's argv code
        ("plain", {}, "SR_REPLAY_PARAMETER_MISSING"),  # the replay's own pre-flight
        ("plain", {"query": "x", "extra": "y"}, "SR_REPLAY_PARAMETER_UNKNOWN"),
    ],
)
def test_a_play_is_refused_before_anything_starts(
    skills: Store, name: str, inputs: dict[str, str], code: str
) -> None:
    with pytest.raises(SkillreelError) as info:
        check_play(skills, name, inputs, DictVault())
    assert info.value.code == code
    assert "hunter2-secret" not in info.value.message


def test_a_play_lists_the_sensitive_values_the_vault_lacks(skills: Store) -> None:
    check = check_play(skills, "sign-in", {}, DictVault())
    assert (check.entry.name, check.entry.status, check.missing) == ("sign-in", "enabled", ("query",))
    assert check_play(skills, "sign-in", {}, DictVault({("sign-in", "query"): "pw"})).missing == ()
    assert check_play(skills, "plain", {"query": "x"}, DictVault()).missing == ()
