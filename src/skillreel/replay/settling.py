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

**Live pages** (rows a WebSocket or server-sent events push) answer an action with a message, not
with the response of a request. The same CDP session reports the page's sockets and event streams
(``Network.webSocketCreated``/``Closed``, ``webSocketFrameSent``/``Received``, an ``EventSource``
request and its ``eventSourceMessageReceived``): counted, never read (no payload, no URL is kept).
An action **asks** when it sends a socket frame, or starts a script request while a socket or event
stream of the page is open; an ask is answered by a message on any of them. Until then the action
counts one request pending, at most :data:`REPLY_WAIT_S` after its last ask was sent (or, for a
request, finished); each message after an ask holds it :data:`MESSAGE_QUIET_S` more, the whole at
most :data:`LIVE_CAP_S` after its first ask (a socket that streams forever), and within the step's
deadline like every request (``wait_requests``' bound). After that the DOM-quiet window decides. A
message since the action began makes it not calm (the full window). Messages nobody asked for (a
ticker) hold nothing. A page whose channels leave :data:`SILENT_REQUESTS` requests in a row
unanswered (a dev server's silent reload socket) has its requests ask no more in that document
(its frames still do): such a page pays the reply wait twice per document, not at every step.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Final

from playwright.async_api import CDPSession, Frame, Page, Request, Response
from playwright.async_api import Error as PlaywrightError

from ..model.addresses import PROXY_ANSWER_HEADER

QUIET_WINDOW_MS: Final = 30
# A form submitted by the action and not prevented: how long to wait, at most, for the navigation it
# plans to be known (it is, within a task or two; this bounds a page that cancels it in other ways).
LEAVING_WAIT_S: Final = 2.0
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
# Live pages: how long an ask waits for its first message, how long after a message the next is
# waited for, and how long an action's live traffic may hold it in all (after its first ask).
REPLY_WAIT_S: Final = 1.0
MESSAGE_QUIET_S: Final = 0.1
LIVE_CAP_S: Final = 2.0
MAX_ASKS: Final = 1_024
# After this many requests in a row that no message answered, a request no longer asks (the page's
# channels do not answer requests: a dev server's reload socket); a socket frame always asks.
SILENT_REQUESTS: Final = 2
FRAME: Final = "frame-"  # the key prefix of a socket frame's ask (a request's is its id)
# The CDP type of an event stream's request (open while the page lives; answered by its messages).
EVENT_STREAM: Final = "EventSource"


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
        self._live: set[str] = set()  # the page's open sockets and event streams (CDP request ids)
        self._asks: dict[str, tuple[int, float]] = {}  # an ask of a live page: position, when sent
        self._judged: set[str] = set()  # requests' asks whose wait is over, counted in _silent
        self._silent = 0  # requests in a row whose ask no message answered (_judge_requests)
        self._heard: list[tuple[int, float]] = []  # messages of the last LIVE_CAP_S: position, when
        self._heard_seq = 0  # position of the latest message
        self.document_status: int | None = None  # the HTTP status of the main frame's latest document
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
        if request.is_navigation_request() and self._is_main(_frame_of(request)):
            # a redirect's hop is followed by the next one; the enforcing proxy's own answer (its
            # refusal's 403, an unreachable server's 502) is not the site's, so it says nothing
            own = PROXY_ANSWER_HEADER in response.headers
            self.document_status = None if own else response.status
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
        if event.get("type") == EVENT_STREAM:
            self._live.add(str(event.get("requestId")))
            return
        if event.get("type") not in ANNOUNCED:
            return
        key = ("cdp", str(event.get("requestId")))
        seq = self._bump()
        self._inflight.setdefault(key, seq)  # a redirect keeps its first position
        if self._live and self._judge_requests() < SILENT_REQUESTS:
            self._asks.setdefault(key[1], (seq, self._clock()))

    def _judge_requests(self) -> int:
        """How many requests in a row a message did not answer (their wait over): the page's
        channels do not answer its requests (a dev server's silent reload socket) once it is
        :data:`SILENT_REQUESTS` (then no request asks again in this document); a request a message
        answered starts the count again."""
        now = self._clock()
        for key, (seq, at) in self._asks.items():
            done = ("cdp", key) not in self._inflight
            if key in self._judged or key.startswith(FRAME) or not done or now - at < REPLY_WAIT_S:
                continue
            self._judged.add(key)
            self._silent = 0 if self._heard_seq > seq else self._silent + 1
        if len(self._judged) > MAX_ASKS:
            self._judged &= set(self._asks)
        return self._silent

    def _on_announced_response(self, event: dict[str, Any]) -> None:
        key = ("cdp", str(event.get("requestId")))
        if key in self._inflight:
            self._responded[key] = self._clock()
            self._bump()

    def _on_announced_done(self, event: dict[str, Any]) -> None:
        request_id = str(event.get("requestId"))
        self._live.discard(request_id)  # an event stream that ended
        if request_id in self._asks:  # a request that asked: its answer is awaited from now
            self._asks[request_id] = (self._asks[request_id][0], self._clock())
        key = ("cdp", request_id)
        if key in self._inflight:
            self._inflight.pop(key, None)
            self._responded.pop(key, None)
            self._bump()

    # the page's sockets and event streams (watch): counted, never read

    def _on_socket_created(self, event: dict[str, Any]) -> None:
        self._live.add(str(event.get("requestId")))

    def _on_socket_closed(self, event: dict[str, Any]) -> None:
        self._live.discard(str(event.get("requestId")))

    def _on_frame_sent(self, _event: dict[str, Any]) -> None:
        seq = self._bump()
        self._asks[f"{FRAME}{seq}"] = (seq, self._clock())
        if len(self._asks) > MAX_ASKS:  # a page that sends forever: the oldest are long past
            for key in list(self._asks)[: len(self._asks) - MAX_ASKS]:
                del self._asks[key]

    def _on_message(self, _event: dict[str, Any]) -> None:
        self._heard_seq = self._bump()
        now = self._clock()
        self._heard.append((self._heard_seq, now))
        self._forget(now)

    def _forget(self, now: float) -> None:
        """Keep the messages of the last LIVE_CAP_S only (a socket streams forever; an older one
        answers no ask that still holds an action)."""
        self._heard = [(seq, at) for seq, at in self._heard if now - at < LIVE_CAP_S]

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
        cdp.on("Network.webSocketCreated", self._on_socket_created)
        cdp.on("Network.webSocketClosed", self._on_socket_closed)
        cdp.on("Network.webSocketFrameSent", self._on_frame_sent)
        cdp.on("Network.webSocketFrameReceived", self._on_message)
        cdp.on("Network.eventSourceMessageReceived", self._on_message)

    def document_replaced(self) -> None:
        """The main frame's document was replaced (the session's execution contexts were cleared):
        what the renderer announced for the old one will not be reported finished when its renderer
        went away with it. Forgetting it never hides a request of the action: Playwright's view of
        the same requests stays."""
        for key in [k for k in self._inflight if isinstance(k, tuple)]:
            self._inflight.pop(key, None)
            self._responded.pop(key, None)
        self._live.clear()  # its sockets and event streams went with it
        self._asks.clear()
        self._judged.clear()
        self._silent = 0

    # ---- questions -----------------------------------------------------------------------------------

    @property
    def live(self) -> bool:
        """The page holds an open socket or event stream. Its messages reach us as CDP events that
        may trail a direct action's settling under load, so the driver acts through Playwright
        there (its own round trips are the margin the live-page settling was measured with)."""
        return bool(self._live)

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
        live = self._live_until(since)
        asking = int(live is not None and self._clock() < live)
        return asking + sum(1 for seq in self._inflight.values() if seq > since)

    def _live_until(self, since: int) -> float | None:
        """Until when the live traffic of the action begun at ``since`` holds it (module docstring):
        None when it asked nothing."""
        asks = sorted(value for value in self._asks.values() if value[0] > since)
        if not asks:
            return None
        last_seq, last_at = max(asks, key=lambda ask: ask[1])
        answers = [at for seq, at in self._heard if seq > last_seq]
        until = max(answers) + MESSAGE_QUIET_S if answers else last_at + REPLY_WAIT_S
        return min(until, asks[0][1] + LIVE_CAP_S)

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
        live = self._live_until(since)
        if live is not None and live > self._clock():
            times.append(live)
        return min(times) if times else None

    def busy(self, since: int) -> bool:
        return self.navigating() or self.unloaded() or self.pending(since) > 0

    def calm(self, since: int) -> bool:
        """Nothing the action started (after position ``since``) can still change the page but its
        own follow-up work: no main-frame navigation was requested or committed since, every
        request started since has finished (a script's request with its body read, not forgotten
        after the grace), and no socket or event-stream message arrived since."""
        return (
            not self.busy(since)
            and self._navigated <= since
            and self._unread <= since
            and self._heard_seq <= since
        )

    async def changed(self, timeout_s: float) -> None:
        """Return at the next event, or after ``timeout_s``."""
        self._changed.clear()
        try:
            await asyncio.wait_for(self._changed.wait(), max(0.0, timeout_s))
        except TimeoutError:
            return

    def navigated_since(self, since: int) -> bool:
        """A main-frame navigation was requested or committed after position ``since``."""
        return self._navigated > since

    async def wait_leaving(self, since: int, until: float) -> None:
        """Until a main-frame navigation requested after ``since`` is known (a submitted form's,
        which the browser starts a task after the submit event), or ``until``."""
        while not self.navigated_since(since) and self._clock() < until:
            await self.changed(until - self._clock())

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
