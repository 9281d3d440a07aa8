"""Business failures over the in-memory FakeDriver: an ``absent`` assertion (an "Already refunded"
banner must not be there), fail-closed on an HTTP error page, and the document's HTTP error status
named in any step's failure (``PageCondition.stamp``). The real page:
tests/integration/replay/test_business_failures.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest
from pydantic import ValidationError

from skillreel.cli.replay import show_failure
from skillreel.errors import InputError, SkillreelError
from skillreel.model.actions import Action, AssertAction, ExtractAction, NavigateAction
from skillreel.model.draft import Draft
from skillreel.model.intents import generated_intent
from skillreel.model.locators import Fingerprint, LocatorBundle, text_hash
from skillreel.record.automation import AssertionsFile
from skillreel.record.edits import EditPatch, apply_edits
from skillreel.replay.engine import EngineOptions, ReplayEngine
from skillreel.replay.fake import FakeDriver, FakeElement, FakePage
from skillreel.user_files import input_error, parse_document
from tests.support import factory
from tests.support.clock import Clock
from tests.support.factory import SALT

URL = "https://app.test/orders/1001"
START = NavigateAction(id="a1", url=URL)


def target(selector: str, *, tag: str) -> LocatorBundle:
    """A target found by its CSS selector; the fake page's element of that selector has the same
    fingerprint."""
    bundle = factory.target(selector, tag=tag)
    return bundle.model_copy(update={"fingerprint": fingerprint(tag)})


def fingerprint(tag: str) -> Fingerprint:
    return Fingerprint(tag=tag, parent_path=("html", "body", "main"))


def el(tag: str, selector: str, *, text: str) -> FakeElement:
    return FakeElement(fingerprint(tag), {selector}, text=text)


def engine_on(page: FakePage) -> ReplayEngine:
    clock = Clock()
    driver = FakeDriver({page.url: page}, start_url=page.url)
    options = EngineOptions(salt=SALT, timeout_ms=1000, settle_ms=0)
    return ReplayEngine(driver, options, clock=clock, sleep=clock.sleep)


def run(page: FakePage, actions: Sequence[Action]) -> ReplayEngine:
    engine = engine_on(page)
    asyncio.run(engine.run(list(actions), {}))
    return engine


def failure(page: FakePage, actions: Sequence[Action]) -> SkillreelError:
    with pytest.raises(SkillreelError) as err:
        asyncio.run(engine_on(page).run(list(actions), {}))
    return err.value


def parse(cls: Any, doc: Any) -> Any:
    return parse_document(cls, json.dumps(doc).encode(), what="assertions file")


def desk() -> Draft:
    """navigate, then extract the total (a target the person marked)."""
    total = ExtractAction(id="a5", output="total", target=factory.target("#total", tag="b"), type="number")
    return factory.graph_draft([START, total])


def patch(*edits: dict[str, Any]) -> EditPatch:
    return EditPatch.parse({"schema": "skillreel.edit/v1", "edits": list(edits)})


BANNER = target("#banner", tag="p")
ABSENT = AssertAction(id="a2", check="absent", target=BANNER)
ABSENT_TEXT = AssertAction(id="a2", check="absent", target=BANNER, expected="Already refunded")


def page(banner: str | None, *, status: int = 200) -> FakePage:
    elements = [el("h1", "h1", text="Order 1001")]
    if banner is not None:
        elements.append(el("p", "#banner", text=banner))
    return FakePage(URL, elements, status=status)


def test_an_absent_check_passes_when_no_element_like_its_target_is_there() -> None:
    engine = run(page(None), [START, ABSENT])
    assert [r.action_id for r in engine.completed] == ["a1", "a2"]


def test_an_absent_check_fails_naming_the_step_when_the_banner_is_there() -> None:
    error = failure(page("Already refunded"), [START, ABSENT])
    assert (error.code, error.action_id) == ("SR_REPLAY_UI_ASSERTION_FAILED", "a2")
    assert "still on the page" in error.message
    assert "refunded" not in error.message.lower()  # page text never reaches an error


def test_an_absent_text_check_reads_its_target_whatever_it_said_when_recorded() -> None:
    """Recorded while it said "Paid": the element is found now that it says "Already refunded"
    (found by its recorded text it would not be, and the check would pass: fail open)."""
    said = fingerprint("p").model_copy(update={"text_hash": text_hash(SALT, "Paid")})
    recorded = ABSENT_TEXT.model_copy(update={"target": BANNER.model_copy(update={"fingerprint": said})})
    error = failure(page("Already refunded on 3 May"), [START, recorded])
    assert (error.code, error.action_id) == ("SR_REPLAY_UI_ASSERTION_FAILED", "a2")


def test_an_absent_text_check_looks_at_the_text_of_its_target() -> None:
    run(page("Ready to refund"), [START, ABSENT_TEXT])
    run(page(None), [START, ABSENT_TEXT])
    error = failure(page("Order Already refunded on 2 May"), [START, ABSENT_TEXT])
    assert error.code == "SR_REPLAY_UI_ASSERTION_FAILED"


@pytest.mark.parametrize("status", [500, 404])
def test_an_absent_check_fails_closed_on_an_http_error_page(status: int) -> None:
    """An error page shows no banner either: that proves nothing, so the check does not pass."""
    error = failure(page(None, status=status), [START, ABSENT])
    assert (error.code, error.action_id) == ("SR_REPLAY_UI_HTTP_ERROR", "a2")
    assert error.details == {"httpStatus": status}


def test_any_failed_step_on_an_http_error_page_names_the_status() -> None:
    visible = AssertAction(id="a2", check="text_contains", target=target("h1", tag="h1"), expected="Refunded")
    error = failure(page(None, status=503), [START, visible])
    assert error.code == "SR_REPLAY_UI_ASSERTION_FAILED"
    assert error.details == {"httpStatus": 503}
    assert error.message.endswith("(the page answered HTTP 503)")
    assert str(error) == f"{error.code}: {error.message}"


def test_a_failure_on_a_page_that_answered_200_carries_no_status() -> None:
    visible = AssertAction(id="a2", check="text_contains", target=target("h1", tag="h1"), expected="Refunded")
    error = failure(page(None), [START, visible])
    assert error.details == {}


def test_an_absent_check_needs_a_target_and_no_count() -> None:
    with pytest.raises(ValueError, match="an absent check needs a target"):
        AssertAction(id="a2", check="absent")
    with pytest.raises(ValueError, match="an absent check needs a target"):
        AssertAction(id="a2", check="absent", target=BANNER, expected=3)


def test_an_absent_check_reads_as_one() -> None:
    assert "is absent" in generated_intent(ABSENT)
    assert "does not show the expected text" in generated_intent(ABSENT_TEXT)


# ---- authoring: the assertions file and `skillreel edit` --------------------------------------------


def test_an_assertions_file_takes_an_absent_check_with_or_without_a_text() -> None:
    read = parse(
        AssertionsFile,
        {
            "assertions": [
                {"kind": "assert", "selector": "#banner", "check": "absent"},
                {"kind": "assert", "selector": "#status", "check": "absent", "expected": "Already refunded"},
            ]
        },
    )
    assert [a.check for a in read.assertions] == ["absent", "absent"]


@pytest.mark.parametrize(
    "entry",
    [
        {"kind": "assert", "check": "absent"},
        {"kind": "assert", "selector": "#banner", "check": "absent", "expected": 2},
    ],
)
def test_a_malformed_absent_check_is_an_input_error(entry: dict[str, Any]) -> None:
    with pytest.raises(InputError) as info:
        parse(AssertionsFile, {"assertions": [entry]})
    assert info.value.code == "SR_RECORD_INPUT_MALFORMED"


def test_edit_adds_an_absent_check_on_a_target_the_person_marked() -> None:
    edited = apply_edits(
        desk(), patch({"op": "add-assert", "after": "a1", "check": "absent", "target": "a5"})
    ).draft
    added = edited.actions[1]
    assert isinstance(added, AssertAction)
    assert (added.check, added.expected) == ("absent", None)
    total = edited.action("a5")
    assert isinstance(total, ExtractAction)
    assert added.target == total.target  # the recorded target, reused: no new target


def test_edit_refuses_an_absent_check_without_a_target() -> None:
    """Refused as the edit service refuses any invalid edited draft (``input_error``)."""
    with pytest.raises(ValidationError) as info:
        apply_edits(desk(), patch({"op": "add-assert", "after": "a1", "check": "absent"}))
    error = input_error(info.value, what="edited draft")
    assert (error.code, error.exit_status) == ("SR_RECORD_GRAPH_INVALID", 2)
    assert "absent check needs a target" in error.message


def test_the_human_failure_lists_the_failure_conditions_one_clean_line_each(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = {"steps": [], "sideEffects": False, "runId": None, "name": "refund", "status": "failed"}
    show_failure(doc, ["The order page says\nAlready refunded.", "Shown in red: \x1b[31m"])
    lines = capsys.readouterr().err.splitlines()
    assert lines[:2] == [
        "the skill fails when: The order page says Already refunded.",
        "the skill fails when: Shown in red: \\x1b[31m",
    ]
