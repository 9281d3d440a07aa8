"""Business failures in real Chromium: an ``absent`` assertion on an "Already refunded" banner
fails closed (nothing acted) on an order already refunded and passes on a fresh one; a step that
fails on a page whose document answered HTTP 500 names the status (``httpStatus`` and "the page
answered HTTP 500"), whatever the step's own code. On main the absent check did not exist and the
failed assertion on the 500 page said nothing of the status."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillreel.model.actions import Action, AssertAction, ClickAction, NavigateAction
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import ReplayOutcome, ReplayRequest, replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.support.describe import describe_on
from tests.support.factory import graph_draft, store_approved, url_environment
from tests.support.live_server import LiveServer
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

ORDER = """<!doctype html><html><head><title>Order 1001</title></head><body><main><h1>Order 1001</h1>
{banner}<p id="status" class="state">{status}</p>
<a id="refund" href="/refund">Refund the order</a></main></body></html>"""
BANNER = '<p id="banner" class="notice" role="alert">Already refunded</p>'
REFUNDED = ORDER.format(banner=BANNER, status="Refunded on 2 May")
FRESH = ORDER.format(banner="", status="Paid")
SELECTORS = {"banner": "#banner", "refund": "#refund", "status": "#status", "title": "h1"}


@pytest.fixture
def live() -> Iterator[LiveServer]:
    with LiveServer() as server:
        yield server


async def replay(
    store: Store,
    sessions: WarmSessions,
    live: LiveServer,
    shown: str,
    steps: list[str],
    failure_conditions: tuple[str, ...] = (),
) -> ReplayOutcome:
    """Describe the targets on the refunded page (the banner there), then replay on ``shown``."""
    live.pages["/"] = REFUNDED
    url = live.url("/")
    environment = url_environment(url)
    b = await describe_on(environment, SELECTORS)
    live.pages["/"] = shown
    live.pages.setdefault("/refund", FRESH)
    made: dict[str, Action] = {
        "absent": AssertAction(id="a2", check="absent", target=b["banner"]),
        "absent text": AssertAction(id="a2", check="absent", target=b["status"], expected="Refunded"),
        "refund": ClickAction(id="a3", target=b["refund"]),
        "says done": AssertAction(id="a4", check="text_contains", target=b["title"], expected="Refund done"),
    }
    actions = [NavigateAction(id="a1", url=url), *(made[s] for s in steps)]
    draft = graph_draft(actions, name="refund", environment=environment)
    store_approved(store, draft.evolve(failure_conditions=failure_conditions))
    return await replay_skill(
        store, ReplayRequest(name="refund", inputs={}, timeout_ms=2_500), session_factory=sessions
    )


@pytest.mark.parametrize("check", ["absent", "absent text"])
async def test_an_absent_check_fails_closed_on_an_order_already_refunded(
    check: str, live: LiveServer, store: Store, sessions: WarmSessions
) -> None:
    outcome = await replay(store, sessions, live, REFUNDED, [check, "refund"])
    assert outcome.status == "failed"
    assert outcome.error is not None
    error = outcome.error.to_json()
    assert (error["code"], error["actionId"]) == ("SR_REPLAY_UI_ASSERTION_FAILED", "a2")
    assert "absent assertion did not hold" in str(error["message"])
    assert not outcome.side_effects
    assert ("GET", "/refund") not in live.requests  # nothing was refunded twice


@pytest.mark.parametrize("check", ["absent", "absent text"])
async def test_an_absent_check_passes_on_a_fresh_order(
    check: str, live: LiveServer, store: Store, sessions: WarmSessions
) -> None:
    outcome = await replay(store, sessions, live, FRESH, [check, "refund"])
    assert outcome.status == "succeeded", outcome.error
    assert ("GET", "/refund") in live.requests


async def test_a_failed_assertion_after_a_click_that_answered_500_names_the_status(
    live: LiveServer, store: Store, sessions: WarmSessions
) -> None:
    live.statuses["/refund"] = 500
    live.pages["/refund"] = ORDER.format(banner="", status="Something went wrong")
    outcome = await replay(store, sessions, live, FRESH, ["refund", "says done"])
    assert outcome.error is not None
    error = outcome.error.to_json()
    assert (error["code"], error["actionId"]) == ("SR_REPLAY_UI_ASSERTION_FAILED", "a4")
    assert error["details"] == {"httpStatus": 500}
    assert str(error["message"]).endswith("(the page answered HTTP 500)")


async def test_an_absent_check_on_a_page_that_answered_500_fails_closed(
    live: LiveServer, store: Store, sessions: WarmSessions
) -> None:
    live.statuses["/"] = 500
    outcome = await replay(store, sessions, live, FRESH, ["absent", "refund"])
    assert outcome.error is not None
    error = outcome.error.to_json()
    assert (error["code"], error["actionId"], error["details"]) == (
        "SR_REPLAY_UI_HTTP_ERROR",
        "a2",
        {"httpStatus": 500},
    )
    assert ("GET", "/refund") not in live.requests


async def test_a_failed_replay_lists_the_skills_failure_conditions_for_the_caller(
    live: LiveServer, store: Store, sessions: WarmSessions
) -> None:
    """What the author wrote reached SKILL.md only; now it is in the error's details too."""
    written = ("The order page says Already refunded.", "The order is not found.")
    outcome = await replay(store, sessions, live, REFUNDED, ["absent", "refund"], failure_conditions=written)
    assert outcome.error is not None
    assert outcome.error.to_json()["details"] == {"failureConditions": list(written)}


DONE = """<!doctype html><html><head><title>Order 1001</title></head><body><main><h1>Order 1001</h1>
<p id="status" class="state">{status}</p></main></body></html>"""


@pytest.mark.slow
async def test_an_absent_check_from_an_assertions_file_records_and_replays(
    store: Store, tmp_path: Path, server: LocalServer, sessions: WarmSessions
) -> None:
    """Recorded through the real recorder: the refund, then "the status does not say Already
    refunded" (an assertions file's absent check); a replay that meets that state fails closed."""
    server.set_page("/order", FRESH)
    server.set_page("/refund", DONE.format(status="Refund done"))
    automation = tmp_path / "automation.json"
    automation.write_text(json.dumps({"steps": [{"do": "click", "selector": "#refund"}]}))
    assertions = tmp_path / "assertions.json"
    check = {"kind": "assert", "selector": "#status", "check": "absent", "expected": "Already refunded"}
    assertions.write_text(json.dumps({"assertions": [check]}))
    request = RecordRequest(
        name="refund", url=server.url("/order"), automation=automation, assertions=assertions
    )
    await record_skill(store, request)
    last = store.get("refund").draft.actions[-1]
    assert isinstance(last, AssertAction)
    assert (last.check, last.expected) == ("absent", "Already refunded")
    review_skill(store, "refund", "alice", approve=True, expected_revision=store.get("refund").revision)

    def again() -> ReplayRequest:
        return ReplayRequest(name="refund", inputs={}, timeout_ms=2_500)

    done = await replay_skill(store, again(), session_factory=sessions)
    assert done.status == "succeeded", done.error
    server.set_page("/refund", DONE.format(status="Already refunded on 2 May"))
    refused = await replay_skill(store, again(), session_factory=sessions)
    assert refused.error is not None
    assert (refused.error.code, refused.error.action_id) == ("SR_REPLAY_UI_ASSERTION_FAILED", last.id)


@pytest.mark.slow
async def test_an_absent_check_in_the_automation_file_stops_the_refund_before_it_acts(
    store: Store, tmp_path: Path, server: LocalServer, sessions: WarmSessions
) -> None:
    """``{"do": "assert", "absent": "#status", "text": "Refunded"}`` before the click: recorded in
    place, so on an order already refunded the replay fails before the click (nothing acted)."""
    server.set_page("/order", FRESH)
    server.set_page("/refund", DONE.format(status="Refund done"))
    automation = tmp_path / "automation.json"
    steps = [
        {"do": "assert", "absent": "#status", "text": "Refunded"},
        {"do": "click", "selector": "#refund"},
    ]
    automation.write_text(json.dumps({"steps": steps}))
    await record_skill(store, RecordRequest(name="refund", url=server.url("/order"), automation=automation))
    kinds = [(a.kind, getattr(a, "check", None)) for a in store.get("refund").draft.actions]
    assert kinds[1:] == [("assert", "absent"), ("click", None)]
    review_skill(store, "refund", "alice", approve=True, expected_revision=store.get("refund").revision)
    request = ReplayRequest(name="refund", inputs={}, timeout_ms=2_500)

    assert (await replay_skill(store, request, session_factory=sessions)).status == "succeeded"
    server.set_page("/order", REFUNDED)
    refused = await replay_skill(store, request, session_factory=sessions)
    assert refused.error is not None
    assert refused.error.code == "SR_REPLAY_UI_ASSERTION_FAILED"
    assert not refused.side_effects
