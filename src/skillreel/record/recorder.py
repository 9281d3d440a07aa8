"""Playwright/CDP glue for recording: install the capture script in every page's isolated world,
receive its events and the browser's notifications, and hand them to the events log
(:mod:`skillreel.record.capture`) in the order they happened (ARCHITECTURE section 6).

For every page the context opens, :class:`Recorder` opens its own CDP session and, in this order,
enables ``Page`` and ``Runtime`` (without them the isolated script never runs), adds the binding
:data:`BINDING` to the isolated world :data:`WORLD` only, and registers the capture script
(``locate/element.js`` + ``locate/fingerprint.js`` + ``record/recorder.js``) for that world on every
new document (``runImmediately`` covers the current one). The page's main world sees neither.

Each world is configured, once it exists, with ``Runtime.callFunctionOn`` (data as arguments,
never formatted into script text): the recording's fingerprint salt, the non-sensitive values
typed so far (so the page can keep them out of what it reports after a navigation too), which of
them were public when typed, and the texts the user gave before recording (start URL,
description, failure conditions: a value typed that already appears in them, or in the URL of the
page it is typed on, is public; see ``record.redact.TypedValues``).

CDP notifications are queued in arrival order and handled by one task, so the log keeps the order
in which things happened. What a payload or a navigation becomes in the value-free events log (and
what is refused) is :mod:`skillreel.record.capture`: :class:`Recorder` tracks the pages, their
worlds and their navigations, and hands what they report to its
:class:`~skillreel.record.capture.CaptureLog`. Navigations of the first page's main frame are
classified when they start (``Page.frameStartedNavigating``, after a
``Page.frameRequestedNavigation`` for the page's own) and recorded when the same loader commits
(``Page.frameNavigated``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Final

from playwright.async_api import BrowserContext, CDPSession, Page
from playwright.async_api import Error as PlaywrightError
from pydantic import ValidationError

from ..errors import RecordError
from ..locate import locate_script
from ..model.actions import Retry
from ..model.events import NavigateReason, PageEvent, RecordedEvent
from ..model.locators import ElementSet, LocatorBundle
from ..model.urls import DEFAULT_RULE, QueryRule
from . import paging
from .binding import Over
from .capture import CAPTURE_FAILED, Capture, CaptureLog, classify_start
from .redact import scrub_bundle, scrub_set, scrub_structural, scrub_url

log = logging.getLogger(__name__)

WORLD: Final = "skillreel-recorder"
BINDING: Final = "__skillreelRecorderEmit"
MAX_PAGES: Final = 64

# ``Runtime.callFunctionOn`` evaluates its declaration to a function in the target world and calls
# it with the arguments: naming the recorder's own functions keeps every script in the .js files.
_CONFIGURE: Final = "SkillreelRecorder.configure"
_FLUSH: Final = "SkillreelRecorder.flush"
_RESOLVE: Final = "SkillreelRecorder.resolve"
_QUIET: Final = "SkillreelRecorder.quiet"
_ARM: Final = "SkillreelRecorder.arm"
_DISARM: Final = "SkillreelRecorder.disarm"
_EXTRACTABLE: Final = "SkillreelRecorder.extractable"
_WAITABLE: Final = "SkillreelRecorder.waitable"
_NOTIFICATIONS: Final = (
    "Runtime.executionContextCreated",
    "Runtime.executionContextDestroyed",
    "Runtime.executionContextsCleared",
    "Runtime.bindingCalled",
    "Page.frameNavigated",
    "Page.frameRequestedNavigation",
    "Page.frameStartedNavigating",
    "Page.frameStoppedLoading",
    "Page.javascriptDialogOpening",
    "Page.javascriptDialogClosed",
)
QUIET_MS: Final = 200  # the DOM must stay unchanged this long to count as settled
SETTLE_LIMIT_MS: Final = 5_000  # settling never waits longer than this (or the step timeout)
_POLL_S: Final = 0.05
AUTOMATION_FAILED: Final = "SR_RECORD_AUTOMATION_FAILED"
NAVIGATION_GRACE_MS: Final = 1_000  # how long a navigation the page asked for may take to start


@functools.cache
def capture_script() -> str:
    """The script each isolated world runs: the shared element description, the recording badge
    (``indicator.js``), the picker (``picker.js``) and rows (``rows.js``) blocks, then the recorder
    (``click_target.js``, what a click acts on, ``hover_watch.js``, what a hover showed, then
    ``recorder.js``)."""
    here = resources.files("skillreel.record")
    names = ("indicator.js", "picker.js", "rows.js", "click_target.js", "hover_watch.js", "recorder.js")
    parts = (here.joinpath(name).read_text("utf-8") for name in names)
    return locate_script() + "\n;\n".join(parts)


# ---- the recorder --------------------------------------------------------------------------------


@dataclass(eq=False)
class _Tap:
    """The recorder's hold on one page: its CDP session, its worlds and its history."""

    index: int
    page: Page
    cdp: CDPSession
    main_frame: str = ""
    worlds: dict[int, str] = field(default_factory=dict)
    requested: bool = False
    requests: int = 0  # main-frame navigations the page asked for, and those :meth:`ready` saw
    requests_seen: int = 0
    starts: dict[str, NavigateReason | None] = field(default_factory=dict)  # loaderId -> reason
    loading: bool = False  # a main-frame navigation started and has not committed or stopped
    dialog: str | None = None  # the kind of the JavaScript dialog open in the page

    def top_world(self) -> int | None:
        ids = [ctx for ctx, frame in self.worlds.items() if frame == self.main_frame]
        return max(ids) if ids else None


@dataclass(frozen=True)
class Marked:
    """The element (or the set of like elements) a person marked, by structure only; both None
    when the click fell on nothing that can be described."""

    target: LocatorBundle | None
    items: ElementSet | None


@dataclass(frozen=True)
class Extractable:
    """What an automation ``extract`` step's selectors designate: how many elements, the one
    element's description or the set's, and each field's (count inside the first item, target)."""

    count: int
    target: LocatorBundle | None
    items: ElementSet | None
    fields: dict[str, tuple[int, LocatorBundle | None]]


@dataclass(frozen=True)
class Resolved:
    """An assertion selector resolved on the final page: how many elements, and the first's bundle."""

    count: int
    target: LocatorBundle | None


class Recorder:
    """Captures trusted interactions in every page of ``context`` into a value-free events log."""

    def __init__(
        self,
        context: BrowserContext,
        *,
        salt: str,
        on_event: Callable[[RecordedEvent], None] | None = None,
        public: Sequence[str] = (),
        dialogs: bool = False,
        url_rule: QueryRule = DEFAULT_RULE,
        indicator: bool = False,
    ) -> None:
        self._context = context
        self._indicator = indicator  # draw indicator.js's badge in the top documents (headed)
        self._log = CaptureLog(salt=salt, public=public, url_rule=url_rule, on_event=on_event)
        self._dialogs = dialogs  # record the dialogs a person answers (interactive recording)
        self._mark: asyncio.Future[Marked] | None = None
        self._mark_all = False
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._taps: list[_Tap] = []
        self._attaching: set[asyncio.Task[None]] = set()
        self._starting = False
        self._consumer: asyncio.Task[None] | None = None
        self._closed = False
        self.download_names: list[str] = []  # an automation's names for its next downloads

    # -- lifecycle --------------------------------------------------------------------------------

    async def start(self, page: Page) -> None:
        """Attach to ``page`` (the first page) and to every page the context opens later."""
        self._consumer = asyncio.get_running_loop().create_task(self._consume())
        self._context.on("page", self._on_new_page)
        await self._attach(page)

    async def close(self) -> None:
        """Stop listening (the events captured so far stay available to :meth:`finish`)."""
        if self._consumer is None or self._closed:
            return
        self._closed = True
        self._context.remove_listener("page", self._on_new_page)
        for task in list(self._attaching):
            task.cancel()
        self._consumer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._consumer
        for tap in self._taps:
            with contextlib.suppress(PlaywrightError):
                await tap.cdp.detach()

    @contextlib.asynccontextmanager
    async def starting(self, url: str | None) -> AsyncIterator[None]:
        """Record the start navigation; navigations inside the block (loading it) are not recorded.
        ``url`` is the environment's start URL, already normalised with the target's query rule;
        None when a resumed recording reopens the page its kept events lead to (:meth:`preload`)."""
        if url is not None:
            self._log.start(url)
        self._starting = True
        try:
            yield
        finally:
            await self.settle()
            self._starting = False

    async def settle(self) -> None:
        """Wait until every notification received so far has been handled."""
        while self._attaching:
            await asyncio.gather(*self._attaching, return_exceptions=True)
        if self._consumer is None or self._consumer.done():
            raise RecordError(CAPTURE_FAILED, "the recorder is not running; nothing was stored")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(done)
        await done

    async def flush(self) -> None:
        """Make every world report the field edits still in progress, then settle."""
        await self.settle()
        for tap in self._taps:
            if tap.page.is_closed():
                continue
            for ctx in list(tap.worlds):
                await self._call(tap, ctx, _FLUSH)
        await self.settle()

    def preload(self, events: Sequence[RecordedEvent]) -> None:
        """Continue a kept recording (``record.kept``): its events come first, as they were kept
        (validated then and again when read back), and what is captured now follows them."""
        for event in events:
            self._log.append(event)

    def remember_typed(self, values: Iterable[str]) -> None:
        """Count ``values`` as typed, before :meth:`start` (a repair's replayed inputs): what the
        page echoes of them stays out of what it reports, as a value typed here would."""
        for value in values:
            self._log.typed.add(value)

    def keepable(self) -> tuple[tuple[RecordedEvent, ...], str | None] | None:
        """What a failed recording may keep: its events and the first page's address (scrubbed as
        a recorded navigation is; None when it cannot be kept). None when anything the page sent
        was refused (such a recording is not continued)."""
        if self._log.problems:
            return None
        url = None
        if self._taps and not self._taps[0].page.is_closed():
            url = scrub_url(self._taps[0].page.url, self._log.typed, self._log.url_rule)
        return self._log.events, url

    def finish(self) -> Capture:
        """The events log (``SR_RECORD_CAPTURE_FAILED`` if anything from the page was refused)."""
        return self._log.finish()

    @property
    def events(self) -> tuple[RecordedEvent, ...]:
        return self._log.events

    @property
    def salt(self) -> str:
        return self._log.salt

    # -- settling ---------------------------------------------------------------------------------

    async def settle_page(self, timeout_ms: int) -> bool:
        """Wait until the first page has settled: no main-frame navigation under way, the document
        loaded, and its DOM unchanged for :data:`QUIET_MS` (bounded by ``timeout_ms`` and
        :data:`SETTLE_LIMIT_MS`). True when it settled; False when the bound came first (the checks
        that follow then report what they find)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + min(timeout_ms, SETTLE_LIMIT_MS) / 1000
        if not self._taps:
            return False
        tap = self._taps[0]
        while (left := deadline - loop.time()) > 0:
            await self.settle()
            if tap.page.is_closed():
                return False
            ctx = tap.top_world()
            if tap.loading or ctx is None:
                await asyncio.sleep(_POLL_S)
                continue
            try:
                await tap.page.wait_for_load_state("load", timeout=max(1, int(left * 1000)))
            except PlaywrightError:
                return False
            quiet = await self._call(
                tap, ctx, _QUIET, {"quietMs": QUIET_MS, "timeoutMs": int(left * 1000)}, await_promise=True
            )
            await self.settle()
            if quiet is True and not tap.loading and tap.top_world() == ctx:
                return True
            if quiet is False:
                return False
        return False

    async def ready(self, timeout_ms: int) -> None:
        """After a scripted action: when it started a navigation of the first page (the page asked
        for one, or one is under way), wait until it committed and the new document is ready (its
        DOM content loaded, the recorder running in it), within ``timeout_ms``. Returns at the
        bound too: the step that follows then reports what it finds."""
        await self.settle()
        if not self._taps:
            return
        tap = self._taps[0]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_ms / 1000
        grace = loop.time() + min(timeout_ms, NAVIGATION_GRACE_MS) / 1000  # a request that starts nothing
        waited, asked = False, tap.requests > tap.requests_seen  # asked since the last step
        tap.requests_seen = tap.requests
        while (
            tap.loading or (asked and tap.requested and loop.time() < grace) or tap.top_world() is None
        ) and (loop.time() < deadline):
            if tap.page.is_closed():
                return
            waited = True
            await asyncio.sleep(_POLL_S)
            await self.settle()
        if waited and not tap.page.is_closed() and (left := deadline - loop.time()) > 0:
            with contextlib.suppress(PlaywrightError):
                await tap.page.wait_for_load_state("domcontentloaded", timeout=max(1, int(left * 1000)))
            await self.settle()

    # -- assertions -------------------------------------------------------------------------------

    async def resolve(self, selector: str, *, all_matches: bool = False) -> Resolved:
        """Resolve a CSS selector in the first page's top document (in the isolated world)."""
        await self.settle()
        tap = self._taps[0]
        ctx = tap.top_world()
        if ctx is None:
            raise RecordError(
                CAPTURE_FAILED, "the recorder is not running in the final page; nothing was stored"
            )
        result = await self._call(tap, ctx, _RESOLVE, selector, all_matches)
        if not isinstance(result, dict):
            raise RecordError(CAPTURE_FAILED, "the final page went away; nothing was stored")
        target = None
        if result.get("target") is not None:
            try:
                bundle = LocatorBundle.parse(result["target"])
            except (ValidationError, ValueError) as exc:
                raise RecordError(CAPTURE_FAILED, "the recorder described an element badly") from exc
            target = scrub_bundle(bundle, self._log.typed, self._log.salt)
        return Resolved(int(result.get("count", 0)), target)

    def append_check(
        self,
        kind: str,
        target: LocatorBundle | None,
        check: str | None = None,
        expected: str | int | None = None,
    ) -> None:
        """Append an ``observe`` or ``assert`` event (the user's assertions, at the end)."""
        self._log.append_event(kind, target=target, check=check, expected=expected)

    # -- attaching --------------------------------------------------------------------------------

    def _on_new_page(self, page: Page) -> None:
        task = asyncio.get_running_loop().create_task(self._attach(page))
        self._attaching.add(task)
        task.add_done_callback(self._attaching.discard)

    async def _attach(self, page: Page) -> None:
        if len(self._taps) >= MAX_PAGES:
            self._log.problem(f"the recording opened more than {MAX_PAGES} pages")
            return
        try:
            cdp = await self._context.new_cdp_session(page)
            tap = _Tap(len(self._taps), page, cdp)
            self._taps.append(tap)
            paging.watch(page, tap.index, self._queue.put_nowait, self._log, self.download_names)
            for name in _NOTIFICATIONS:
                cdp.on(name, functools.partial(self._enqueue, tap, name))
            await cdp.send("Page.enable")
            await cdp.send("Runtime.enable")
            tree = await cdp.send("Page.getFrameTree")
            tap.main_frame = tree["frameTree"]["frame"]["id"]
            await cdp.send("Runtime.addBinding", {"name": BINDING, "executionContextName": WORLD})
            await cdp.send(
                "Page.addScriptToEvaluateOnNewDocument",
                {"source": capture_script(), "worldName": WORLD, "runImmediately": True},
            )
        except PlaywrightError as exc:
            if page.is_closed() and self._taps and self._taps[0].page is not page:
                log.debug("a popup closed while attaching: %s", type(exc).__name__)
                return
            self._log.problem("the recorder could not attach to a page")

    def _enqueue(self, tap: _Tap, name: str, params: dict[str, Any]) -> None:
        self._queue.put_nowait((tap, name, params, self._starting))

    # -- handling notifications, in order ---------------------------------------------------------

    async def _consume(self) -> None:
        while True:
            item = await self._queue.get()
            if paging.noted(item):  # a download or a popup's close, in its place (record/paging.py)
                continue
            if isinstance(item, asyncio.Future):
                if not item.done():
                    item.set_result(None)
                continue
            tap, name, params, starting = item
            try:
                await self._handle(tap, name, params, starting)
            except PlaywrightError as exc:  # the page or the browser went away meanwhile
                log.debug("while handling %s: %s", name, type(exc).__name__)
            except (ValidationError, ValueError, KeyError, TypeError) as exc:
                # Malformed input from the browser: the recording fails (nothing is stored), but the
                # queue keeps draining so nobody waiting on it hangs.
                log.debug("while handling %s: %s", name, type(exc).__name__)
                self._log.problem("the browser reported something the recorder could not use")

    async def _handle(self, tap: _Tap, name: str, params: dict[str, Any], starting: bool) -> None:
        if name == "Runtime.bindingCalled":
            self._on_binding(tap, params)
        elif name == "Runtime.executionContextCreated":
            context = params.get("context") or {}
            if context.get("name") == WORLD:
                tap.worlds[context["id"]] = (context.get("auxData") or {}).get("frameId", "")
                config = {**self._log.world_config(), "indicator": self._indicator}  # indicator.js
                await self._call(tap, context["id"], _CONFIGURE, config)
        elif name == "Runtime.executionContextDestroyed":
            tap.worlds.pop(params.get("executionContextId", -1), None)
        elif name == "Runtime.executionContextsCleared":
            tap.worlds.clear()
        elif name == "Page.frameRequestedNavigation":
            if params.get("frameId") == tap.main_frame:
                tap.requested, tap.requests = True, tap.requests + 1
        elif name == "Page.frameStoppedLoading":
            if params.get("frameId") == tap.main_frame:
                tap.loading = False
        elif name == "Page.frameStartedNavigating":
            if params.get("frameId") == tap.main_frame:
                tap.loading = params.get("navigationType") not in ("sameDocument", "historySameDocument")
                reason = classify_start(str(params.get("navigationType", "")), tap.requested)
                tap.requested = False
                if len(tap.starts) >= 64:
                    tap.starts.pop(next(iter(tap.starts)))
                tap.starts[str(params.get("loaderId", ""))] = reason
        elif name == "Page.frameNavigated":
            self._on_navigated(tap, params.get("frame") or {}, params.get("type"), starting)
        elif name in ("Page.javascriptDialogOpening", "Page.javascriptDialogClosed"):
            self._on_dialog(tap, name, params)

    async def _call(self, tap: _Tap, ctx: int, function: str, *args: Any, await_promise: bool = False) -> Any:
        """Call a recorder function in one world; None when that world is gone."""
        try:
            reply = await tap.cdp.send(
                "Runtime.callFunctionOn",
                {
                    "functionDeclaration": function,
                    "executionContextId": ctx,
                    "returnByValue": True,
                    "awaitPromise": await_promise,
                    "arguments": [{"value": a} for a in args],
                },
            )
        except PlaywrightError:
            return None
        if "exceptionDetails" in reply:
            log.debug("a recorder call raised in the page")
            return None
        return (reply.get("result") or {}).get("value")

    def _on_binding(self, tap: _Tap, params: dict[str, Any]) -> None:
        if params.get("name") != BINDING:
            return
        if params.get("executionContextId") not in tap.worlds:  # only our worlds have the binding
            self._log.drop("page-left")
            return
        event = self._log.validate(params.get("payload"))
        if event is None:
            return
        if event.type == "mark":
            self._on_mark(tap.index, event)
            return
        if event.drop is not None:  # the page's recorder kept nothing of an event: counted
            self._log.drop(event.drop)
            return
        self._log.accept(tap.index, event, tap.page.url)

    # -- marks and scripted v2 steps ---------------------------------------------------------------

    async def arm_mark(self, *, all_items: bool) -> asyncio.Future[Marked]:
        """Arm mark mode in the first page: its next trusted click is swallowed (the page never
        receives it) and reported as the marked element. The future completes with it; only a
        mark this method armed counts (the page cannot forge one)."""
        await self.settle()
        if self._mark is not None and not self._mark.done():
            self._mark.cancel()
        tap = self._taps[0]
        ctx = tap.top_world()
        if ctx is None or await self._call(tap, ctx, _ARM, {"all": all_items}) is not True:
            raise RecordError(CAPTURE_FAILED, "the recorder could not arm a mark in the page")
        self._mark = asyncio.get_running_loop().create_future()
        self._mark_all = all_items
        return self._mark

    def disarm_mark(self) -> None:
        """Forget a pending mark (the page's armed state is cleared on its next call or click)."""
        if self._mark is not None and not self._mark.done():
            self._mark.cancel()
        self._mark = None
        for tap in self._taps[:1]:
            ctx = tap.top_world()
            if ctx is not None:
                task = asyncio.get_running_loop().create_task(self._call(tap, ctx, _DISARM))
                self._attaching.add(task)
                task.add_done_callback(self._attaching.discard)

    def _on_mark(self, page: int, event: PageEvent) -> None:
        pending = self._mark
        if pending is None or pending.done() or page != 0:
            log.debug("a mark nobody armed was ignored")
            self._log.drop("mark-unarmed")
            return
        self._mark = None
        if event.items is not None and self._mark_all:
            items = scrub_set(event.items, self._log.typed)
            pending.set_result(Marked(None, items))
        elif event.target is not None and not self._mark_all:
            pending.set_result(Marked(scrub_structural(event.target, self._log.typed, self._log.salt), None))
        else:
            pending.set_result(Marked(None, None))

    async def extractable(
        self,
        selector: str,
        *,
        all_items: bool,
        fields: dict[str, str],
        attributes: dict[str, str | None] | None = None,
    ) -> Extractable:
        """Describe what an automation ``extract`` step names, in the first page's top document
        (``attributes``: the attribute each target reads, by field name, ``""`` for the element)."""
        reads = attributes or {}
        result = await self._top_call(_EXTRACTABLE, selector, all_items, fields)
        count = int(result.get("count", 0))
        target = items = None
        described: dict[str, tuple[int, LocatorBundle | None]] = {}
        try:
            if result.get("target") is not None:
                target = scrub_structural(
                    LocatorBundle.parse(result["target"]),
                    self._log.typed,
                    self._log.salt,
                    attribute=reads.get(""),
                )
            if result.get("items") is not None:
                items = scrub_set(ElementSet.parse(result["items"]), self._log.typed)
            for name, found in (result.get("fields") or {}).items():
                inner = found.get("target")
                bundle = (
                    scrub_structural(LocatorBundle.parse(inner), self._log.typed, self._log.salt)
                    if inner
                    else None
                )
                described[str(name)] = (int(found.get("count", 0)), bundle)
        except (ValidationError, ValueError, AttributeError) as exc:
            raise RecordError(CAPTURE_FAILED, "the recorder described an element badly") from exc
        return Extractable(count, target, items, described)

    async def waitable(self, selector: str) -> Resolved:
        """Describe the one element an automation ``wait`` step names."""
        result = await self._top_call(_WAITABLE, selector)
        target = None
        if result.get("target") is not None:
            try:
                target = scrub_bundle(LocatorBundle.parse(result["target"]), self._log.typed, self._log.salt)
            except (ValidationError, ValueError) as exc:
                raise RecordError(CAPTURE_FAILED, "the recorder described an element badly") from exc
        return Resolved(int(result.get("count", 0)), target)

    async def _top_call(self, function: str, *args: Any) -> dict[str, Any]:
        """Call a recorder function in the first page's top document, once a navigation under way
        there has committed (a document replaced mid-call is waited for once more)."""
        tap = self._taps[0]
        for _ in range(2):
            await self.ready(SETTLE_LIMIT_MS)
            ctx = tap.top_world()
            result = None if ctx is None else await self._call(tap, ctx, function, *args)
            if isinstance(result, dict):
                return result
        if tap.page.is_closed():
            raise RecordError(CAPTURE_FAILED, "the page went away; nothing was stored")
        raise RecordError(
            AUTOMATION_FAILED, "the page's document was not ready (a navigation did not finish)"
        )

    def append_event(self, kind: str, **fields: Any) -> None:
        """Append a v2 event the demonstration produced outside the page (a mark named at the
        terminal, a scripted extraction, wait or dialog answer)."""
        self._log.append_event(kind, **fields)

    def bind_click(self, by: str, over: Over) -> None:
        """The next click is chosen by input ``by`` over ``over`` (automation ``"by"``)."""
        self._log.bind_next_click(by, over)

    def retry_next(self, retry: Retry | None) -> None:
        """The next navigation, read or wait recorded retries so (automation ``"retry"``)."""
        self._log.retry_next = retry

    def value_from(self, output: str | None) -> None:
        """Field edits from now on type output ``output`` (automation ``"from"``); None: no more."""
        self._log.value_from = output

    def click_unbound(self) -> str | None:
        """Why the click :meth:`bind_click` named was not chosen by its input (None: it was)."""
        return self._log.bind_problem

    def _on_dialog(self, tap: _Tap, name: str, params: dict[str, Any]) -> None:
        if tap.index != 0 or not self._dialogs:
            return
        if name == "Page.javascriptDialogOpening":
            kind = params.get("type")
            tap.dialog = kind if kind in ("alert", "confirm", "prompt", "beforeunload") else None
            return
        kind, tap.dialog = tap.dialog, None
        self._log.dialog_closed(kind, bool(params.get("result")), params.get("userInput"))

    def _on_navigated(self, tap: _Tap, frame: dict[str, Any], kind: Any, starting: bool) -> None:
        if frame.get("parentId") or frame.get("id") != tap.main_frame:
            return
        tap.loading = False
        reason = tap.starts.pop(str(frame.get("loaderId", "")), None)
        if reason is None and kind == "BackForwardCacheRestore":
            reason = "address-bar"
        if starting or tap.index != 0 or reason is None:
            return
        self._log.navigated(str(frame.get("url", "")), reason)
