"""``diff`` aligned by what steps do (issue 32 point 6): a re-recording renumbers its steps, and a
step inserted in the middle is one ``added`` with every other step unchanged; a removed step is one
``removed``; a replaced target is one ``changed`` step showing its old and new description; inside a
loop the same holds. On main (steps matched by id) each of these showed every later step changed."""

from __future__ import annotations

from skillreel.model.actions import Action, ClickAction, LoopAction, NavigateAction, TypeAction
from skillreel.model.diff import diff_drafts
from skillreel.model.draft import Draft
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate
from skillreel.model.refs import ParameterRef
from skillreel.model.step_align import align, same_step
from tests.support.factory import bundle, element_set, graph_draft, target

SALT_HASH = "0123456789abcdef"


def _steps(*specs: tuple[str, str]) -> tuple[Action, ...]:
    """Steps numbered a1, a2... as a recording numbers them: ("type", "#q") or ("click", "#go")."""
    out: list[Action] = [NavigateAction(id="a1", url="https://shop.example/")]
    for n, (kind, selector) in enumerate(specs, start=2):
        if kind == "type":
            field = selector.lstrip("#")
            out.append(TypeAction(id=f"a{n}", target=bundle(selector), value=ParameterRef(name=field)))
        else:
            out.append(ClickAction(id=f"a{n}", target=bundle(selector, tag="button", type_="submit")))
    return tuple(out)


def _draft(actions: tuple[Action, ...]) -> Draft:
    return graph_draft(actions, name="checkout")


FORM = (("type", "#name"), ("type", "#street"), ("type", "#city"), ("click", "#next"), ("click", "#pay"))


def test_a_step_inserted_in_the_middle_is_one_added_and_the_rest_unchanged() -> None:
    before = _draft(_steps(*FORM))
    after = _draft(_steps(*FORM[:2], ("type", "#zip"), *FORM[2:]))  # a4..a6 renumbered a5..a7

    diff = diff_drafts(before, after)

    assert [(s.id, s.change, s.kind) for s in diff.steps] == [("a4", "added", "type")]
    assert diff.unchanged == 6


def test_a_removed_step_is_one_removed_where_it_stood() -> None:
    before = _draft(_steps(*FORM))
    after = _draft(_steps(FORM[0], *FORM[2:]))

    diff = diff_drafts(before, after)

    assert [(s.id, s.change, s.position) for s in diff.steps] == [("a3", "removed", (2, None))]
    assert diff.unchanged == 5


def test_a_replaced_target_shows_its_old_and_new_description() -> None:
    before = _draft(_steps(*FORM))
    after = _draft(_steps(*FORM[:3], ("click", "#continue"), *FORM[4:]))

    (step,) = diff_drafts(before, after).steps

    assert (step.id, step.change, step.categories) == ("a5", "changed", ("locators",))
    by_field = {c.field: c for c in step.changes}
    assert by_field["target.candidates"].before == ["id #next"]
    assert by_field["target.description"].before == ["the button `#next`"]
    assert by_field["target.description"].after == ["the button `#continue`"]


def test_a_step_matched_under_another_id_says_where_it_was() -> None:
    before = _draft(_steps(*FORM))
    shifted = list(_steps(("type", "#zip"), *FORM))  # a2 inserted: #city is a5 now, was a4
    city = shifted[4]
    assert isinstance(city, TypeAction)
    shifted[4] = city.model_copy(update={"value": ParameterRef(name="town")})  # its input renamed

    steps = diff_drafts(before, _draft(tuple(shifted))).steps

    assert [(s.id, s.change, s.categories) for s in steps] == [
        ("a2", "added", ()),
        ("a5", "changed", ("parameter",)),
    ]
    assert steps[1].to_json()["previousPath"] == ["a4"]
    assert "previousPath" not in steps[0].to_json()


def test_inside_a_loop_an_inserted_step_is_one_added() -> None:
    def loop(body: tuple[Action, ...]) -> tuple[Action, ...]:
        return (
            NavigateAction(id="a1", url="https://shop.example/orders"),
            LoopAction(id="a2", items=element_set(), limit=10, body=body),
        )

    open_row = ClickAction(id="a3", target=target("a.open", tag="a", within="item"))
    refund = ClickAction(id="a4", target=target("button.refund", tag="button", within="item"))
    note = ClickAction(id="a4", target=target("button.note", tag="button", within="item"))
    before = _draft(loop((open_row, refund)))
    after = _draft(loop((open_row, note, refund.model_copy(update={"id": "a5"}))))

    diff = diff_drafts(before, after)

    assert [(s.path, s.change) for s in diff.steps] == [(("a2", "a4"), "added")]
    assert diff.unchanged == 4


def test_salted_candidates_match_only_under_the_same_salt() -> None:
    def named(selector: str) -> LocatorBundle:
        return LocatorBundle(
            candidates=(
                LocatorCandidate(
                    strategy="role-name", selector=f"role=button name={SALT_HASH}", match_count=1
                ),
                LocatorCandidate(strategy="css", selector=selector, match_count=1),
            ),
            fingerprint=Fingerprint(tag="button", role="button"),
        )

    a, b = (
        ClickAction(id="a2", target=named("main > button")),
        ClickAction(id="a9", target=named("form > button")),
    )

    assert same_step(a, b, hashed=True)
    assert not same_step(a, b, hashed=False)
    rows = align([a], [b], hashed=False)
    assert [(r.old, r.new, r.how) for r in rows] == [(0, 0, "paired")]
