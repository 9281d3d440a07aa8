"""A failed wait says which, in real Chromium (``replay/steps/checking.py`` ``wait_failure``): the
element is not on a page that stopped changing, the page was still changing at the deadline (the
one case that suggests a longer timeout), or the page answered an HTTP error (its status in the
error). A click whose target is not found after a navigation that answered HTTP 500 names the
status too. On main each of these was ``SR_REPLAY_UI_WAIT_FAILED`` or
``SR_REPLAY_UI_TARGET_NOT_FOUND``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from skillreel.model.actions import Action, ClickAction, NavigateAction, WaitAction
from skillreel.services.replaying import ReplayOutcome, ReplayRequest, replay_skill
from skillreel.store import Store
from tests.support.describe import describe_on
from tests.support.factory import graph_draft, store_approved, url_environment
from tests.support.live_server import LiveServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

RECORDED = """<!doctype html><html><head><title>Export</title></head><body><main><h1>Export</h1>
<a id="go" href="/report">Open the report</a><p id="done" class="note">Export ready</p>
<button id="again" type="button">Export again</button></main></body></html>"""
# the same page, the element gone for good (a redesign removed it): nothing changes any more
WITHOUT = RECORDED.replace('<p id="done" class="note">Export ready</p>', "")
# the element is not there yet and the page keeps changing (a progress counter, every 100 ms)
PROGRESS = WITHOUT.replace(
    "</main>",
    '<p id="progress">0</p></main><script>setInterval(() => { const p = document.getElementById("progress");'
    " p.textContent = String(Number(p.textContent) + 1); }, 100);</script>",
)
ERROR_PAGE = "<!doctype html><html><body><h1>Internal Server Error</h1></body></html>"
SELECTORS = {"go": "#go", "done": "#done", "again": "#again"}


@pytest.fixture
def live() -> Iterator[LiveServer]:
    with LiveServer() as server:
        yield server


async def replay(
    store: Store, sessions: WarmSessions, live: LiveServer, shown: str, steps: str
) -> ReplayOutcome:
    """Describe the targets on the recorded page, then replay ``steps`` on ``shown`` (the link goes
    to /report, which answers what the test set)."""
    live.pages["/"] = RECORDED
    live.pages.setdefault("/report", RECORDED)
    url = live.url("/")
    environment = url_environment(url)
    b = await describe_on(environment, SELECTORS)
    live.pages["/"] = shown
    wait_done = WaitAction(id="a3", until="appears", target=b["done"], timeout_ms=2_500)
    flows: dict[str, list[Action]] = {
        "wait": [NavigateAction(id="a1", url=url), wait_done],
        "click then wait": [
            NavigateAction(id="a1", url=url),
            ClickAction(id="a2", target=b["go"]),
            wait_done,
        ],
        "click then click": [
            NavigateAction(id="a1", url=url),
            ClickAction(id="a2", target=b["go"]),
            ClickAction(id="a3", target=b["again"]),
        ],
    }
    store_approved(store, graph_draft(flows[steps], name="export", environment=environment))
    return await replay_skill(
        store, ReplayRequest(name="export", inputs={}, timeout_ms=2_500), session_factory=sessions
    )


def failed(outcome: ReplayOutcome, code: str) -> dict[str, object]:
    assert outcome.status != "succeeded"
    assert outcome.error is not None
    error = outcome.error.to_json()
    assert (error["code"], error["actionId"]) == (code, "a3"), error
    return error


async def test_an_element_that_is_gone_from_a_settled_page_is_not_on_the_page(
    live: LiveServer, store: Store, sessions: WarmSessions
) -> None:
    error = failed(await replay(store, sessions, live, WITHOUT, "wait"), "SR_REPLAY_UI_WAIT_NOT_ON_PAGE")
    assert "no element like the wait's target" in str(error["message"])
    assert "give the step a longer" not in str(error["fix"])


async def test_an_element_not_there_while_the_page_keeps_changing_did_not_appear_in_time(
    live: LiveServer, store: Store, sessions: WarmSessions
) -> None:
    error = failed(await replay(store, sessions, live, PROGRESS, "wait"), "SR_REPLAY_UI_WAIT_TIMEOUT")
    assert "still changing" in str(error["message"])
    assert "longer timeout" in str(error["fix"])


@pytest.mark.parametrize(
    ("steps", "says"),
    [
        ("click then wait", "the page did not reach the state the wait expects (appears)"),
        ("click then click", "step a3 (click): no element matches the target"),
    ],
)
async def test_a_step_on_a_page_that_answered_http_500_names_the_status(
    steps: str, says: str, live: LiveServer, store: Store, sessions: WarmSessions
) -> None:
    """The link leads to a page that answered HTTP 500: the wait after it, or the click whose
    target is not there, says so (the status in the message and the details), nothing done."""
    live.statuses["/report"] = 500
    live.pages["/report"] = ERROR_PAGE
    error = failed(await replay(store, sessions, live, RECORDED, steps), "SR_REPLAY_UI_HTTP_ERROR")
    assert error["details"] == {"httpStatus": 500}
    assert f"{says}: the page answered HTTP 500" in str(error["message"])
