"""PageActivity (replay/settling.py) follows a page's requests and main-frame navigations from
Playwright's events alone; here the events come from a stand-in page, in the order Playwright
emits them. No browser, no clock: waits end on events or on a deadline already passed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from playwright.async_api import Page

from skillreel.replay.settling import PageActivity


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
