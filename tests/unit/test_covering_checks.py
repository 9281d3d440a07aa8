"""Checks that cover a skill (issue 33), over the in-memory FakeDriver and the pure documents:
``not_empty`` and ``count`` bounds as steps, in an assertions file, an automation file and an edit;
an old ``count`` keeps its bytes. The real page: tests/integration/replay/test_covering_checks.py."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pydantic import ValidationError

from skillreel.errors import InputError, SkillreelError
from skillreel.model.actions import AssertAction, BranchAction, ClickAction, ExtractAction, NavigateAction
from skillreel.model.conditions import PresentCondition
from skillreel.model.coverage import unchecked_side_effect
from skillreel.model.intents import generated_intent
from skillreel.model.locators import Fingerprint, LocatorBundle
from skillreel.record.automation import AssertionsFile, AutomationScript
from skillreel.record.edits import EditPatch, apply_edits
from skillreel.replay.engine import EngineOptions, ReplayEngine
from skillreel.replay.fake import FakeDriver, FakeElement, FakePage
from skillreel.user_files import parse_document
from tests.support import factory
from tests.support.clock import Clock
from tests.support.factory import SALT

URL = "https://app.test/orders"
START = NavigateAction(id="a1", url=URL)


def target(selector: str, tag: str = "td") -> LocatorBundle:
    bundle = factory.target(selector, tag=tag)
    return bundle.model_copy(update={"fingerprint": Fingerprint(tag=tag, parent_path=("html", "body"))})


def page(*elements: FakeElement) -> FakePage:
    return FakePage(URL, list(elements))


def el(selector: str, tag: str = "td", **kw: Any) -> FakeElement:
    return FakeElement(Fingerprint(tag=tag, parent_path=("html", "body")), {selector}, **kw)


def replay(shown: FakePage, check: AssertAction) -> None:
    clock = Clock()
    driver = FakeDriver({URL: shown}, start_url=URL)
    options = EngineOptions(salt=SALT, timeout_ms=1000, settle_ms=0)
    engine = ReplayEngine(driver, options, clock=clock, sleep=clock.sleep)
    asyncio.run(engine.run([START, check], {}))


def fails(shown: FakePage, check: AssertAction) -> str:
    with pytest.raises(SkillreelError) as err:
        replay(shown, check)
    assert err.value.code == "SR_REPLAY_UI_ASSERTION_FAILED"
    return str(err.value)


def test_not_empty_holds_on_text_or_a_value_and_fails_on_blank() -> None:
    check = AssertAction(id="a2", check="not_empty", target=target("#ref"))
    replay(page(el("#ref", text="R-1")), check)
    replay(
        page(el("#ref", tag="input", value="X7")),
        check.model_copy(update={"target": target("#ref", "input")}),
    )
    assert "not_empty assertion did not hold" in fails(page(el("#ref", text="  ")), check)


@pytest.mark.parametrize(
    ("n", "bounds", "holds"),
    [
        (0, {"at_least": 1}, False),
        (1, {"at_least": 1}, True),
        (5, {"at_most": 5}, True),
        (6, {"at_most": 5}, False),
        (3, {"at_least": 2, "at_most": 4}, True),
        (3, {"expected": 3}, True),
        (2, {"expected": 3}, False),
    ],
)
def test_a_count_holds_within_its_bounds(n: int, bounds: dict[str, int], holds: bool) -> None:
    check = AssertAction(id="a2", check="count", target=target(".row"), **bounds)  # type: ignore[arg-type]
    assert check.count_holds(n) is holds
    shown = page(*(el(".row") for _ in range(n)))
    if holds:
        replay(shown, check)
    else:
        fails(shown, check)


def test_an_old_count_keeps_its_wire_form_and_bounds_are_v2() -> None:
    old = AssertAction(id="a2", check="count", target=target(".row"), expected=3)
    assert set(old.to_json()).isdisjoint({"atLeast", "atMost"})
    assert old.v2_fields() == []
    bounded = AssertAction(id="a2", check="count", target=target(".row"), at_least=1)
    assert bounded.to_json()["atLeast"] == 1
    assert bounded.v2_fields() == ["atLeast"]
    assert AssertAction.parse(bounded.to_json()) == bounded


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"check": "count", "expected": 3, "at_least": 1}, "not both"),
        ({"check": "count", "at_least": 5, "at_most": 2}, "above its atMost"),
        ({"check": "visible", "at_least": 1}, "only a count check"),
        ({"check": "not_empty", "expected": "x"}, "no expected value"),
        ({"check": "not_empty", "target": None}, "needs a target"),
    ],
)
def test_a_malformed_check_is_refused(fields: dict[str, Any], why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        AssertAction.model_validate({"id": "a2", "target": target(".row"), **fields})


def parse(cls: Any, doc: Any) -> Any:
    return parse_document(cls, json.dumps(doc).encode(), what="file")


def test_an_assertions_file_takes_not_empty_and_count_bounds() -> None:
    entries = [
        {"kind": "assert", "selector": "#ref", "check": "not_empty"},
        {"kind": "assert", "selector": ".row", "check": "count", "atLeast": 1, "atMost": 50},
    ]
    read = parse(AssertionsFile, {"assertions": entries})
    assert [(a.check, a.at_least, a.at_most) for a in read.assertions] == [
        ("not_empty", None, None),
        ("count", 1, 50),
    ]


@pytest.mark.parametrize(
    "entry",
    [
        {"kind": "assert", "selector": ".row", "check": "count"},
        {"kind": "assert", "selector": "#ref", "check": "not_empty", "expected": "x"},
        {"kind": "assert", "selector": ".row", "check": "count", "atLeast": 3, "atMost": 1},
    ],
)
def test_a_malformed_assertion_entry_is_an_input_error(entry: dict[str, Any]) -> None:
    with pytest.raises(InputError) as info:
        parse(AssertionsFile, {"assertions": [entry]})
    assert info.value.code == "SR_RECORD_INPUT_MALFORMED"


def test_an_automation_file_takes_a_check_at_a_point_of_the_skill() -> None:
    steps = [
        {"do": "goto", "url": URL},
        {"do": "assert", "selector": "#ref", "check": "not_empty"},
        {"do": "assert", "selector": ".row", "check": "count", "atLeast": 1},
        {"do": "assert", "absent": "#banner"},
    ]
    script = parse(AutomationScript, {"steps": steps})
    assert [getattr(s, "check", None) for s in script.steps] == [None, "not_empty", "count", None]
    for wrong in (
        {"do": "assert", "selector": ".row", "check": "count"},
        {"do": "assert", "selector": ".row"},
        {"do": "assert", "absent": "#banner", "check": "count", "atLeast": 1},
    ):
        with pytest.raises(InputError):
            parse(AutomationScript, {"steps": [wrong]})


def test_edit_adds_a_bounded_count_and_a_not_empty_check() -> None:
    total = ExtractAction(id="a5", output="total", target=target("#total", "b"), type="number")
    draft = factory.graph_draft([START, total])
    patch = EditPatch.parse(
        {
            "schema": "skillreel.edit/v1",
            "edits": [
                {"op": "add-assert", "after": "a5", "check": "not_empty", "target": "a5"},
                {"op": "add-assert", "after": "a1", "check": "count", "target": "a5", "atLeast": 1},
            ],
        }
    )
    edited = apply_edits(draft, patch).draft
    checks = [a for a in edited.actions if isinstance(a, AssertAction)]
    assert sorted((a.check, a.at_least) for a in checks) == [("count", 1), ("not_empty", None)]


def test_the_new_checks_read_as_what_they_check() -> None:
    bounded = AssertAction(id="a2", check="count", target=target(".row"), at_least=1, at_most=5)
    assert "1 to 5 element(s)" in generated_intent(bounded)
    assert "is not empty" in generated_intent(AssertAction(id="a2", check="not_empty", target=target("#r")))


# ---- the last side effect and the check after it (model.coverage) ----------------------------


def test_the_last_side_effect_no_check_follows_is_named() -> None:
    click = ClickAction(id="a2", target=target("#refund", "button"))
    done = AssertAction(id="a3", check="not_empty", target=target("#status"))
    read = ExtractAction(id="a4", output="total", target=target("#total", "b"))
    typed = ExtractAction(id="a4", output="total", target=target("#total", "b"), type="number")
    assert unchecked_side_effect([START]) is None
    assert unchecked_side_effect([START, click]) == "a2"
    assert unchecked_side_effect([START, click, done]) is None
    assert unchecked_side_effect([START, done, click]) == "a2"
    assert unchecked_side_effect([START, click, read]) == "a2"  # a plain read checks nothing
    assert unchecked_side_effect([START, click, typed]) is None  # a typed read fails on a wrong page


def test_a_side_effect_inside_a_block_counts_in_document_order() -> None:
    click = ClickAction(id="a3", target=target("#pay", "button"))
    branch = BranchAction(
        id="a2",
        condition=PresentCondition(target=target("#pay", "button")),
        then=(click,),
    )
    done = AssertAction(id="a4", check="visible", target=target("#paid"))
    assert unchecked_side_effect([START, branch]) == "a3"
    assert unchecked_side_effect([START, branch, done]) is None
