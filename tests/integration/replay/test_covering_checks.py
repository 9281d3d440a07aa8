"""Checks that cover a skill, in real Chromium (issue 33): ``not_empty`` holds on a field or an
element that shows something and fails on a blank one; ``count`` holds within its ``atLeast`` /
``atMost`` bounds and fails outside them, and an old integer ``expected`` still means exactly.
On main ``not_empty`` and the bounds did not exist (the documents refused them)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from skillreel.model.actions import Action, AssertAction, NavigateAction
from skillreel.services.replaying import ReplayOutcome, ReplayRequest, replay_skill
from skillreel.store import Store
from tests.support.describe import describe_on
from tests.support.factory import graph_draft, store_approved, url_environment
from tests.support.live_server import LiveServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><head><title>Orders</title><style>.ref {{ min-height: 1em }}</style>
</head><body><main><h1>Orders</h1>
<p id="ref" class="ref">{ref}</p><input id="code" name="code" value="{code}">
<ul id="rows">{rows}</ul></main></body></html>"""
SELECTORS = {"ref": "#ref", "code": "#code", "row": "#rows li"}


def page(ref: str = "R-1001", code: str = "X7", rows: int = 3) -> str:
    items = "".join(f"<li class='row'>Order {n}</li>" for n in range(rows))
    return PAGE.format(ref=ref, code=code, rows=items)


@pytest.fixture
def live() -> Iterator[LiveServer]:
    with LiveServer() as server:
        yield server


async def replay(
    store: Store, sessions: WarmSessions, live: LiveServer, shown: str, check: dict[str, object]
) -> ReplayOutcome:
    """Describe the targets on a full page, then replay one check on ``shown``."""
    live.pages["/"] = page()
    url = live.url("/")
    environment = url_environment(url)
    b = await describe_on(environment, {k: v for k, v in SELECTORS.items() if k != "row"})
    rows = await describe_on(environment, {"row": "#rows li:first-child"})
    # a not_empty target is found without its content (the recording keeps it so: record.scripted)
    target = rows["row"] if check["check"] == "count" else b[str(check.pop("on"))].without_content()
    assert target is not None
    if check["check"] == "count":  # a count's target is its own selector, as recording makes it
        own = target.candidates[0].model_copy(update={"selector": "#rows li", "match_count": 3})
        target = target.model_copy(update={"candidates": (own,)})
    live.pages["/"] = shown
    assertion = AssertAction(id="a2", target=target, **check)  # type: ignore[arg-type]
    actions: list[Action] = [NavigateAction(id="a1", url=url), assertion]
    store_approved(store, graph_draft(actions, name="orders", environment=environment))
    request = ReplayRequest(name="orders", inputs={}, timeout_ms=1_500)
    return await replay_skill(store, request, session_factory=sessions)


def failed_at_check(outcome: ReplayOutcome, check: str) -> bool:
    assert outcome.error is not None
    error = outcome.error.to_json()
    assert (error["code"], error["actionId"]) == ("SR_REPLAY_UI_ASSERTION_FAILED", "a2")
    return f"the {check} assertion did not hold" in str(error["message"])


@pytest.mark.parametrize("on", ["ref", "code"])
async def test_not_empty_holds_on_a_target_that_shows_something(
    on: str, live: LiveServer, store: Store, sessions: WarmSessions
) -> None:
    shown = page(ref="R-2002", code="Q9")  # other content than recorded: still not empty
    outcome = await replay(store, sessions, live, shown, {"check": "not_empty", "on": on})
    assert outcome.status == "succeeded", outcome.error


@pytest.mark.parametrize("on", ["ref", "code"])
async def test_not_empty_fails_on_a_blank_target(
    on: str, live: LiveServer, store: Store, sessions: WarmSessions
) -> None:
    outcome = await replay(store, sessions, live, page(ref="  ", code=""), {"check": "not_empty", "on": on})
    assert outcome.status == "failed"
    assert failed_at_check(outcome, "not_empty")


@pytest.mark.parametrize(
    ("rows", "bounds"),
    [(1, {"at_least": 1}), (5, {"at_least": 2, "at_most": 5}), (0, {"at_most": 0}), (3, {"expected": 3})],
)
async def test_a_count_within_its_bounds_holds(
    rows: int, bounds: dict[str, int], live: LiveServer, store: Store, sessions: WarmSessions
) -> None:
    outcome = await replay(store, sessions, live, page(rows=rows), {"check": "count", **bounds})
    assert outcome.status == "succeeded", outcome.error


@pytest.mark.parametrize(
    ("rows", "bounds"),
    [(0, {"at_least": 1}), (6, {"at_least": 2, "at_most": 5}), (2, {"expected": 3})],
)
async def test_a_count_outside_its_bounds_fails(
    rows: int, bounds: dict[str, int], live: LiveServer, store: Store, sessions: WarmSessions
) -> None:
    outcome = await replay(store, sessions, live, page(rows=rows), {"check": "count", **bounds})
    assert outcome.status == "failed"
    assert failed_at_check(outcome, "count")
