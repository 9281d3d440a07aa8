"""Event-driven settling after an action: wait for what the action started, not for a fixed time.

After every action the driver waits, each wait capped by the step's deadline:

1. for a **navigation** the action started: a main-frame navigation request until it commits (or
   fails), then the new document's ``load``;
2. for the **requests** it started (those Playwright reported after the action began, still in
   flight), at most :data:`NETWORK_CAP_S` and half the step's remaining time (a long poll must not
   eat the step); event streams and beacons are not waited for. A script's ``fetch``/XHR is
   waited for until its body has arrived, but at most :data:`BODY_GRACE_S` after its response:
   Chromium never finishes a response body the page does not read, so a fire-and-forget
   ``fetch`` would otherwise hold every step for the whole cap, while a page that reads the body
   (and re-renders from it) finishes it promptly; what the page then renders is what the
   DOM-quiet window and the next probe wait for;
3. for a short **DOM-quiet window** (:data:`QUIET_WINDOW_MS` without a DOM change, at most
   :data:`QUIET_CAP_MS`), measured by a mutation observer in the isolated world (``settle.js``) as
   part of the next page measurement (no extra round trip). When the action is **calm**
   (:meth:`PageActivity.calm`: it started no navigation, and every request it started has finished,
   its body read by the page), the window is :data:`CALM_WINDOW_MS`, after one animation frame of
   the page (its rendering callbacks run first; at most :data:`QUIET_WINDOW_MS` when the page
   renders no frames): what such an action changes, the page changes in its handlers, their
   promise callbacks (a response's body read), a task they queue or the next frame, all of them
   before that frame has passed; anything else keeps the full window.

When requests start or a navigation begins while the page is measured, the driver waits again and
measures again (at most :data:`MAX_ROUNDS` times). ``--settle MS`` adds a minimum on top, for odd
pages that change late without a request (a timer): by default there is none.

:class:`PageActivity` follows the page's requests and main-frame navigations from Playwright's events
alone (no round trip to the browser); it never sees a request's URL or content beyond its type.

**A request the page started is never seen late.** Playwright reports a request when the browser
process has paused it for routing (``Fetch.requestPaused``), which comes after the renderer's own
announcement and can come after the page has answered the measurement that followed: under load a
replay could decide a page was calm, end and close its context before it learnt of the request a
click (or a dialog's answer) had started. So :meth:`PageActivity.watch` also follows the script
requests (``fetch``, XHR) the renderer announces on the driver's own CDP session
(``Network.requestWillBeSent`` ... ``loadingFinished``/``loadingFailed``): the renderer sends those
notifications on that session in order, before its answer to any later call there, so when a
measurement's answer arrives every script request the page started before answering is already
known and counts as pending (with the same body grace) until the renderer reports it finished. Both
views count; either one keeps the page busy.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Final

from playwright.async_api import CDPSession, Frame, Page, Request, Response
from playwright.async_api import Error as PlaywrightError

QUIET_WINDOW_MS: Final = 30
# After a calm action (nothing in flight, no navigation): one animation frame, then this long quiet.
# It covers the page's own follow-up work only, not the delivery of a request it started: that is
# known before the page's answer (PageActivity.watch), however late routing reports it.
CALM_WINDOW_MS: Final = 10
QUIET_CAP_MS: Final = 1_500
NETWORK_CAP_S: Final = 5.0
# How long a script's request that has its response is still waited for (its body being read).
BODY_GRACE_S: Final = 0.3
MAX_ROUNDS: Final = 4
# Resource types that may stay open for as long as the page lives: never waited for.
OPEN_ENDED: Final = frozenset({"eventsource", "websocket", "ping", "beacon", "manifest", "media"})
# A script's requests: their body may never be read, so they may never "finish" (BODY_GRACE_S).
SCRIPTED: Final = frozenset({"fetch", "xhr"})
# The requests the renderer announces on the driver's own CDP session (Network.requestWillBeSent,
# in CDP's spelling): a script's, the ones a page starts from its handlers. The renderer sends them
# on that session before its answer to any later call there (PageActivity.watch).
ANNOUNCED: Final = frozenset({"Fetch", "XHR"})


class PageActivity:
    """The page's in-flight requests and main-frame navigations, from Playwright's events.

    Positions (:meth:`mark`) count events; "since a mark" means "started after that position".
    """

    def __init__(self, page: Page, clock: Callable[[], float] = time.monotonic) -> None:
        self._page = page
        self._clock = clock
        self._seq = 0
        # a request in flight: Playwright's Request, or ("cdp", requestId) announced by the renderer
        self._inflight: dict[Request | tuple[str, str], int] = {}
        self._responded: dict[Request | tuple[str, str], float] = {}  # scripts' with a response: when
        self._navigating: dict[Request, int] = {}
        self._committed = 0  # position of the latest main-frame commit
        self._navigated = 0  # position of the latest main-frame navigation request or commit
        self._unread = 0  # position of the latest script request forgotten with its body unread
        self._loaded = 0  # position up to which the main frame is known to have loaded
        self._changed = asyncio.Event()
        page.on("request", self._on_request)
        page.on("response", self._on_response)
        page.on("requestfinished", self._on_done)
        page.on("requestfailed", self._on_done)
        page.on("framenavigated", self._on_navigated)
        page.on("load", self._on_load)

    # ---- events ------------------------------------------------------------------------------------

    def _bump(self) -> int:
        self._seq += 1
        self._changed.set()
        return self._seq

    def _on_request(self, request: Request) -> None:
        seq = self._bump()
        if request.resource_type in OPEN_ENDED:
            return
        self._inflight[request] = seq
        if request.is_navigation_request() and self._is_main(_frame_of(request)):
            self._navigating[request] = seq
            self._navigated = seq

    def _on_response(self, response: Response) -> None:
        request = response.request
        if request.resource_type in SCRIPTED and request in self._inflight:
            self._responded[request] = self._clock()
            self._bump()

    def _on_done(self, request: Request) -> None:
        self._inflight.pop(request, None)
        self._responded.pop(request, None)
        self._navigating.pop(request, None)
        self._bump()

    # the renderer's own announcements on the driver's CDP session (watch)

    def _on_announced(self, event: dict[str, Any]) -> None:
        if event.get("type") not in ANNOUNCED:
            return
        key = ("cdp", str(event.get("requestId")))
        seq = self._bump()
        self._inflight.setdefault(key, seq)  # a redirect keeps its first position

    def _on_announced_response(self, event: dict[str, Any]) -> None:
        key = ("cdp", str(event.get("requestId")))
        if key in self._inflight:
            self._responded[key] = self._clock()
            self._bump()

    def _on_announced_done(self, event: dict[str, Any]) -> None:
        key = ("cdp", str(event.get("requestId")))
        if key in self._inflight:
            self._inflight.pop(key, None)
            self._responded.pop(key, None)
            self._bump()

    def _on_navigated(self, frame: Frame) -> None:
        if self._is_main(frame):
            self._navigating.clear()
            self._committed = self._navigated = self._bump()

    def _on_load(self, _page: Any) -> None:
        self._loaded = self._bump()

    def _is_main(self, frame: Frame | None) -> bool:
        return frame is not None and frame == self._page.main_frame

    # ---- the renderer's view ------------------------------------------------------------------------

    def watch(self, cdp: CDPSession) -> None:
        """Follow the script requests the renderer announces on ``cdp`` (the session the driver
        measures the page on; the caller enables its ``Network`` domain after this). Only the
        request's type and id are read."""
        cdp.on("Network.requestWillBeSent", self._on_announced)
        cdp.on("Network.responseReceived", self._on_announced_response)
        cdp.on("Network.loadingFinished", self._on_announced_done)
        cdp.on("Network.loadingFailed", self._on_announced_done)

    def document_replaced(self) -> None:
        """The main frame's document was replaced (the session's execution contexts were cleared):
        what the renderer announced for the old one will not be reported finished when its renderer
        went away with it. Forgetting it never hides a request of the action: Playwright's view of
        the same requests stays."""
        for key in [k for k in self._inflight if isinstance(k, tuple)]:
            self._inflight.pop(key, None)
            self._responded.pop(key, None)

    # ---- questions -----------------------------------------------------------------------------------

    def mark(self) -> int:
        return self._seq

    def navigating(self) -> bool:
        """A main-frame navigation was requested and has neither committed nor failed."""
        return bool(self._navigating)

    def unloaded(self) -> bool:
        """The main frame committed a document whose ``load`` has not been seen."""
        return self._committed > self._loaded

    def loaded(self) -> None:
        """The caller saw the main frame loaded (``wait_for_load_state`` returned)."""
        self._loaded = self._seq

    def pending(self, since: int) -> int:
        """Requests started after ``since`` and still in flight (a script's request only until
        :data:`BODY_GRACE_S` after its response)."""
        self._expire()
        return sum(1 for seq in self._inflight.values() if seq > since)

    def _expire(self) -> None:
        """Forget the scripts' requests whose body was not read within the grace."""
        now = self._clock()
        for request in [r for r, at in self._responded.items() if now - at >= BODY_GRACE_S]:
            self._unread = max(self._unread, self._inflight.pop(request, 0))
            self._responded.pop(request, None)

    def _next_expiry(self, since: int) -> float | None:
        """When the next responded script request of the action stops counting as pending."""
        times = [
            at + BODY_GRACE_S
            for request, at in self._responded.items()
            if self._inflight.get(request, 0) > since
        ]
        return min(times) if times else None

    def busy(self, since: int) -> bool:
        return self.navigating() or self.unloaded() or self.pending(since) > 0

    def calm(self, since: int) -> bool:
        """Nothing the action started (after position ``since``) can still change the page but its
        own follow-up work: no main-frame navigation was requested or committed since, and every
        request started since has finished (a script's request with its body read, not forgotten
        after the grace)."""
        return not self.busy(since) and self._navigated <= since and self._unread <= since

    async def changed(self, timeout_s: float) -> None:
        """Return at the next event, or after ``timeout_s``."""
        self._changed.clear()
        try:
            await asyncio.wait_for(self._changed.wait(), max(0.0, timeout_s))
        except TimeoutError:
            return

    async def wait_navigation(self, deadline: float) -> None:
        """Until no main-frame navigation is pending (committed or failed), or the deadline."""
        while self.navigating() and self._clock() < deadline:
            await self.changed(deadline - self._clock())

    async def wait_requests(self, since: int, until: float) -> None:
        """Until every request started after ``since`` has finished, a navigation is pending, or
        ``until``."""
        while self.pending(since) and not self.navigating() and self._clock() < until:
            expiry = self._next_expiry(since)
            await self.changed(min(until, expiry if expiry is not None else until) - self._clock())


def _frame_of(request: Request) -> Frame | None:
    try:
        return request.frame
    except PlaywrightError:  # a service worker's request has no frame
        return None
