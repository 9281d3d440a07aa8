"""Step intents: one readable line per step from its kind, element and best locator, never page text."""

from __future__ import annotations

import pytest

from skillreel.model.actions import (
    Action,
    AssertAction,
    ClickAction,
    HumanAction,
    NavigateAction,
    ObserveAction,
    ParameterRef,
    PressAction,
    SelectAction,
    TypeAction,
)
from skillreel.model.intents import generated_intent, step_intent
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate, text_hash
from tests.factory import SALT, bundle


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
