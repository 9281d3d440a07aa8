"""Semantic versions: the bump rule over two drafts, the version record an approval leaves, and that
entries written before versions existed keep their bytes and digests."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from skillreel.model import lifecycle
from skillreel.model.actions import Action, AssertAction, ClickAction, TypeAction
from skillreel.model.draft import Draft, Parameter
from skillreel.model.entry import StoreEntry
from skillreel.model.refs import ParameterRef
from skillreel.model.versions import LEGACY_VERSION, bumped, classify
from tests.support import factory
from tests.support.factory import REVIEWER, T1, T2, bundle, healed_draft, proposal_for, report_for


def with_actions(
    draft: Draft, actions: tuple[Action, ...], parameters: tuple[Parameter, ...] | None = None
) -> Draft:
    from skillreel.model.actions import capability_manifest

    params = parameters if parameters is not None else draft.parameters
    return draft.evolve(actions=actions, capabilities=capability_manifest(actions), parameters=params)


def test_bumps_count_up_and_reset_the_lower_parts() -> None:
    assert bumped(None, "initial") == "1.0.0"
    assert bumped("1.4.2", "major") == "2.0.0"
    assert bumped("1.4.2", "minor") == "1.5.0"
    assert bumped("1.4.2", "patch") == "1.4.3"


def test_the_first_approval_is_1_0_0() -> None:
    assert classify(None, factory.draft()).bump == "initial"


def test_a_locator_change_is_a_patch() -> None:
    base = factory.draft()
    change = classify(base, healed_draft(base))
    assert change.bump == "patch"
    assert change.reasons == ("step a4: locators changed",)


def test_a_fingerprint_only_change_is_a_patch() -> None:
    base = factory.draft()
    go = bundle("#go", tag="button", type_="submit")
    moved = go.model_copy(update={"fingerprint": go.fingerprint.model_copy(update={"sibling_count": 2})})
    actions = tuple(a.model_copy(update={"target": moved}) if a.id == "a4" else a for a in base.actions)
    change = classify(base, with_actions(base, actions))
    assert change.bump == "patch"
    assert change.reasons == ("step a4: fingerprint changed",)


def test_an_optional_input_or_a_new_step_is_minor() -> None:
    base = factory.draft()
    added = (*base.actions, TypeAction(id="a5", target=bundle("#note"), value=ParameterRef(name="note")))
    optional = (*base.parameters, Parameter(name="note", required=False))
    change = classify(base, with_actions(base, added, optional))
    assert change.bump == "minor"
    assert "optional input note added" in change.reasons
    assert "step a5 added" in change.reasons
    check = (*base.actions, AssertAction(id="a5", check="url_matches", expected="*"))
    assert classify(base, with_actions(base, check)).bump == "minor"


@pytest.mark.parametrize(
    ("parameters", "reason"),
    [
        ((Parameter(name="query", required=True, sensitive=True),), "input query became sensitive"),
        (
            (Parameter(name="query"), Parameter(name="note", required=True)),
            "required input note added",
        ),
    ],
)
def test_an_incompatible_input_change_is_major(parameters: tuple[Parameter, ...], reason: str) -> None:
    base = factory.draft()
    actions = base.actions
    if any(p.name == "note" for p in parameters):
        actions = (*actions, TypeAction(id="a5", target=bundle("#note"), value=ParameterRef(name="note")))
    change = classify(base, with_actions(base, actions, parameters))
    assert change.bump == "major"
    assert reason in change.reasons


def test_removing_an_input_is_major_and_making_it_optional_minor() -> None:
    base = factory.draft()
    no_query = tuple(a for a in base.actions if a.id != "a2")
    assert classify(base, with_actions(base, no_query, ())).reasons[0] == "input query removed"
    optional = (Parameter(name="query", required=False),)
    change = classify(base, with_actions(base, base.actions, optional))
    assert (change.bump, change.reasons) == ("minor", ("input query became optional",))


def test_the_same_draft_approved_again_is_a_patch() -> None:
    base = factory.draft()
    assert classify(base, base) == type(classify(base, base))("patch", ("approved again without a change",))


def test_an_approval_carries_its_version_and_provenance() -> None:
    first = lifecycle.stamp_version(lifecycle.approve(factory.entry(), REVIEWER, T1), None, factory.entry())
    assert first.version == "1.0.0"
    (record,) = first.versions
    assert (record.bump, record.source, record.revision, record.reviewer) == (
        "initial",
        "review",
        2,
        REVIEWER,
    )
    assert record.draft_digest == first.draft.draft_digest


def test_an_adopted_heal_is_a_patch_with_its_history() -> None:
    entry = factory.entry()
    v1 = lifecycle.stamp_version(lifecycle.approve(entry, REVIEWER, T1), None, entry)
    validated = lifecycle.validate(v1, report_for(v1, T1), T1)
    proposal = proposal_for(validated)  # a row of the store, handed to the review
    accepted = lifecycle.accept_heal(validated, "bob", T2, proposal)
    healed = lifecycle.stamp_version(
        accepted, lifecycle.Released("1.0.0", validated.draft), validated, proposal
    )
    assert healed.version == "1.0.1"
    record = healed.versions[-1]
    assert (record.bump, record.source, record.reviewer) == ("patch", "heal", "bob")
    assert [(h.step, h.changed) for h in record.healed] == [("a4", ("locators",))]
    assert record.proposed_by == proposal.report_digest
    assert [r.version for r in healed.versions] == ["1.0.0", "1.0.1"]


def test_a_base_that_is_not_kept_counts_as_major() -> None:
    entry = factory.entry()
    stamped = lifecycle.stamp_version(
        lifecycle.approve(entry, REVIEWER, T1), lifecycle.Released("2.3.1", None), entry
    )
    assert stamped.version == "3.0.0"
    assert stamped.versions[-1].bump == "major"


def test_an_entry_without_versions_keeps_its_bytes_and_counts_as_1_0_0() -> None:
    approved = lifecycle.approve(factory.entry(), REVIEWER, T1)
    assert "versions" not in approved.to_json()
    assert "origin" not in approved.to_json()
    assert approved.version == LEGACY_VERSION
    assert factory.entry().version is None
    assert StoreEntry.parse(approved.to_json()) == approved


def test_versions_must_increase_and_match_the_approved_draft() -> None:
    entry = factory.entry()
    stamped = lifecycle.stamp_version(lifecycle.approve(entry, REVIEWER, T1), None, entry)
    record = stamped.versions[0]
    with pytest.raises(ValidationError, match="versions must increase"):
        stamped.evolve(versions=(record, record))
    other = record.model_copy(update={"draft_digest": factory.draft(description="Other.").draft_digest})
    with pytest.raises(ValidationError, match="not for its draft"):
        stamped.evolve(versions=(other,))


def test_a_rollback_is_a_new_draft_that_remembers_its_origin() -> None:
    entry = factory.entry()
    v1 = lifecycle.stamp_version(lifecycle.approve(entry, REVIEWER, T1), None, entry)
    changed = factory.draft(description="Search invoices by customer, again.")
    redraft = lifecycle.replace_draft(v1, changed, v1.events, T1)
    v2 = lifecycle.stamp_version(
        lifecycle.approve(redraft, REVIEWER, T1), lifecycle.Released("1.0.0", v1.draft), redraft
    )
    assert v2.version == "1.0.1"
    back = lifecycle.rollback(v2, v1, T2)
    assert (back.status, back.draft, back.revision) == ("draft", v1.draft, v2.revision + 1)
    assert back.origin is not None
    assert (back.origin.revision, back.origin.version) == (v1.revision, "1.0.0")
    approved = lifecycle.stamp_version(
        lifecycle.approve(back, REVIEWER, T2), lifecycle.Released("1.0.1", v2.draft), back
    )
    assert approved.origin is None
    record = approved.versions[-1]
    assert (record.version, record.source, record.rolled_back_from) == ("1.0.2", "rollback", v1.revision)


def test_a_rollback_to_the_same_draft_or_a_later_revision_is_refused() -> None:
    from skillreel.errors import LifecycleError

    entry = factory.entry()
    v1 = lifecycle.approve(entry, REVIEWER, T1)
    with pytest.raises(LifecycleError) as same:
        lifecycle.rollback(v1, entry, T2)
    assert same.value.code == "SR_RECORD_STATE_INVALID"
    with pytest.raises(LifecycleError) as later:
        lifecycle.rollback(entry, v1, T2)
    assert later.value.code == "SR_RECORD_REVISION_NOT_FOUND"
    enabled = factory.advance(factory.entry(), "enabled")
    with pytest.raises(LifecycleError) as state:
        lifecycle.rollback(enabled, entry, T2)
    assert state.value.code == "SR_RECORD_STATE_INVALID"


def test_click_target_change_on_another_kind_is_minor() -> None:
    base = factory.draft()
    actions = tuple(ClickAction(id="a3", target=bundle("#q")) if a.id == "a3" else a for a in base.actions)
    change = classify(base, with_actions(base, actions))
    assert change.bump == "minor"
    assert change.reasons[0].startswith("step a3: policy")


# ---- schema v2: typed inputs, outputs, nested steps, intents -----------------------------------


def invoices(
    *,
    q: Parameter | None = None,
    total_type: str = "number",
    intent: str | None = None,
    row_selector: str = ":scope td.status",
    extra_output: bool = False,
) -> Draft:
    """A v2 draft: type q, a loop over rows reading each row's status, the total as an output."""
    from skillreel.model.actions import ExtractAction, LoopAction

    body: tuple[Action, ...] = (
        ExtractAction(id="a4", output="status", target=factory.target(row_selector, within="item")),
    )
    actions: list[Action] = [
        TypeAction(id="a1", target=bundle("#q"), value=ParameterRef(name="q")),
        LoopAction(id="a3", items=factory.element_set(), limit=10, body=body, collect="rows", intent=intent),
        ExtractAction(id="a5", output="total", target=factory.target("#total"), type=total_type),  # type: ignore[arg-type]
    ]
    if extra_output:
        actions.append(ExtractAction(id="a6", output="count", read="count", items=factory.element_set()))
    return factory.graph_draft(actions, parameters=(q or Parameter(name="q", type="string"),))


def test_v2_changes_bump_as_a_caller_would_feel_them() -> None:
    base = invoices()
    retyped = classify(base, invoices(total_type="integer"))
    assert (retyped.bump, retyped.reasons[0]) == ("major", "output total changed type")
    assert classify(base, invoices(extra_output=True)).bump == "minor"
    assert classify(invoices(extra_output=True), base).reasons[0] == "output count removed"
    input_retyped = classify(base, invoices(q=Parameter(name="q", type="integer")))
    assert (input_retyped.bump, input_retyped.reasons[0]) == ("major", "input q changed type")
    enum = Parameter(name="q", type="enum", values=("a", "b"))
    fewer = classify(invoices(q=enum), invoices(q=Parameter(name="q", type="enum", values=("a",))))
    assert (fewer.bump, fewer.reasons[0]) == ("major", "input q allows fewer values")
    more = classify(invoices(q=enum), invoices(q=Parameter(name="q", type="enum", values=("a", "b", "c"))))
    assert (more.bump, more.reasons[0]) == ("minor", "input q allows more values")


def test_a_step_inside_a_loop_is_compared_and_an_intent_alone_is_a_patch() -> None:
    from skillreel.model.diff import diff_drafts

    base = invoices()
    moved = diff_drafts(base, invoices(row_selector=":scope td.state"))
    assert [(s.path, s.change, s.categories) for s in moved.steps] == [
        (("a3", "a4"), "changed", ("locators",))
    ]
    assert classify(base, invoices(row_selector=":scope td.state")).bump == "patch"
    worded = classify(base, invoices(intent="approve every open invoice"))
    assert (worded.bump, worded.reasons) == ("patch", ("step a3: intent changed",))
