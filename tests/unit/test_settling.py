"""PageActivity (replay/settling.py) follows a page's requests and main-frame navigations from
Playwright's events and the renderer's announcements on the driver's CDP session; here they come from
stand-ins, in the order Playwright and Chromium emit them. No browser, no clock: waits end on events
or on a deadline already passed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from playwright.async_api import CDPSession, Page

from skillreel.replay.settling import BODY_GRACE_S, LIVE_CAP_S, MESSAGE_QUIET_S, REPLY_WAIT_S, PageActivity


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


def test_an_action_is_calm_when_everything_it_started_has_finished_with_its_body_read() -> None:
    """A calm action gets the short DOM-quiet window after one animation frame (driver.py
    ``_quiet``): it started no navigation, and each of its requests finished with its body read.
    A request still in flight, a body the page left unread (forgotten after the grace) or a
    navigation keeps the full window."""
    page = StandInPage()
    now = [100.0]
    seen = PageActivity(cast(Page, page), clock=lambda: now[0])
    earlier = Request("fetch", page.main_frame)
    page.emit("request", earlier)  # in flight before the action: not the action's
    mark = seen.mark()
    assert seen.calm(mark)  # started nothing
    read = Request("fetch", page.main_frame)
    page.emit("request", read)
    assert not seen.calm(mark)
    page.emit("response", Response(read))
    assert not seen.calm(mark)  # its body is still coming
    page.emit("requestfinished", read)
    assert seen.calm(mark)

    mark = seen.mark()
    unread = Request("xhr", page.main_frame)
    page.emit("request", unread)
    page.emit("response", Response(unread))
    now[0] += 2 * BODY_GRACE_S
    assert not seen.busy(mark)  # no longer waited for...
    assert not seen.calm(mark)  # ...but what its body would render may come late
    assert seen.calm(seen.mark())  # a later action did not start it

    mark = seen.mark()
    navigation = Request("document", page.main_frame, navigation=True)
    page.emit("request", navigation)
    page.emit("requestfailed", navigation)
    assert not seen.busy(mark)
    assert not seen.calm(mark)  # a navigation was requested
    mark = seen.mark()
    page.emit("framenavigated", page.main_frame)  # the page navigated on its own
    page.emit("load", page)
    assert not seen.calm(mark)


# ---- the renderer's own announcements (PageActivity.watch) -----------------------------------------


@dataclass
class StandInSession:
    """The driver's CDP session: the Network notifications the renderer sends on it."""

    handlers: dict[str, list[Callable[[Any], None]]] = field(default_factory=dict)

    def on(self, event: str, handler: Callable[[Any], None]) -> None:
        self.handlers.setdefault(event, []).append(handler)

    def emit(self, event: str, **params: Any) -> None:
        for handler in self.handlers.get("Network." + event, []):
            handler(params)


def watched(clock: Callable[[], float] = time.monotonic) -> tuple[StandInPage, StandInSession, PageActivity]:
    page, session = StandInPage(), StandInSession()
    seen = PageActivity(cast(Page, page), clock=clock)
    seen.watch(cast(CDPSession, session))
    return page, session, seen


def test_a_script_request_the_renderer_announced_is_pending_before_playwright_reports_it() -> None:
    """Playwright reports a request once routing has paused it, which can come after the page
    answered the measurement that followed the action; the renderer's announcement on the driver's
    session comes before that answer. Announced alone, the request keeps the action busy and not
    calm until the renderer reports it finished or failed."""
    page, session, seen = watched()
    mark = seen.mark()
    session.emit("requestWillBeSent", requestId="1", type="Fetch")
    assert seen.pending(mark) == 1
    assert seen.busy(mark)
    assert not seen.calm(mark)
    session.emit("requestWillBeSent", requestId="1", type="Fetch")  # a redirect: the same request
    session.emit("requestWillBeSent", requestId="2", type="XHR")
    assert seen.pending(mark) == 2
    session.emit("responseReceived", requestId="1", type="Fetch")
    session.emit("loadingFinished", requestId="1")
    session.emit("loadingFailed", requestId="2")
    assert seen.pending(mark) == 0
    assert seen.calm(mark)
    # Playwright's report of the same request arrives later: it counts on its own, as before
    late = Request("fetch", page.main_frame)
    page.emit("request", late)
    assert seen.busy(mark)
    page.emit("requestfinished", late)
    assert not seen.busy(mark)


def test_an_announced_request_whose_body_is_never_read_ends_a_grace_after_its_response() -> None:
    now = [100.0]
    _, session, seen = watched(clock=lambda: now[0])
    mark = seen.mark()
    session.emit("requestWillBeSent", requestId="7", type="Fetch")
    session.emit("responseReceived", requestId="7", type="Fetch")
    now[0] += BODY_GRACE_S / 2
    assert seen.pending(mark) == 1
    now[0] += BODY_GRACE_S
    assert seen.pending(mark) == 0
    assert not seen.calm(mark)  # forgotten with its body unread: what it renders may come late


def test_only_a_scripts_requests_are_taken_from_the_renderer() -> None:
    """Documents (navigations: Playwright's events), images, styles, event streams and preflights
    are not: some are never reported finished on the page's session."""
    _, session, seen = watched()
    mark = seen.mark()
    for kind in ("Document", "Image", "Stylesheet", "EventSource", "WebSocket", "Ping", "Preflight", None):
        session.emit("requestWillBeSent", requestId=f"r-{kind}", type=kind)
    session.emit("loadingFinished", requestId="unknown")  # never announced: nothing happens
    assert seen.pending(mark) == 0
    assert seen.calm(mark)


def test_a_replaced_document_forgets_what_the_renderer_announced_for_the_old_one() -> None:
    """After a cross-process navigation the old renderer never reports its requests finished;
    Playwright's view of them stays."""
    page, session, seen = watched()
    mark = seen.mark()
    session.emit("requestWillBeSent", requestId="old", type="Fetch")
    also = Request("fetch", page.main_frame)
    page.emit("request", also)
    assert seen.pending(mark) == 2
    seen.document_replaced()
    assert seen.pending(mark) == 1
    session.emit("loadingFinished", requestId="old")  # late: nothing counted twice
    assert seen.pending(mark) == 1


# ---- live pages: socket and event-stream messages (counted, never read) -------------------------


def test_a_socket_frame_the_action_sent_is_pending_until_its_answer_then_a_short_quiet() -> None:
    now = [100.0]
    _, session, seen = watched(clock=lambda: now[0])
    session.emit("webSocketCreated", requestId="ws")
    mark = seen.mark()
    session.emit("webSocketFrameSent", requestId="ws")
    now[0] += REPLY_WAIT_S / 2  # the server pushes late: still waited for
    assert seen.pending(mark) == 1
    assert not seen.calm(mark)
    session.emit("webSocketFrameReceived", requestId="ws")
    assert seen.pending(mark) == 1  # a message holds it a short quiet more (a burst)
    now[0] += MESSAGE_QUIET_S
    assert seen.pending(mark) == 0
    assert not seen.busy(mark)
    assert not seen.calm(mark)  # a message arrived: the full DOM-quiet window follows


def test_an_unanswered_frame_holds_the_action_at_most_the_reply_wait() -> None:
    now = [100.0]
    _, session, seen = watched(clock=lambda: now[0])
    mark = seen.mark()
    session.emit("webSocketFrameSent", requestId="ws")
    now[0] += REPLY_WAIT_S - 0.01
    assert seen.pending(mark) == 1
    now[0] += 0.01
    assert seen.pending(mark) == 0
    assert seen.calm(mark)


def test_a_socket_that_streams_forever_holds_the_action_at_most_the_live_cap() -> None:
    now = [100.0]
    _, session, seen = watched(clock=lambda: now[0])
    mark = seen.mark()
    session.emit("webSocketFrameSent", requestId="ws")
    while now[0] < 100.0 + LIVE_CAP_S - 0.05:
        now[0] += 0.05
        session.emit("webSocketFrameReceived", requestId="ws")
        session.emit("webSocketFrameSent", requestId="ws")  # a heartbeat, too
        assert seen.pending(mark) == 1
    now[0] = 100.0 + LIVE_CAP_S
    assert seen.pending(mark) == 0


def test_a_request_asks_only_while_an_event_stream_or_socket_is_open() -> None:
    now = [100.0]
    _, session, seen = watched(clock=lambda: now[0])
    mark = seen.mark()
    session.emit("requestWillBeSent", requestId="1", type="Fetch")
    session.emit("loadingFinished", requestId="1")
    assert seen.pending(mark) == 0  # no live channel: a request is done when it is done
    session.emit("requestWillBeSent", requestId="events", type="EventSource")
    mark = seen.mark()
    session.emit("requestWillBeSent", requestId="2", type="Fetch")
    now[0] += REPLY_WAIT_S  # a slow request: its answer is awaited from when it finished
    session.emit("loadingFinished", requestId="2")
    assert seen.pending(mark) == 1
    session.emit("eventSourceMessageReceived", requestId="events")
    now[0] += MESSAGE_QUIET_S
    assert seen.pending(mark) == 0
    session.emit("loadingFailed", requestId="events")  # the stream ended: no more asks
    mark = seen.mark()
    session.emit("requestWillBeSent", requestId="3", type="XHR")
    session.emit("loadingFinished", requestId="3")
    assert seen.pending(mark) == 0


def test_messages_nobody_asked_for_hold_nothing_but_the_action_is_not_calm() -> None:
    _, session, seen = watched()
    session.emit("webSocketCreated", requestId="ws")
    mark = seen.mark()
    session.emit("webSocketFrameReceived", requestId="ws")  # a ticker
    assert seen.pending(mark) == 0
    assert not seen.calm(mark)
    assert seen.calm(seen.mark())


def test_a_replaced_document_forgets_its_sockets_and_what_they_asked() -> None:
    _, session, seen = watched()
    session.emit("webSocketCreated", requestId="ws")
    mark = seen.mark()
    session.emit("webSocketFrameSent", requestId="ws")
    seen.document_replaced()
    assert seen.pending(mark) == 0
    session.emit("requestWillBeSent", requestId="1", type="Fetch")
    session.emit("loadingFinished", requestId="1")
    assert seen.pending(mark) == 0  # no live channel left: the request asks nothing


def test_requests_stop_asking_on_a_page_whose_channels_never_answer_them() -> None:
    """A dev server's reload socket stays open and silent: two requests in a row wait the reply
    wait for nothing, then requests ask no more (frames still do); a new document starts afresh."""
    now = [100.0]
    _, session, seen = watched(clock=lambda: now[0])
    session.emit("webSocketCreated", requestId="hmr")

    def fetch(request_id: str) -> int:
        mark = seen.mark()
        session.emit("requestWillBeSent", requestId=request_id, type="Fetch")
        session.emit("loadingFinished", requestId=request_id)
        pending = seen.pending(mark)
        now[0] += REPLY_WAIT_S
        return pending

    assert [fetch("1"), fetch("2"), fetch("3"), fetch("4")] == [1, 1, 0, 0]
    mark = seen.mark()
    session.emit("webSocketFrameSent", requestId="hmr")
    assert seen.pending(mark) == 1  # a frame always asks
    session.emit("webSocketFrameReceived", requestId="hmr")
    now[0] += REPLY_WAIT_S
    seen.document_replaced()  # a new document: its channels are judged afresh
    session.emit("webSocketCreated", requestId="hmr-2")
    assert fetch("5") == 1


@dataclass(eq=False)
class Answer:
    request: Request
    status: int
    headers: dict[str, str] = field(default_factory=dict)


def test_the_documents_status_is_the_sites_never_the_enforcing_proxys_own_answer() -> None:
    """A failure report says "the page answered 500" from this status: the proxy's refusal (its
    403) or its unreachable-server 502, both marked ``x-skillreel-proxy``, say nothing."""
    page, seen = activity()
    site = Request("document", page.main_frame, navigation=True)
    page.emit("request", site)
    page.emit("response", Answer(site, 500))
    assert seen.document_status == 500
    for status, mark in ((403, "refused"), (502, "unreachable")):
        proxied = Request("document", page.main_frame, navigation=True)
        page.emit("request", proxied)
        page.emit("response", Answer(proxied, status, {"x-skillreel-proxy": mark}))
        assert seen.document_status is None


async def test_a_submitted_forms_navigation_is_waited_for_until_it_is_known_or_the_bound() -> None:
    """World.call: the page says a form was submitted; the browser starts its navigation a task
    later, and Playwright may report it after the page's answer: the wait ends when it is known."""
    page, seen = activity()
    mark = seen.mark()
    assert not seen.navigated_since(mark)
    waiting = asyncio.ensure_future(seen.wait_leaving(mark, time.monotonic() + 60))
    await asyncio.sleep(0)
    assert not waiting.done()
    page.emit("request", Request("fetch", page.main_frame))  # not a navigation: still waiting
    await asyncio.sleep(0)
    assert not waiting.done()
    page.emit("request", Request("document", page.main_frame, navigation=True))
    await asyncio.wait_for(waiting, 60)
    assert seen.navigated_since(mark)
    later = seen.mark()
    await seen.wait_leaving(later, time.monotonic())  # none comes: the bound ends it
    assert not seen.navigated_since(later)
