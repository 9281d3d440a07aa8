"""A skill's last side effect and the check after it (issue 33), over a real store: ``review``
approves a skill whose last click no check follows with a warning (``SR_RECORD_FINAL_CHECK_MISSING``),
``show`` flags the step, and under the policy's ``requireFinalCheck`` approval is refused with that
code and nothing changes. On main none of this existed (the approval said nothing)."""

from __future__ import annotations

import pytest

from skillreel.errors import SkillreelError
from skillreel.model import lifecycle
from skillreel.model.actions import Action, AssertAction, ClickAction, NavigateAction
from skillreel.model.policy import Policy, PolicySettings
from skillreel.services.reviewing import ReviewResult, review_skill
from skillreel.services.showing import show_skill
from skillreel.store import AuditNote, Store
from tests.support import factory

START = NavigateAction(id="a1", url="https://app.test/orders/1")
REFUND = ClickAction(id="a2", target=factory.target("#refund", tag="button"))
DONE = AssertAction(
    id="a3", check="text_contains", target=factory.target("#status", tag="p"), expected="Done"
)


def draft_of(store: Store, actions: list[Action]) -> None:
    draft = factory.graph_draft(actions, name="refund")
    store.insert(lifecycle.new_entry(draft, factory.events_log(), factory.T0), AuditNote(kind="record"))


def require_final_check(store: Store) -> None:
    wire = {k: v for k, v in store.policy().to_json().items() if k != "policyDigest"}
    store.set_policy(Policy.from_settings(PolicySettings.parse({**wire, "requireFinalCheck": True})))


def approve(store: Store) -> ReviewResult:
    return review_skill(store, "refund", "ana", approve=True, expected_revision=1)


def test_review_warns_and_show_flags_a_last_click_no_check_follows(store: Store) -> None:
    draft_of(store, [START, REFUND])
    assert show_skill(store, "refund").to_json()["uncheckedSideEffect"] == "a2"
    result = approve(store)
    warnings = [w.to_json() for w in result.warnings]
    assert [w["code"] for w in warnings] == ["SR_RECORD_FINAL_CHECK_MISSING"]
    assert "step a2 is the skill's last side effect" in warnings[0]["message"]
    assert store.get("refund").status == "approved"


def test_a_check_after_the_last_side_effect_silences_the_warning(store: Store) -> None:
    draft_of(store, [START, REFUND, DONE])
    assert show_skill(store, "refund").to_json()["uncheckedSideEffect"] is None
    assert approve(store).warnings == ()


def test_the_policy_refuses_to_approve_a_skill_without_a_final_check(store: Store) -> None:
    draft_of(store, [START, REFUND])
    require_final_check(store)
    with pytest.raises(SkillreelError) as err:
        approve(store)
    assert (err.value.code, err.value.exit_status) == ("SR_RECORD_FINAL_CHECK_MISSING", 1)
    assert err.value.details == {"name": "refund", "step": "a2"}
    assert (store.get("refund").status, store.get("refund").revision) == ("draft", 1)


def test_the_policy_approves_a_skill_whose_last_side_effect_is_checked(store: Store) -> None:
    draft_of(store, [START, REFUND, DONE])
    require_final_check(store)
    approve(store)
    assert store.get("refund").status == "approved"
