"""PageActivity (replay/settling.py) follows a page's requests and main-frame navigations from
Playwright's events alone; here the events come from a stand-in page, in the order Playwright
emits them. No browser, no clock: waits end on events or on a deadline already passed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from playwright.async_api import Page

from skillreel.replay.settling import BODY_GRACE_S, PageActivity


@dataclass(eq=False)
class Frame:
    name: str


@dataclass(eq=False)
class Request:
    resource_type: str
    frame: Frame
    navigation: bool = False

    def is_navigation_request(self) -> bool:
        return self.navigation


@dataclass
class StandInPage:
    main_frame: Frame = field(default_factory=lambda: Frame("main"))
    handlers: dict[str, list[Callable[[Any], None]]] = field(default_factory=dict)

    def on(self, event: str, handler: Callable[[Any], None]) -> None:
        self.handlers.setdefault(event, []).append(handler)

    def emit(self, event: str, arg: Any) -> None:
        for handler in self.handlers.get(event, []):
            handler(arg)


def activity() -> tuple[StandInPage, PageActivity]:
    page = StandInPage()
    return page, PageActivity(cast(Page, page))


def test_requests_started_after_a_mark_are_pending_until_they_finish_or_fail() -> None:
    page, seen = activity()
    before = Request("fetch", page.main_frame)
    page.emit("request", before)
    mark = seen.mark()
    fetch, image = Request("fetch", page.main_frame), Request("image", Frame("child"))
    page.emit("request", fetch)
    page.emit("request", image)
    assert seen.pending(mark) == 2  # the one started before the mark is not the action's
    assert seen.busy(mark)
    page.emit("requestfinished", fetch)
    page.emit("requestfailed", image)
    assert seen.pending(mark) == 0
    assert not seen.busy(mark)
    assert seen.pending(0) == 1  # the earlier one is still in flight


@dataclass(eq=False)
class Response:
    request: Request


def test_a_scripts_request_waits_for_its_body_a_short_grace_after_its_response() -> None:
    """Chromium never finishes a fetch body the page does not read: a fire-and-forget fetch must
    not hold the step until the network cap, so a script's request stops counting
    BODY_GRACE_S after its response; a page that reads the body (and re-renders from it) finishes
    it within the grace and is waited for. A document or image always waits for its body."""
    page = StandInPage()
    now = [100.0]
    seen = PageActivity(cast(Page, page), clock=lambda: now[0])
    mark = seen.mark()
    read, unread = Request("fetch", page.main_frame), Request("xhr", page.main_frame)
    image = Request("image", page.main_frame)
    for request in (read, unread, image):
        page.emit("request", request)
    for request in (read, unread, image):
        page.emit("response", Response(request))
    assert seen.pending(mark) == 3  # every body is still coming
    page.emit("requestfinished", read)
    now[0] += BODY_GRACE_S / 2
    assert seen.pending(mark) == 2  # the unread body is waited for within the grace
    now[0] += BODY_GRACE_S
    assert seen.pending(mark) == 1  # past the grace, only the image's body counts
    page.emit("requestfinished", image)
    page.emit("requestfinished", unread)  # a body read late: nothing counted twice
    assert seen.pending(mark) == 0
    assert not seen.busy(mark)


async def test_waiting_for_a_script_request_ends_when_its_grace_ends() -> None:
    """The wait wakes up at the grace's end although no event comes (a fetch nobody reads)."""
    page = StandInPage()
    seen = PageActivity(cast(Page, page))
    mark = seen.mark()
    unread = Request("fetch", page.main_frame)
    page.emit("request", unread)
    page.emit("response", Response(unread))
    until = time.monotonic() + 1000 * BODY_GRACE_S  # far beyond: only the grace can end it
    await seen.wait_requests(mark, until)
    assert time.monotonic() < until
    assert seen.pending(mark) == 0


def test_open_ended_requests_are_never_waited_for() -> None:
    page, seen = activity()
    mark = seen.mark()
    for kind in ("eventsource", "websocket", "ping", "beacon", "media"):
        page.emit("request", Request(kind, page.main_frame))
    assert seen.pending(mark) == 0


def test_a_main_frame_navigation_is_pending_until_it_commits_then_until_load() -> None:
    page, seen = activity()
    mark = seen.mark()
    navigation = Request("document", page.main_frame, navigation=True)
    page.emit("request", navigation)
    assert seen.navigating()
    page.emit("framenavigated", page.main_frame)
    assert not seen.navigating()
    assert seen.unloaded()  # committed, not loaded
    assert seen.busy(mark)
    page.emit("requestfinished", navigation)
    page.emit("load", page)
    assert not seen.unloaded()
    assert not seen.busy(mark)


def test_a_child_frame_navigation_is_a_request_not_a_page_navigation() -> None:
    page, seen = activity()
    child = Frame("child")
    page.emit("request", Request("document", child, navigation=True))
    page.emit("framenavigated", child)
    assert not seen.navigating()
    assert not seen.unloaded()
    assert seen.pending(0) == 1


def test_a_failed_navigation_is_no_longer_pending() -> None:
    page, seen = activity()
    navigation = Request("document", page.main_frame, navigation=True)
    page.emit("request", navigation)
    page.emit("requestfailed", navigation)
    assert not seen.navigating()


async def test_waiting_for_requests_ends_when_the_last_one_finishes() -> None:
    page, seen = activity()
    mark = seen.mark()
    fetch = Request("fetch", page.main_frame)
    page.emit("request", fetch)
    loop = asyncio.get_running_loop()
    waiting = asyncio.ensure_future(seen.wait_requests(mark, loop.time() + 3600))
    await asyncio.sleep(0)
    assert not waiting.done()
    page.emit("requestfinished", fetch)
    await asyncio.wait_for(waiting, 60)  # ends on the event (the bound is never reached)


async def test_waiting_for_requests_stops_at_a_navigation_and_at_the_deadline() -> None:
    page, seen = activity()
    mark = seen.mark()
    page.emit("request", Request("fetch", page.main_frame))
    loop = asyncio.get_running_loop()
    waiting = asyncio.ensure_future(seen.wait_requests(mark, loop.time() + 3600))
    await asyncio.sleep(0)
    page.emit("request", Request("document", page.main_frame, navigation=True))
    await asyncio.wait_for(waiting, 60)  # a navigation ends the wait: it is waited for on its own
    await seen.wait_requests(mark, loop.time() - 1)  # a deadline already passed returns at once
    assert seen.pending(mark) == 2
