"""A person's confirmation of the first agent play (issue 30.6), as use cases over a temporary
store: remembered for exactly one approval, audited, asked again for a new approval, gone with
the skill. tests/integration/mcp/test_authority.py drives the same through MCP elicitation."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillreel.errors import SkillreelError
from skillreel.model import lifecycle
from skillreel.services.agent_access import (
    check_play,
    confirm_enabled_skill,
    confirmation_question,
    play_origins,
)
from skillreel.services.deleting import delete_skill
from skillreel.services.packaging import enable_skill, revoke_skill
from skillreel.store import Store
from tests.support import factory
from tests.support.cli import ok, refused
from tests.support.factory import store_entry

SITE = "http://127.0.0.1:9/app"


class NoVault:
    def get(self, skill: str, param: str) -> str | None:
        return None


@pytest.fixture
def enabled(store: Store, project_dir: Path) -> Store:
    store_entry(store, factory.entry("find-invoices", environment=factory.url_environment(SITE)))
    enable_skill(
        store,
        "find-invoices",
        "project",
        project_dir,
        approve=True,
        expected_revision=store.get("find-invoices").revision,
    )
    return store


def test_a_confirmation_needs_approve_and_is_remembered_for_that_approval(enabled: Store) -> None:
    assert not check_play(enabled, "find-invoices", {"query": "x"}, NoVault()).confirmed
    with pytest.raises(SkillreelError) as info:
        confirm_enabled_skill(enabled, "find-invoices", approve=False)
    assert info.value.code == "SR_RECORD_APPROVAL_REQUIRED"
    assert not enabled.agent_play_confirmed(enabled.get("find-invoices"))
    done = confirm_enabled_skill(enabled, "find-invoices", approve=True)
    again = confirm_enabled_skill(enabled, "find-invoices", approve=True)
    assert (done.new, again.new) == (True, False)
    entry = enabled.get("find-invoices")
    assert check_play(enabled, "find-invoices", {"query": "x"}, NoVault()).confirmed
    (event,) = [e for e in enabled.audit_events("find-invoices") if e.kind == "agent-play-confirmed"]
    assert event.actor == "cli"
    assert entry.approval is not None
    assert event.digests["approval"] == entry.approval.approval_digest
    assert entry.revision == done.revision  # a confirmation is no new revision of the skill


def test_a_new_approval_is_asked_about_again(enabled: Store) -> None:
    confirm_enabled_skill(enabled, "find-invoices", approve=True)
    entry = enabled.get("find-invoices")
    assert entry.approval is not None
    again = entry.approval.evolve(approved_at="2026-05-06T07:08:09Z")  # the same draft, approved anew
    reapproved = entry.evolve(status="approved", approval=again, last_report=None, installation=None)
    assert not enabled.agent_play_confirmed(reapproved)
    # a revoke (and enabling again) keeps the approval, and so the confirmation
    revoke_skill(
        enabled, "find-invoices", approve=True, expected_revision=enabled.get("find-invoices").revision
    )
    assert enabled.agent_play_confirmed(enabled.get("find-invoices"))


def test_a_confirmation_of_a_revision_that_changed_meanwhile_is_refused(enabled: Store) -> None:
    seen = enabled.get("find-invoices")
    revoke_skill(
        enabled, "find-invoices", approve=True, expected_revision=enabled.get("find-invoices").revision
    )
    with pytest.raises(SkillreelError) as info:
        enabled.confirm_agent_play(seen)
    assert info.value.code == "SR_RECORD_REVISION_CONFLICT"
    assert not enabled.agent_play_confirmed(seen)


def test_a_deleted_skill_forgets_its_confirmation(enabled: Store) -> None:
    confirm_enabled_skill(enabled, "find-invoices", approve=True)
    entry = enabled.get("find-invoices")
    revoke_skill(
        enabled, "find-invoices", approve=True, expected_revision=enabled.get("find-invoices").revision
    )
    delete_skill(
        enabled, "find-invoices", approve=True, expected_revision=enabled.get("find-invoices").revision
    )
    assert not enabled.agent_play_confirmed(entry)


def test_the_question_lists_every_step_its_origins_and_capabilities_and_no_content(store: Store) -> None:
    entry = lifecycle.new_entry(
        factory.build_draft(
            "pay",
            factory.url_environment("http://127.0.0.1:9/pay?token=abc", origins=("http://127.0.0.1:10",)),
            factory.entry("pay").draft.actions,
        ),
        factory.events_log(),
        factory.T0,
    )
    text = confirmation_question(entry)
    assert play_origins(entry) == ("http://127.0.0.1:9", "http://127.0.0.1:10")
    assert "Origins it may reach: http://127.0.0.1:9, http://127.0.0.1:10" in text
    assert "token" not in text
    assert "/pay" not in text
    for action in entry.draft.walk():
        assert f". {action.id}: " in text
    assert f"Capabilities: {', '.join(entry.draft.capabilities)}" in text


def test_enable_confirm_agent_play_on_the_command_line(skillreel_home: Path, project_dir: Path) -> None:
    with Store.open() as store:
        store_entry(store, factory.entry("find-invoices", environment=factory.url_environment(SITE)))
        revision = str(store.get("find-invoices").revision)
    args = (
        "enable",
        "find-invoices",
        "--expected-revision",
        revision,
        "--confirm-agent-play",
        "--project-dir",
        str(project_dir),
    )
    refused(skillreel_home, *args, code="SR_RECORD_APPROVAL_REQUIRED")
    with Store.open() as store:
        entry = store.get("find-invoices")
        assert (entry.status, store.agent_play_confirmed(entry)) == ("validated", False)
    enabled = ok(skillreel_home, *args, "--approve")
    assert (enabled["status"], enabled["agentPlayConfirmed"]) == ("enabled", True)
    with Store.open() as store:
        assert store.agent_play_confirmed(store.get("find-invoices"))
