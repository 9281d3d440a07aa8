"""The lifecycle state machine (ARCHITECTURE section 4), one transition at a time.

Also the builders other governance tests use to reach every state through the model's own API
(``report_for``, ``installation``, ``proposal_for``, ``advance``).
"""

from __future__ import annotations

import pytest

from skillreel.errors import LifecycleError, ReplayError
from skillreel.model import lifecycle
from skillreel.model.canonical import bytes_digest, tagged_digest
from skillreel.model.draft import Draft
from skillreel.model.entry import HealProposal, Installation, StoreEntry, entry_problem
from skillreel.model.report import ReplayReport, StepResult
from tests import factory

T1 = "2026-01-03T00:00:00Z"
T2 = "2026-01-04T00:00:00Z"


def report_for(entry: StoreEntry, now: str = T1, *, healed: bool = False) -> ReplayReport:
    assert entry.approval is not None
    actions = entry.draft.actions
    steps = tuple(
        StepResult(
            action_id=a.id,
            healed=healed and i == len(actions) - 1,
            evidence_digest=tagged_digest("skillreel.evidence/v1", {"step": a.id}),
        )
        for i, a in enumerate(actions)
    )
    return ReplayReport.build(
        name=entry.name,
        draft_digest=entry.draft.draft_digest,
        approval_digest=entry.approval.approval_digest,
        environment_digest=entry.draft.environment.environment_digest,
        steps=steps,
        finished_at=now,
    )


def installation(now: str = T1, name: str = "search-invoices") -> Installation:
    return Installation(
        scope="project",
        paths=(f"/project/.agents/skills/{name}",),
        package_digest=bytes_digest("skillreel.package/v1", name.encode()),
        installed_at=now,
    )


def healed_draft(draft: Draft, selector: str = "#go-renamed") -> Draft:
    """The draft with action a4's locator replaced, as a heal would propose."""
    actions = tuple(
        a.model_copy(update={"target": factory.bundle(selector, tag="button", type_="submit")})
        if a.id == "a4"
        else a
        for a in draft.actions
    )
    fields = {n: getattr(draft, n) for n in Draft.model_fields if n not in ("draft_digest", "schema_")}
    return Draft.build(**{**fields, "actions": actions})


def proposal_for(entry: StoreEntry, now: str = T1, selector: str = "#go-renamed") -> HealProposal:
    report = report_for(entry, now, healed=True)
    return HealProposal(
        base_revision=entry.revision,
        base_draft_digest=entry.draft.draft_digest,
        draft=healed_draft(entry.draft, selector),
        healed_actions=("a4",),
        report_digest=report.report_digest,
        proposed_at=now,
    )


# The pure steps from a fresh draft to each state (the store tests apply them with store.update).
def step_approve(e: StoreEntry, now: str = T1) -> StoreEntry:
    return lifecycle.approve(e, "alice", now)


def step_replay(e: StoreEntry, now: str = T1) -> StoreEntry:
    return lifecycle.replay_succeeded(e, report_for(e, now), now)


def step_enable(e: StoreEntry, now: str = T1) -> StoreEntry:
    return lifecycle.enable(e, installation(now, e.name), now)


def step_revoke(e: StoreEntry, now: str = T1) -> StoreEntry:
    return lifecycle.revoke(e, now)


STEPS_TO = {
    "draft": (),
    "approved": (step_approve,),
    "validated": (step_approve, step_replay),
    "enabled": (step_approve, step_replay, step_enable),
    "revoked": (step_approve, step_replay, step_enable, step_revoke),
}


def advance(entry: StoreEntry, status: str, now: str = T1) -> StoreEntry:
    for step in STEPS_TO[status]:
        entry = step(entry, now)
    return entry


# --- tests -------------------------------------------------------------------------------------


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


def test_replaying_an_enabled_skill_keeps_its_installation() -> None:
    enabled = advance(factory.entry(), "enabled")
    again = lifecycle.replay_succeeded(enabled, report_for(enabled, T2), T2)
    assert again.status == "enabled"
    assert again.installation == enabled.installation


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


def test_a_heal_proposal_never_changes_the_approved_revision() -> None:
    validated = advance(factory.entry(), "validated")
    proposal = proposal_for(validated, T2)
    healed = lifecycle.replay_succeeded(validated, report_for(validated, T2, healed=True), T2, proposal)
    assert healed.draft == validated.draft
    assert healed.approval == validated.approval
    assert healed.heal_proposal == proposal


def test_accepting_a_heal_proposal_is_one_new_approved_revision() -> None:
    validated = advance(factory.entry(), "validated")
    proposal = proposal_for(validated, T2)
    healed = lifecycle.replay_succeeded(validated, report_for(validated, T2, healed=True), T2, proposal)
    accepted = lifecycle.accept_heal(healed, "bob", T2)
    assert accepted.revision == healed.revision + 1
    assert accepted.status == "approved"
    assert accepted.heal_proposal is None
    assert accepted.draft == proposal.draft
    assert accepted.approval is not None
    assert accepted.approval.reviewer == "bob"
    assert accepted.approval.matches(accepted.draft)


def test_accepting_needs_a_proposal_and_a_skill_that_is_not_enabled() -> None:
    with pytest.raises(LifecycleError):
        lifecycle.accept_heal(advance(factory.entry(), "validated"), "bob", T2)
    enabled = advance(factory.entry(), "enabled")
    proposed = lifecycle.replay_succeeded(enabled, report_for(enabled, T2), T2, proposal_for(enabled, T2))
    with pytest.raises(LifecycleError):
        lifecycle.accept_heal(proposed, "bob", T2)


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
    proposed = lifecycle.replay_succeeded(entry, report_for(entry, T2), T2, proposal_for(entry, T2))
    heal = [] if proposed.status == "enabled" else ["review --heal-proposal"]
    assert lifecycle.next_steps(proposed) == NEXT_STEPS[proposed.status] + heal


TRANSITIONS = {
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
