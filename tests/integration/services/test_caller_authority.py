"""Per-caller authority (issue 30.5): the policy's ``callers.mcp`` narrows what MCP may play (skills,
capabilities, a rate counted from the store's runs), never what the command line may."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillreel.errors import SkillreelError
from skillreel.model.policy import Policy, PolicySettings
from skillreel.services.agent_access import check_play, client_label, enabled_skills
from skillreel.services.packaging import enable_skill
from skillreel.services.preflight import ReplayRequest, preflight
from skillreel.services.runs import reserve_run
from skillreel.services.store_policy import set_policy
from skillreel.store import Store
from tests.support import factory
from tests.support.factory import store_entry
from tests.support.readback import assert_owner_only

SITE = "http://127.0.0.1:9/app"  # never started: nothing here is played
NOW = "2026-03-04T05:06:30Z"


class NoVault:
    def get(self, skill: str, param: str) -> str | None:
        return None


def policy(**mcp: object) -> Policy:
    return Policy.from_settings(PolicySettings.model_validate_json(json.dumps({"callers": {"mcp": mcp}})))


@pytest.fixture
def home(skillreel_home: Path, project_dir: Path) -> Iterator[Path]:
    """Enabled: ``find-invoices`` and ``pay-invoice`` (both click, type and navigate)."""
    with Store.open() as store:
        for name in ("find-invoices", "pay-invoice"):
            store_entry(store, factory.entry(name, environment=factory.url_environment(SITE)))
            enable_skill(
                store, name, "project", project_dir, approve=True, expected_revision=store.get(name).revision
            )
    yield skillreel_home
    assert_owner_only(skillreel_home)


def opened(actor: str = "mcp", now: str = NOW, client: str | None = None) -> Store:
    return Store.open(actor=actor, clock=lambda: now, client=client)  # type: ignore[arg-type]


def refusal(store: Store, name: str) -> SkillreelError:
    with pytest.raises(SkillreelError) as info:
        check_play(store, name, {"query": "x"}, NoVault())
    return info.value


def test_a_skill_the_policy_denies_to_mcp_is_refused_over_mcp_and_replayed_on_the_cli(home: Path) -> None:
    with opened() as store:
        store.set_policy(policy(allowedSkills=["find-*"]))
        check_play(store, "find-invoices", {"query": "x"}, NoVault())  # a glob that matches
        error = refusal(store, "pay-invoice")
    assert error.code == "SR_POLICY_CALLER_SKILL_DENIED"
    assert "callers.mcp.allowedSkills" in error.message
    assert error.details["rule"] == "allowedSkills"
    with opened(actor="cli") as store:  # the command line keeps the policy's own rules
        preflight(store, ReplayRequest(name="pay-invoice", inputs={"query": "x"}), NoVault())
    with opened() as store:  # and skills_list shows MCP only what it may play
        assert [s["name"] for s in enabled_skills(store).to_json()["skills"]] == ["find-invoices"]


def test_a_capability_the_policy_denies_to_mcp_is_refused(home: Path) -> None:
    with opened() as store:
        store.set_policy(policy(allowedCapabilities=["net.navigate", "ui.observe"]))
        error = refusal(store, "find-invoices")
    assert error.code == "SR_POLICY_CALLER_CAPABILITY_DENIED"
    assert error.details["denied"] == ["ui.interact"]


def test_the_rate_limit_refuses_the_play_after_the_nth_in_a_minute(home: Path) -> None:
    with opened() as store:
        store.set_policy(policy(playsPerMinute=2))
        for _ in range(2):  # N plays started by MCP: each passes the check, then is a run
            check = check_play(store, "find-invoices", {"query": "x"}, NoVault())
            reserve_run(store, check.entry)
        error = refusal(store, "find-invoices")  # the N+1th
        assert error.code == "SR_POLICY_CALLER_RATE_LIMITED"
        assert error.details["limit"] == 2
    with opened(actor="cli") as store:  # the CLI's plays are not MCP's...
        reserve_run(store, store.get("pay-invoice"))
    with opened(now="2026-03-04T05:07:29Z") as store:  # ...and 59 s later both MCP plays still count
        assert refusal(store, "pay-invoice").code == "SR_POLICY_CALLER_RATE_LIMITED"
    with opened(now="2026-03-04T05:07:30Z") as store:  # a minute after them, a play is allowed again
        check_play(store, "pay-invoice", {"query": "x"}, NoVault())


def test_a_run_records_the_mcp_client_by_its_cleaned_name(home: Path) -> None:
    with opened(client=client_label("claude\u202ecode\n")) as store:
        run = reserve_run(store, store.get("find-invoices"))
    assert (run.actor, run.client) == ("mcp", "claude_code")
    assert client_label("") is None
    assert client_label("\u202e") is None
    with opened(actor="cli") as store:
        cli_run = reserve_run(store, store.get("find-invoices"))
    assert cli_run.client is None
    assert "client" not in cli_run.to_json()  # a run without one keeps the wire form runs had


@pytest.mark.parametrize(
    "callers",
    [
        {"cli": {}},  # only MCP has rules of its own
        {"mcp": {"playsPerMinutes": 3}},  # unknown key
        {"mcp": {"playsPerMinute": 0}},
        {"mcp": {"allowedSkills": []}},
        {"mcp": {"allowedSkills": ["Pay_*"]}},
        {"mcp": {"allowedCapabilities": ["ui.observe", "net.navigate"]}},  # not sorted
    ],
)
def test_a_policy_file_with_bad_caller_rules_is_refused_and_changes_nothing(
    home: Path, tmp_path: Path, callers: dict[str, object]
) -> None:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"callers": callers}))
    with opened() as store:
        before = store.policy()
        with pytest.raises(SkillreelError) as info:
            set_policy(store, path, approve=True)
        assert info.value.exit_status == 2
        assert store.policy() == before


def test_caller_capabilities_may_only_narrow_the_policy(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text(
        json.dumps(
            {
                "allowedCapabilities": ["ui.observe"],
                "callers": {"mcp": {"allowedCapabilities": ["ui.interact"]}},
            }
        )
    )
    with opened() as store, pytest.raises(SkillreelError) as info:
        set_policy(store, path, approve=True)
    assert info.value.code == "SR_RECORD_INPUT_MALFORMED"
    assert "may only narrow" in info.value.message


def test_a_policy_without_callers_keeps_its_digest() -> None:
    assert "callers" not in Policy.default().to_json()
    assert policy(playsPerMinute=3).to_json()["callers"] == {"mcp": {"playsPerMinute": 3}}
