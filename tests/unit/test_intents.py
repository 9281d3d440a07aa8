"""Step intents: one readable line per step from its kind, element and best locator, never page text."""

from __future__ import annotations

import pytest

from skillreel.model.actions import (
    Action,
    AssertAction,
    BranchAction,
    ClickAction,
    DialogAction,
    ExtractAction,
    HumanAction,
    LoopAction,
    NavigateAction,
    ObserveAction,
    PressAction,
    ScrollAction,
    SelectAction,
    TypeAction,
    WaitAction,
)
from skillreel.model.conditions import CompareCondition, PresentCondition
from skillreel.model.intents import generated_intent, step_intent
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate, text_hash
from skillreel.model.reads import FieldSpec
from skillreel.model.refs import ItemRef, LiteralValue, OutputRef, ParameterRef
from tests.support.factory import SALT, bundle, element_set, target


def labelled(selector: str = 'label[for="q"]') -> LocatorBundle:
    return LocatorBundle(
        candidates=(LocatorCandidate(strategy="label", selector=selector, match_count=1),),
        fingerprint=Fingerprint(
            tag="input", type="search", role="searchbox", label_hash=text_hash(SALT, "Query")
        ),
    )


@pytest.mark.parametrize(
    ("action", "intent"),
    [
        (
            NavigateAction(id="a1", url="https://shop.example/private/path?token=x"),
            "open the start page on https://shop.example",
        ),
        (NavigateAction(id="a1", url="https://shop.example/", reason="reload"), "reload the page"),
        (
            TypeAction(id="a2", target=labelled(), value=ParameterRef(name="query")),
            'type the input `query` into the search field labelled by `label[for="q"]`',
        ),
        (ClickAction(id="a3", target=bundle("#go", tag="button", type_="submit")), "click the button `#go`"),
        (ClickAction(id="a3", target=bundle("#more", tag="a", type_=None)), "follow the link `#more`"),
        (PressAction(id="a4", key="Enter"), "press Enter on the page"),
        (
            SelectAction(
                id="a5", target=bundle("#region", tag="select", type_=None), value=ParameterRef(name="region")
            ),
            "choose the input `region` in the list `#region`",
        ),
        (
            ObserveAction(id="a6", target=bundle("#out", tag="div", type_=None)),
            "wait until the <div> element `#out` is visible",
        ),
        (
            AssertAction(
                id="a7",
                check="text_equals",
                expected="Paid: 1,200 EUR",
                target=bundle("#out", tag="div", type_=None),
            ),
            "check that the text of the <div> element `#out` is exactly the expected text",
        ),
        (
            AssertAction(id="a8", check="count", expected=3, target=bundle(".row", tag="tr", type_=None)),
            "check that the <tr> element `.row` matches 3 element(s)",
        ),
        (HumanAction(id="a9", reason="otp"), "a person must enter a one-time code"),
    ],
)
def test_each_kind_reads_as_one_line(action: Action, intent: str) -> None:
    assert generated_intent(action) == intent


def test_no_page_text_and_the_vault_for_secrets() -> None:
    typed = TypeAction(id="a2", target=bundle("#pw", type_="password"), value=ParameterRef(name="password"))
    assert generated_intent(typed, frozenset({"password"})) == (
        "type the secret input `password` (from the vault) into the password field `#pw`"
    )
    check = AssertAction(id="a7", check="text_contains", expected="Paid: 1,200 EUR", target=bundle("#out"))
    assert "Paid" not in generated_intent(check)
    go = NavigateAction(id="a1", url="https://shop.example/private/path?token=x", reason="address-bar")
    assert generated_intent(go) == "go to a page on https://shop.example"


def test_a_written_intent_wins() -> None:
    class Written:
        id = "a1"
        kind = "click"
        intent = "open the invoice"

    assert step_intent(Written()) == "open the invoice"  # type: ignore[arg-type]


# ---- schema v2 steps ------------------------------------------------------------------------------

Q = ParameterRef(name="q")


@pytest.mark.parametrize(
    ("action", "intent"),
    [
        (
            ClickAction(id="b1", target=target("#results a", tag="a", token=Q, count=20)),
            "follow the link `#results a` whose text holds the input `q`",
        ),
        (
            ClickAction(id="b2", target=target(":scope button.approve", tag="button", within="item")),
            "click the button `:scope button.approve` in the current item",
        ),
        (
            ClickAction(id="b3", target=bundle("#accept", tag="button", type_=None), optional=True),
            "if it is there, click the button `#accept`",
        ),
        (
            ExtractAction(id="b4", output="total", target=target("td.total"), type="number"),
            "read the text of the <td> element `td.total` as a number into output `total`",
        ),
        (
            ExtractAction(
                id="b5", output="link", read="attribute", attribute="href", target=target("a.inv", tag="a")
            ),
            "read the `href` attribute of the link `a.inv` into output `link`",
        ),
        (
            ExtractAction(id="b6", output="banner", read="presence", target=target("#banner", tag="div")),
            "note whether the <div> element `#banner` is present, into output `banner`",
        ),
        (
            ExtractAction(id="b7", output="matches", read="count", items=element_set(token=Q)),
            "count the items `tbody tr` whose text holds the input `q` into output `matches`",
        ),
        (
            ExtractAction(
                id="b8",
                output="rows",
                read="list",
                items=element_set(),
                fields=(FieldSpec(name="number"), FieldSpec(name="total", type="number")),
                limit=50,
            ),
            "read up to 50 of the items `tbody tr` (fields `number`, `total`) into output `rows`",
        ),
        (
            WaitAction(id="b9", until="appears", target=target("#done", tag="div"), timeout_ms=5000),
            "wait until the <div> element `#done` appears (at most 5 s)",
        ),
        (
            WaitAction(
                id="c1",
                until="text",
                target=target("#status", tag="span"),
                value=OutputRef(step="b4", field="total"),
                on_fail="skip",
            ),
            "wait until the text of the <span> element `#status` contains what step b4 read (`total`); "
            "else skip the rest of its block",
        ),
        (
            ScrollAction(id="c2", target=target("#feed", tag="div"), to="end", max_rounds=5),
            "scroll the <div> element `#feed` to its end (while it grows, at most 5 times)",
        ),
        (DialogAction(id="c3", accept=True, expects="confirm"), "accept the confirm the previous step opens"),
        (
            DialogAction(id="c4", accept=True, expects="prompt", text=ParameterRef(name="reason")),
            "accept the prompt the previous step opens, answering the input `reason`",
        ),
        (DialogAction(id="c5", accept=False), "dismiss the dialog the previous step opens"),
        (
            LoopAction(
                id="c6",
                items=element_set(),
                limit=ParameterRef(name="limit"),
                body=(ClickAction(id="c7", target=target(":scope button", tag="button", within="item")),),
                collect="approved",
            ),
            "for each of the items `tbody tr` (at most the input `limit`): 1 step(s), "
            "collecting each into output `approved`",
        ),
        (
            BranchAction(
                id="c8",
                condition=CompareCondition(
                    value=ItemRef(field="status"), op="equals", expected=LiteralValue(value="approved")
                ),
                then=(HumanAction(id="c9", reason="other"),),
            ),
            "if the item's `status` equals a fixed value: 1 step(s)",
        ),
        (
            BranchAction(
                id="d1",
                condition=PresentCondition(target=target("#already", tag="div")),
                then=(HumanAction(id="d2", reason="closed-shadow"),),
                otherwise=(HumanAction(id="d3", reason="upload"),),
            ),
            "if the <div> element `#already` is present: 1 step(s), else 1 step(s)",
        ),
        (HumanAction(id="d4", reason="closed-shadow"), "a person must act inside a closed shadow root"),
    ],
)
def test_each_v2_kind_reads_as_one_line(action: Action, intent: str) -> None:
    assert generated_intent(action) == intent


def test_v2_intents_hold_no_value_and_name_secret_inputs_as_such() -> None:
    branch = BranchAction(
        id="e1",
        condition=CompareCondition(
            value=ParameterRef(name="q"), op="equals", expected=LiteralValue(value="Paid 1,200")
        ),
        then=(HumanAction(id="e2", reason="other"),),
    )
    assert "Paid" not in generated_intent(branch)
    chosen = ClickAction(id="e3", target=target("#rows a", tag="a", token=ParameterRef(name="account")))
    assert generated_intent(chosen, frozenset({"account"})).endswith(
        "whose text holds the secret input `account` (from the vault)"
    )


def test_hashed_candidates_are_passed_over_for_a_readable_one() -> None:
    """A role-name or link candidate holds a salted hash of the name: the intent names the best
    candidate a person can read, and says so in words when there is none."""
    name = LocatorCandidate(strategy="role-name", selector="role=button name=0014974c513cbf2c", match_count=1)
    css = LocatorCandidate(strategy="css", selector="#login > button", match_count=1)
    button = Fingerprint(tag="button", type="submit", role="button")
    both = LocatorBundle(candidates=(name, css), fingerprint=button)
    assert generated_intent(ClickAction(id="a4", target=both)) == "click the button `#login > button`"
    only = LocatorBundle(candidates=(name,), fingerprint=button)
    intent = generated_intent(ClickAction(id="a4", target=only))
    assert intent == "click the button with the accessible name it had at recording"
    link = LocatorCandidate(strategy="href", selector="link=0123456789abcdef", match_count=1)
    anchor = LocatorBundle(candidates=(link,), fingerprint=Fingerprint(tag="a", role="link"))
    assert generated_intent(ClickAction(id="a5", target=anchor)) == (
        "follow the link with the destination it had at recording"
    )
