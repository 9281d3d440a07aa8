"""The lifecycle state machine (ARCHITECTURE section 4), one transition at a time (the states
themselves are built by tests/support/factory.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from skillreel.errors import LifecycleError, ReplayError
from skillreel.model import lifecycle
from skillreel.model.entry import StoreEntry, entry_problem
from tests.support import factory
from tests.support.factory import (
    STEPS_TO,
    T1,
    T2,
    advance,
    proposal_for,
    report_for,
    step_approve,
    step_enable,
    step_revoke,
)


@pytest.mark.parametrize("status", list(STEPS_TO))
def test_every_state_is_reachable_and_consistent(status: str) -> None:
    entry = advance(factory.entry(), status)
    assert entry.status == status
    assert entry.revision == 1 + len(STEPS_TO[status])
    assert entry_problem(entry) is None
    assert StoreEntry.parse(entry.to_json()) == entry


def test_a_draft_is_approved_once() -> None:
    approved = step_approve(factory.entry())
    assert approved.approval is not None
    assert approved.approval.matches(approved.draft)
    with pytest.raises(LifecycleError) as err:
        lifecycle.approve(approved, "bob", T2)
    assert err.value.code == "SR_RECORD_STATE_INVALID"


def test_a_new_draft_revision_drops_the_old_approval() -> None:
    validated = advance(factory.entry(), "validated")
    redraft = factory.draft(description="Search invoices, again.")
    again = lifecycle.replace_draft(validated, redraft, validated.events, T2)
    assert (again.status, again.approval, again.last_report) == ("draft", None, None)
    assert again.revision == validated.revision + 1
    reapproved = lifecycle.approve(again, "alice", T2)
    assert reapproved.approval is not None
    assert validated.approval is not None
    assert reapproved.approval.approval_digest != validated.approval.approval_digest


@pytest.mark.parametrize("status", ["draft", "approved", "enabled"])
def test_only_validated_or_revoked_may_be_enabled(status: str) -> None:
    entry = advance(factory.entry(), status)
    with pytest.raises(LifecycleError) as err:
        step_enable(entry)
    assert err.value.code == "SR_RECORD_STATE_INVALID"


@pytest.mark.parametrize("status", ["draft", "approved", "validated", "revoked"])
def test_only_enabled_may_be_revoked(status: str) -> None:
    with pytest.raises(LifecycleError):
        step_revoke(advance(factory.entry(), status))


def test_a_draft_cannot_be_replayed() -> None:
    with pytest.raises(ReplayError) as err:
        lifecycle.ensure_replayable(factory.entry())
    assert err.value.code == "SR_REPLAY_NOT_APPROVED"


def test_only_an_approved_revision_is_validated_and_only_once() -> None:
    approved = advance(factory.entry(), "approved")
    validated = lifecycle.validate(approved, report_for(approved, T2), T2)
    assert (validated.status, validated.revision) == ("validated", approved.revision + 1)
    assert validated.last_report == report_for(approved, T2)
    assert lifecycle.validates(approved, approved.revision, approved.draft.draft_digest)
    assert not lifecycle.validates(validated, approved.revision, approved.draft.draft_digest)
    assert not lifecycle.validates(approved, approved.revision - 1, approved.draft.draft_digest)
    for status in ("validated", "enabled", "revoked"):  # a replay of these changes nothing
        later = advance(factory.entry(), status)
        with pytest.raises(LifecycleError) as err:
            lifecycle.validate(later, report_for(later, T2), T2)
        assert err.value.code == "SR_RECORD_STATE_INVALID"
        assert not lifecycle.validates(later, later.revision, later.draft.draft_digest)


def test_enabled_cannot_be_deleted_or_pruned() -> None:
    enabled = advance(factory.entry(), "enabled")
    with pytest.raises(LifecycleError):
        lifecycle.ensure_deletable(enabled)
    assert not lifecycle.is_expired(enabled, "2036-01-01T00:00:00Z", 1)
    revoked = step_revoke(enabled)
    lifecycle.ensure_deletable(revoked)
    assert lifecycle.is_expired(revoked, "2036-01-01T00:00:00Z", 1)
    assert not lifecycle.is_expired(revoked, T2, 90)


def test_stale_expected_revision_is_a_conflict() -> None:
    entry = factory.entry()
    lifecycle.check_revision(entry, None)
    lifecycle.check_revision(entry, 1)
    with pytest.raises(LifecycleError) as err:
        lifecycle.check_revision(entry, 2)
    assert err.value.code == "SR_RECORD_REVISION_CONFLICT"


def test_accepting_a_heal_proposal_is_one_new_approved_revision() -> None:
    validated = advance(factory.entry(), "validated")
    proposal = proposal_for(validated, T2)
    accepted = lifecycle.accept_heal(validated, "bob", T2, proposal)
    assert accepted.revision == validated.revision + 1
    assert accepted.status == "approved"
    assert accepted.heal_proposal is None
    assert accepted.draft == proposal.draft
    assert accepted.approval is not None
    assert accepted.approval.reviewer == "bob"
    assert accepted.approval.matches(accepted.draft)


def test_a_proposal_kept_in_the_entry_by_an_older_store_is_accepted_too() -> None:
    validated = advance(factory.entry(), "validated")
    proposal = proposal_for(validated, T2)
    legacy = factory.with_legacy_proposal(validated, proposal, T2)
    accepted = lifecycle.accept_heal(legacy, "bob", T2)
    assert (accepted.draft, accepted.heal_proposal) == (proposal.draft, None)


def test_accepting_needs_a_proposal_of_this_draft_and_a_skill_that_is_not_enabled() -> None:
    validated = advance(factory.entry(), "validated")
    with pytest.raises(LifecycleError):
        lifecycle.accept_heal(validated, "bob", T2)
    other = proposal_for(advance(factory.entry(description="Another draft."), "validated"), T2)
    with pytest.raises(LifecycleError):
        lifecycle.accept_heal(validated, "bob", T2, other)
    enabled = advance(factory.entry(), "enabled")
    with pytest.raises(LifecycleError):
        lifecycle.accept_heal(enabled, "bob", T2, proposal_for(enabled, T2))


def test_time_never_runs_backwards_in_an_entry() -> None:
    entry = factory.entry(now=T2)
    approved = lifecycle.approve(entry, "alice", T1)  # a clock behind the entry's last change
    assert approved.updated_at == T2


NEXT_STEPS = {
    "draft": ["review", "delete"],
    "approved": ["replay", "delete"],
    "validated": ["replay", "enable", "delete"],
    "enabled": ["replay", "revoke"],
    "revoked": ["replay", "enable", "delete"],
}


@pytest.mark.parametrize("status", list(NEXT_STEPS))
def test_next_steps_follow_the_lifecycle_table(status: str) -> None:
    entry = advance(factory.entry(), status)
    assert lifecycle.next_steps(entry) == NEXT_STEPS[status]
    if status == "draft":
        return
    heal = [] if entry.status == "enabled" else ["review --heal-proposal"]
    # A pending proposal can be rejected in every replayable state, enabled too (it changes nothing).
    heal.append("review --heal-proposal --reject")
    assert lifecycle.next_steps(entry, heal_pending=True) == NEXT_STEPS[entry.status] + heal
    legacy = factory.with_legacy_proposal(entry, proposal_for(entry, T2), T2)
    assert lifecycle.next_steps(legacy) == NEXT_STEPS[entry.status] + heal


TRANSITIONS: dict[str, Callable[[StoreEntry], object]] = {
    "review": step_approve,
    "replay": lifecycle.ensure_replayable,
    "enable": step_enable,
    "revoke": step_revoke,
    "delete": lifecycle.ensure_deletable,
}


@pytest.mark.parametrize("status", list(STEPS_TO))
@pytest.mark.parametrize("step", list(TRANSITIONS))
def test_every_transition_allows_exactly_the_states_of_the_table(status: str, step: str) -> None:
    entry = advance(factory.entry(), status)
    if status in lifecycle.ALLOWED[step]:
        TRANSITIONS[step](entry)
    else:
        with pytest.raises((LifecycleError, ReplayError)):
            TRANSITIONS[step](entry)
    redraft = factory.draft(description="Recorded again.")
    if status in lifecycle.NOT_ENABLED:
        lifecycle.replace_draft(entry, redraft, entry.events, T2)
        assert not lifecycle.is_expired(entry, T2, 90)
        assert lifecycle.is_expired(entry, "2036-01-01T00:00:00Z", 1)
    else:
        with pytest.raises(LifecycleError):
            lifecycle.replace_draft(entry, redraft, entry.events, T2)


def test_enabling_an_enabled_skill_says_so_and_an_approved_one_needs_a_replay() -> None:
    for status, why in (("enabled", "it is enabled already"), ("approved", "replay it successfully first")):
        with pytest.raises(LifecycleError) as err:
            step_enable(advance(factory.entry(), status))
        assert why in err.value.message
