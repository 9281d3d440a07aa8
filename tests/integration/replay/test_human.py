"""A `human` step with someone to answer: the replay opens a headed window (under a private Xvfb),
asks, waits, and goes on; without an answer it fails closed."""

from __future__ import annotations

import pytest

from skillreel.model.actions import ClickAction, HumanAction, NavigateAction
from skillreel.replay.engine import HumanRequest
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import Store
from tests.support.describe import describe_url
from tests.support.factory import build_draft, store_approved, url_environment
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGE = """<!doctype html><html><body><main><p>Attach the file by hand, then continue.</p>
<button id="next" type="button" onclick="fetch('/continued')">Continue</button></main></body></html>"""


async def test_a_person_finishes_the_human_step_and_the_replay_goes_on(
    server: LocalServer, store: Store, xvfb_display: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundles = await describe_url(server, "/attach", PAGE, {"next": "#next"})
    url = server.url("/attach")
    store_approved(
        store,
        build_draft(
            "attach-by-hand",
            url_environment(url),
            [
                NavigateAction(id="a1", url=url),
                HumanAction(id="a2", reason="upload"),
                ClickAction(id="a3", target=bundles["next"]),
            ],
        ),
    )
    monkeypatch.setenv("DISPLAY", xvfb_display)
    asked: list[HumanRequest] = []

    async def person(request: HumanRequest) -> bool:
        asked.append(request)
        return True

    outcome = await replay_skill(store, ReplayRequest(name="attach-by-hand"), human=person)
    assert outcome.status == "succeeded", outcome.error
    assert asked == [HumanRequest(1, 3, "a2", "upload")]
    assert ("GET", "/continued") in server.requests

    async def nobody(request: HumanRequest) -> bool:
        return False

    server.requests.clear()
    declined = await replay_skill(store, ReplayRequest(name="attach-by-hand"), human=nobody)
    assert declined.error is not None
    assert (declined.error.code, declined.error.action_id) == ("SR_REPLAY_HUMAN_REQUIRED", "a2")
    assert ("GET", "/continued") not in server.requests
