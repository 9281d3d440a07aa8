"""The step-level diff of two drafts (pure): steps matched by id, each change in its category."""

from __future__ import annotations

from skillreel.model.actions import (
    Action,
    AssertAction,
    ClickAction,
    ObserveAction,
    PressAction,
    TypeAction,
    capability_manifest,
)
from skillreel.model.diff import diff_drafts, fingerprint_changes, walk_steps
from skillreel.model.draft import Draft, Parameter
from skillreel.model.environment import Viewport
from skillreel.model.locators import LocatorBundle, LocatorCandidate
from skillreel.model.refs import ParameterRef
from tests.support import factory
from tests.support.factory import bundle, healed_draft


def with_actions(draft: Draft, actions: tuple[Action, ...], **changes: object) -> Draft:
    return draft.evolve(actions=actions, capabilities=capability_manifest(actions), **changes)


def test_the_same_draft_has_no_change() -> None:
    diff = diff_drafts(factory.draft(), factory.draft())
    assert diff.empty
    assert diff.same_draft
    assert diff.unchanged == 4


def test_without_a_before_everything_is_added() -> None:
    diff = diff_drafts(None, factory.draft())
    assert [(s.id, s.change) for s in diff.steps] == [(i, "added") for i in ("a1", "a2", "a3", "a4")]
    assert [p.change for p in diff.parameters] == ["added"]


def test_a_heal_changes_only_locators() -> None:
    base = factory.draft()
    (step,) = diff_drafts(base, healed_draft(base)).steps
    assert (step.id, step.change, step.categories) == ("a4", "changed", ("locators",))
    assert step.changes[0].before == ["id #go"]
    assert step.changes[0].after == ["id #go-renamed"]


def test_fingerprint_changes_name_features_never_hashes() -> None:
    old = bundle("#go", tag="button", type_="submit").fingerprint
    new = old.model_copy(
        update={"attributes": {"id": "0" * 16}, "label_hash": "1" * 16, "parent_path": ("html", "body")}
    )
    names = fingerprint_changes(old, new)
    assert names == ["parentPath", "attributes.id", "label"]
    assert not any("0000" in n or "1111" in n for n in names)


def test_each_field_falls_in_its_category() -> None:
    base = factory.draft()
    actions = (
        base.actions[0],
        TypeAction(id="a2", target=bundle("#q"), value=ParameterRef(name="term")),
        PressAction(id="a3", key="Tab", target=bundle("#q")),
        ObserveAction(id="a4", target=bundle("#go", tag="button", type_="submit")),
        AssertAction(id="a5", check="text_contains", expected="x", target=bundle("#out")),
    )
    after = with_actions(base, actions, parameters=(Parameter(name="term"),))
    diff = diff_drafts(base, after)
    by_id = {s.id: s for s in diff.steps}
    assert by_id["a2"].categories == ("parameter",)
    assert (by_id["a2"].changes[0].before, by_id["a2"].changes[0].after) == ("query", "term")
    assert by_id["a3"].categories == ("action",)
    assert by_id["a4"].categories == ("policy",)
    assert {c.field for c in by_id["a4"].changes} == {"kind", "capability"}
    assert by_id["a5"].change == "added"
    assert [(p.name, p.change) for p in diff.parameters] == [("query", "removed"), ("term", "added")]
    assert diff.capabilities_added == ("ui.observe",)
    assert diff.capabilities_removed == ()


def test_an_assertion_change_is_an_assertion() -> None:
    check = AssertAction(id="a5", check="text_contains", expected="paid", target=bundle("#out"))
    base = factory.draft()
    before = with_actions(base, (*base.actions, check))
    after = with_actions(base, (*base.actions, check.model_copy(update={"expected": "due"})))
    (step,) = diff_drafts(before, after).steps
    assert step.categories == ("assertion",)


def test_removed_and_moved_steps_are_placed_where_they_stood() -> None:
    base = factory.draft()
    a1, a2, _a3, a4 = base.actions
    after = with_actions(base, (a1, a4, a2))
    steps = diff_drafts(base, after).steps
    assert [(s.id, s.change) for s in steps] == [("a2", "moved"), ("a3", "removed")]


def test_environment_description_and_locator_order() -> None:
    base = factory.draft()
    env = base.environment.evolve(viewport=Viewport(width=800, height=600))
    after = base.evolve(environment=env, description="Another description.")
    diff = diff_drafts(base, after)
    assert diff.environment == ("viewport",)
    assert diff.description
    assert not diff.failure_conditions
    two = LocatorBundle(
        candidates=(
            LocatorCandidate(strategy="name", selector='[name="go"]', match_count=1),
            LocatorCandidate(strategy="id", selector="#go", match_count=1),
        ),
        fingerprint=bundle("#go", tag="button", type_="submit").fingerprint,
    )
    reordered = with_actions(base, (*base.actions[:3], ClickAction(id="a4", target=two)))
    (step,) = diff_drafts(base, reordered).steps
    assert step.categories == ("locators",)


def test_walk_steps_gives_every_step_its_path() -> None:
    assert [p for p, _ in walk_steps(factory.draft().actions)] == [("a1",), ("a2",), ("a3",), ("a4",)]


def test_declared_environments_and_session_are_environment_changes() -> None:
    base = factory.draft(environment=factory.url_environment())
    declared = base.evolve(environment=base.environment.evolve(environments=(factory.staging(),)))
    assert diff_drafts(base, declared).environment == ("environments",)
    signed_in = base.evolve(environment=base.environment.evolve(login="billing-login"))
    assert diff_drafts(base, signed_in).environment == ("session",)


def test_the_rows_a_target_chooses_among_are_locators() -> None:
    """A click bound to the row that shows an input (``bind-target``) shows which rows it chooses
    among, as candidates do (strategy and selector, never a hash)."""
    base = factory.draft()
    go = base.actions[3]
    assert isinstance(go, ClickAction)
    rowed = LocatorBundle.parse(
        {
            **go.target.to_json(),
            "filter": {"containsToken": {"ref": "parameter", "name": "query"}},
            "row": factory.element_set("tbody tr").to_json(),
        }
    )
    after = base.evolve(actions=(*base.actions[:3], go.model_copy(update={"target": rowed})))
    (step,) = diff_drafts(base, after).steps
    by_field = {c.field: c for c in step.changes}
    assert by_field["target.row"].category == "locators"
    assert (by_field["target.row"].before, by_field["target.row"].after) == ([], ["css tbody tr"])
    assert by_field["target.filter"].after == "query"
