"""Targets chosen by an input, on the fake driver (the twin of collect.js): the element of the one
row holding the input, and the fallback by role when the like set is gone."""

from __future__ import annotations

import pytest

from skillreel.model.actions import ClickAction
from skillreel.model.locators import ElementSet, Fingerprint, LocatorBundle, LocatorCandidate
from skillreel.model.refs import ParameterRef, TextFilter
from skillreel.replay.fake import FakePage
from tests.unit.test_steps_graph import NUMBERS, START, clicked, failure, fp, orders_page, run, target

BY_Q = TextFilter(contains_token=ParameterRef(name="q"))
ROWS = ElementSet(
    candidates=(LocatorCandidate(strategy="css", selector="tr.order", match_count=20),),
    fingerprint=Fingerprint(tag="tr", parent_path=("html", "body", "main")),
)
APPROVE = ClickAction(
    id="c1",
    target=LocatorBundle(
        candidates=(LocatorCandidate(strategy="css", selector="button.approve", match_count=1),),
        fingerprint=fp("button", type_="submit", selector="button.approve"),
        filter=BY_Q,
        row=ROWS,
    ),
)


@pytest.mark.parametrize("q", ["1003", "1019"])
def test_the_button_of_the_row_holding_the_input_is_clicked(q: str) -> None:
    page = orders_page(NUMBERS)
    _, driver = run(page, [START, APPROVE], {"q": q})
    [index] = clicked(driver)
    assert index is not None
    button = page.elements[index]
    assert button.text == "Approve"
    assert button.parent is not None
    assert page.elements[button.parent].text.startswith(f"Order {q} ")


@pytest.mark.parametrize(
    ("numbers", "q", "code"),
    [
        ([*NUMBERS, "1007"], "1007", "SR_REPLAY_UI_TARGET_AMBIGUOUS"),  # two rows show it
        (NUMBERS, "2000", "SR_REPLAY_UI_TARGET_NOT_FOUND"),  # no row does
        (["10071"], "1007", "SR_REPLAY_UI_TARGET_NOT_FOUND"),  # only a longer token
    ],
)
def test_no_row_or_two_rows_fail_closed_with_nothing_clicked(numbers: list[str], q: str, code: str) -> None:
    error, driver = failure(orders_page(numbers), [START, APPROVE], {"q": q})
    assert (error.code, error.action_id) == (code, "c1")
    assert clicked(driver) == []


def _as_links(page: FakePage) -> FakePage:
    """The same rows redone: the order links keep their text and role, not their structure."""
    for e in page.elements:
        if e.fingerprint.tag == "a":
            e.selectors = {"div.grid a.link-order"}
            e.fingerprint = e.fingerprint.model_copy(update={"role": "link", "attributes": {}})
    return page


GONE = ClickAction(
    id="c1",
    target=target("a.open", tag="a", token=ParameterRef(name="q"), count=20).model_copy(
        update={"fingerprint": Fingerprint(tag="a", role="link", parent_path=("td", "tr", "tbody"))}
    ),
)


def test_when_the_like_set_is_gone_the_one_element_of_its_role_holding_the_input_is_clicked() -> None:
    page = _as_links(orders_page(NUMBERS))
    engine, driver = run(page, [START, GONE], {"q": "1007"})
    [index] = clicked(driver)
    assert index is not None
    assert page.elements[index].text == "Order 1007"
    assert engine.completed[-1].healed


@pytest.mark.parametrize(
    ("numbers", "q", "code"),
    [
        ([*NUMBERS, "1007"], "1007", "SR_REPLAY_UI_TARGET_AMBIGUOUS"),
        (NUMBERS, "2000", "SR_REPLAY_UI_TARGET_NOT_FOUND"),
    ],
)
def test_the_fallback_by_role_fails_closed_too(numbers: list[str], q: str, code: str) -> None:
    error, driver = failure(_as_links(orders_page(numbers)), [START, GONE], {"q": q})
    assert (error.code, error.action_id) == (code, "c1")
    assert clicked(driver) == []
