"""A failed wait says which (``replay/steps/checking.py`` ``wait_failure``), from the page's condition
at the deadline (``Driver.condition``): an HTTP error page, a page still changing (the one case a
longer timeout may help), a target not on a page that stopped changing, or a condition that did
not hold there. A click whose target is not found on an HTTP error page names the status
(``replay/resolving.py``). Fake driver and clock; the real page is tests/integration/replay/
test_live_pages.py."""

from __future__ import annotations

import pytest

from skillreel.errors.codes import CODES
from skillreel.model.actions import Action, ClickAction, WaitAction
from skillreel.model.refs import LiteralValue
from skillreel.replay.fake import FakePage
from tests.unit.test_steps_graph import START, URL, el, failure, target

MISSING = WaitAction(id="w1", until="appears", target=target("#never", tag="p"), timeout_ms=500)
STAYS = WaitAction(id="w1", until="disappears", target=target("#status", tag="p"), timeout_ms=500)
TEXT = WaitAction(
    id="w1", until="text", target=target("#status", tag="p"), value=LiteralValue(value="Done"), timeout_ms=500
)
URL_WAIT = WaitAction(id="w1", until="url", expected="/elsewhere", timeout_ms=500)


def page(*, status: int | None = 200, changing: bool = False) -> FakePage:
    return FakePage(URL, [el("p", {"#status"}, text="Saving")], status=status, changing=changing)


@pytest.mark.parametrize(
    ("wait", "status", "changing", "code"),
    [
        (MISSING, 200, False, "SR_REPLAY_UI_WAIT_NOT_ON_PAGE"),
        (MISSING, None, False, "SR_REPLAY_UI_WAIT_NOT_ON_PAGE"),
        (MISSING, 200, True, "SR_REPLAY_UI_WAIT_TIMEOUT"),
        (STAYS, 200, False, "SR_REPLAY_UI_WAIT_FAILED"),
        (STAYS, 200, True, "SR_REPLAY_UI_WAIT_TIMEOUT"),
        (TEXT, 200, False, "SR_REPLAY_UI_WAIT_FAILED"),
        (URL_WAIT, 200, False, "SR_REPLAY_UI_WAIT_FAILED"),
        (URL_WAIT, 200, True, "SR_REPLAY_UI_WAIT_TIMEOUT"),
        (MISSING, 500, False, "SR_REPLAY_UI_HTTP_ERROR"),
        (MISSING, 404, True, "SR_REPLAY_UI_HTTP_ERROR"),  # the status wins over "still changing"
        (TEXT, 503, False, "SR_REPLAY_UI_HTTP_ERROR"),
    ],
)
def test_a_failed_wait_says_which(wait: WaitAction, status: int | None, changing: bool, code: str) -> None:
    error, _ = failure(page(status=status, changing=changing), [START, wait])
    assert (error.code, error.action_id) == (code, "w1")
    if code == "SR_REPLAY_UI_HTTP_ERROR":
        assert error.details == {"httpStatus": status}
        assert f"the page answered HTTP {status}" in error.message
    else:
        assert error.details == {}


def test_only_a_page_still_changing_suggests_a_longer_timeout() -> None:
    assert "give the step a longer timeout" in CODES["SR_REPLAY_UI_WAIT_TIMEOUT"].fix
    for code in ("SR_REPLAY_UI_WAIT_FAILED", "SR_REPLAY_UI_WAIT_NOT_ON_PAGE", "SR_REPLAY_UI_HTTP_ERROR"):
        fix = CODES[code].fix
        assert "give the step a longer" not in fix, code
        assert "needs a longer step timeout" not in fix, code


def test_a_click_target_not_found_on_an_http_error_page_names_the_status() -> None:
    click: list[Action] = [START, ClickAction(id="c1", target=target("#never", tag="button"))]
    error, driver = failure(page(status=500), click)
    assert (error.code, error.action_id, error.details) == (
        "SR_REPLAY_UI_HTTP_ERROR",
        "c1",
        {"httpStatus": 500},
    )
    assert "no element matches the target: the page answered HTTP 500" in error.message
    assert [name for name, _ in driver.actions if name == "click"] == []
    error, _ = failure(page(status=200), click)
    assert error.code == "SR_REPLAY_UI_TARGET_NOT_FOUND"
