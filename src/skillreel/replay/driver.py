"""``PlaywrightDriver``: the engine's :class:`~skillreel.replay.driving.Driver` over a real Chromium.

Every measurement is a call into our scripts in an isolated world of the page's main frame,
through the one channel of ``replay/world.py`` (:class:`~skillreel.replay.world.World`: script
registration, calls, reinstall after a navigation, the settle state between an action and the
next call). The driver is composed by role, like the :class:`~skillreel.replay.driving.Driver`
protocol: navigating, acting and reading here, locating (targets, marks, loop items) in
``replay/locating.py``, the page's dialogs in ``replay/dialogs.py``.

The element the rule chose is marked by ``resolve.js`` with a per-session random attribute name
and a per-step random value. A click, typing and a key press are sent to it directly
(``replay/direct.py``: trusted CDP input at the point the marking call measured and hit-tested,
a guard in our world refusing a press that lands elsewhere); otherwise (a frame, a ``<select>``, a
disabled element, a failed hit test, ...) the action goes through Playwright's strict locator for
exactly that attribute (trusted input, actionability and hit-target checks included; two marked
elements would be a strict-mode error, never a click on the first). The mark is removed right after.

Typing (focus, select all, trusted ``Input.insertText``, as ``Locator.fill`` does) is verified in
the isolated world (the field's value must equal the input). Select uses ``select_option`` by
value, only after checking that an enabled option has exactly that value, and is verified too.

After every action the driver settles on events, not on a clock (``replay/settling.py``): it waits
for a navigation the action started, for the requests it started, and for a short DOM-quiet window
measured in the isolated world by ``settle.js``; that window is awaited inside the next page
measurement (``SkillreelSettle.after``), so settling costs no extra round trip when the page is calm.

Playwright errors are translated once (:meth:`World.translate`), with content-free messages (their
own messages repeat selectors): a crash of the browser or page is ``SR_REPLAY_UI_BROWSER_CRASHED``, a timeout
``SR_REPLAY_UI_TIMEOUT``, anything else ``SR_REPLAY_UI_ACTION_FAILED`` (or
``SR_REPLAY_UI_NAVIGATION_FAILED`` for page loads).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from ..errors import ReplayUIError
from ..locate.probe import Probe
from ..model.locators import ElementSet, LocatorBundle, LocatorCandidate
from ..model.reads import FieldSpec
from ..user_files import UploadFile, private_copy
from .dialogs import PageDialogs
from .direct import ACTIONS, KEYS, DirectInput
from .driving import (
    Choice,
    DialogSeen,
    FieldValue,
    ItemsFound,
    ListRead,
    PageCondition,
    Picked,
    Scope,
    TargetReplaced,
    Upcoming,
)
from .evidence import PageSummary
from .locating import PageLocating, field_values, fields_arg, set_arg
from .pages import PageSet, Session
from .settling import PageActivity
from .world import COLLECT, LISTBOX, World

log = logging.getLogger(__name__)
_T = TypeVar("_T")

END_QUIET_S: Final = 1.0  # a lazy list that has not grown this long after a scroll is at its end
# A picker's list counts as open once two looks this far apart find the same enabled options
# (a list still rendering or loading its options is not read half-way).
OPTIONS_POLL_S: Final = 0.1
# A page whose DOM changed this recently, when a step gave up on it, was still changing.
CHANGING_WITHIN_MS: Final = 1_000
# settle.js's own questions (World.call's api prefix)
SETTLE: Final = "settle."


class PlaywrightDriver:
    def __init__(self, session: Session) -> None:
        self._session = session
        self._parts: dict[Page, tuple[World, PageDialogs, PageLocating, DirectInput]] = {}
        self._bind(session.page)
        self.pages = PageSet(session, self._bind)  # the page steps act on (replay/pages.py)
        self._uploads = contextlib.ExitStack()  # copies set on file inputs: read when the page sends them,
        session.context.on("close", lambda _context: self._uploads.close())  # so kept until it closes

    def _bind(self, page: Page) -> None:
        """Act on ``page`` from now on (its parts made once, kept for a return)."""
        if page not in self._parts:
            # the isolated-world channel: every call into the page's scripts, and the settle state
            world = World(page, lambda: self._session.crashed, PageActivity(page))
            self._parts[page] = (world, PageDialogs(page), PageLocating(page, world), DirectInput(world))
        self._page = page
        self._world, self._dialogs, self._locating, self._direct = self._parts[page]

    # ---- Driver: navigating --------------------------------------------------------------------

    async def start(self, *, timeout_ms: int) -> None:
        """Load the start page, once the CDP session is set up: the start page then begins with our
        world in it too (a few round trips first, against a world created, the scripts installed and
        a whole DOM-quiet window after it loaded)."""
        self._world.action_begins()
        try:
            await self._world.session()
        except PlaywrightError as exc:  # set up again on first use; a crash shows up there
            log.debug("CDP session setup: %s", type(exc).__name__)
            self._world.cdp = None
        await self._session.goto_start(timeout_ms=timeout_ms)

    async def goto(self, url: str, *, timeout_ms: int) -> None:
        self._world.action_begins()
        await self._world.guard(
            "loading a page",
            lambda: self._page.goto(url, wait_until="load", timeout=timeout_ms),
            "SR_REPLAY_UI_NAVIGATION_FAILED",
        )

    async def reload(self, *, timeout_ms: int) -> None:
        self._world.action_begins()
        await self._world.guard(
            "reloading the page",
            lambda: self._page.reload(wait_until="load", timeout=timeout_ms),
            "SR_REPLAY_UI_NAVIGATION_FAILED",
        )

    async def current_url(self) -> str:
        return self._page.url

    async def settle(self, settle_ms: int, *, timeout_ms: int) -> None:
        """Wait for what the last action started (``replay/settling.py``): its navigation, its
        requests; the DOM-quiet window follows in the next measurement. ``settle_ms`` is an extra
        minimum from now (``--settle``)."""
        started = time.monotonic()
        deadline = started + timeout_ms / 1000
        await self._world.wait_activity(deadline)
        self._world.quiet_deadline = deadline
        if settle_ms:
            await asyncio.sleep(max(0.0, started + settle_ms / 1000 - time.monotonic()))
        if self._world.crashed():
            raise ReplayUIError("SR_REPLAY_UI_BROWSER_CRASHED", "Chromium exited or the page crashed")
        self.pages.check_downloads()

    async def drain(self) -> None:
        """See :meth:`Driver.drain`. Never raises: the replay's outcome is already decided."""
        deadline = self._world.quiet_deadline
        if deadline is None or self._world.crashed():
            return
        self._world.quiet_deadline = None
        try:
            # a round trip to the renderer on our session (no quiet window, nothing installed): its
            # answer comes after every request the page had announced there (settling.py)
            cdp = await self._world.session()
            await cdp.send("Runtime.evaluate", {"expression": "0", "returnByValue": True})
            if self._world.activity.busy(self._world.action_mark):
                await self._world.wait_activity(deadline)
        except PlaywrightError as exc:
            log.debug("drain: %s", type(exc).__name__)
        except ReplayUIError as exc:
            log.debug("drain: %s", exc.code)

    async def condition(self, *, measured: bool = True) -> PageCondition:
        """See :meth:`Driver.condition`: the status of the main frame's document, and whether the
        page was still loading, had requests in flight or changed its DOM within
        :data:`CHANGING_WITHIN_MS` (one call in our world; a page that cannot be measured counts
        as changing)."""
        activity = self._world.activity
        status = activity.document_status
        if activity.navigating() or activity.unloaded() or activity.pending(0):
            return PageCondition(status=status, changing=True)
        if not measured:
            return PageCondition(status=status, changing=False)
        try:
            idle = await self._world.call("idle", None, api=SETTLE)
        except (PlaywrightError, ReplayUIError) as exc:
            log.debug("condition: %s", getattr(exc, "code", type(exc).__name__))
            return PageCondition(status=status, changing=True)
        changing = not isinstance(idle, int | float) or idle < CHANGING_WITHIN_MS
        return PageCondition(status=status, changing=changing)

    def network_mark(self) -> int:
        return self._session.ledger.mark()

    def network_denied_since(self, mark: int) -> tuple[str, ...]:
        return self._session.ledger.origins_since(mark)

    # ---- Driver: locating (replay/locating.py) -------------------------------------------------

    async def probe(self, bundle: LocatorBundle, *, salt: str, within: Scope | None = None) -> Probe:
        return await self._locating.probe(bundle, salt=salt, within=within)

    async def pick(
        self, probe: Probe, element: int, *, salt: str, describe: bool, hide: Sequence[str] = ()
    ) -> Picked | None:
        return await self._locating.pick(probe, element, salt=salt, describe=describe, hide=hide)

    async def release(self) -> None:
        await self._locating.release()

    async def choose(
        self, bundle: LocatorBundle, token: str, *, salt: str, within: Scope | None, allow_heal: bool
    ) -> Choice:
        return await self._locating.choose(bundle, token, salt=salt, within=within, allow_heal=allow_heal)

    async def open_items(
        self,
        items: ElementSet,
        *,
        salt: str,
        loop: str,
        token: str | None,
        within: Scope | None,
        allow_heal: bool,
        mark: bool = True,
    ) -> ItemsFound:
        return await self._locating.open_items(
            items, salt=salt, loop=loop, token=token, within=within, allow_heal=allow_heal, mark=mark
        )

    async def item(self, loop: str, index: int) -> bool:
        return await self._locating.item(loop, index)

    async def enter_item(
        self,
        loop: str,
        index: int,
        fields: Sequence[FieldSpec],
        *,
        salt: str,
        allow_heal: bool,
        probe: LocatorBundle | None = None,
    ) -> tuple[FieldValue, ...] | None:
        return await self._locating.enter_item(
            loop, index, fields, salt=salt, allow_heal=allow_heal, probe=probe
        )

    async def close_items(self, loop: str) -> None:
        await self._locating.close_items(loop)

    async def read_fields(
        self, fields: Sequence[FieldSpec], *, salt: str, within: Scope, allow_heal: bool
    ) -> tuple[FieldValue, ...]:
        return await self._locating.read_fields(fields, salt=salt, within=within, allow_heal=allow_heal)

    # ---- Driver: acting ------------------------------------------------------------------------

    async def _act(
        self,
        picked: Picked,
        doing: str,
        work: Callable[[], Awaitable[None]],
        timeout_ms: int,
        *,
        race: bool = True,
    ) -> None:
        """Playwright's action on the marked element, raced against that element leaving the page
        before any input reached it (``settle.js`` says so; its mark is gone then, so the action
        could only wait for it until the timeout): then the action is cancelled (Playwright aborts
        it) and :class:`TargetReplaced` raised, with the next measurement waiting for a quiet DOM.

        Only actions that cannot reach another element once theirs is gone are raced: a click
        (Playwright's hit-target check holds back pointer events that would land on something
        else), typing (focus, select all, insert: made again, it leaves the same value) and a
        selection (one evaluation on the element). A key press (``race=False``) focuses its element
        and then sends the key to whatever holds the focus, which a page that replaced the element
        may have moved to the new one: it is given up only when the element was replaced before it
        began."""
        self._world.action_begins()
        if picked.token in self._world.replaced:
            self._replaced_before(timeout_ms)
        if not race:
            await self._world.guard(doing, work)
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._world.replacing = (picked.token, waiter)
        action = asyncio.ensure_future(self._world.guard(doing, work))
        try:
            await asyncio.wait((action, waiter), return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._world.replacing = None
            waiter.cancel()
            if not action.done():
                action.cancel()
                await asyncio.wait((action,))
        if action.cancelled():
            self._replaced_before(timeout_ms)
        action.result()  # it ran, done or failed (raised here), whatever the element's fate

    def _replaced_before(self, timeout_ms: int) -> None:
        self._locating.forget()
        self._world.quiet_deadline = time.monotonic() + timeout_ms / 1000
        raise TargetReplaced

    def _not_direct(self, key: str | None = None) -> str | None:
        """Why an action cannot be sent as direct input (the reason names the fallback's counter),
        or None: ``live``, the page holds an open socket or event stream (a pushed message could
        trail the direct path's settling, which counts from the page's own input events); ``key``,
        a key the table (``direct.KEYS``) does not describe. (An Enter or a click that submits a
        form goes direct: the measurement after it sees the submission and waits for the
        navigation the browser starts a task later, ``World.call``.)"""
        if self._world.activity.live:
            return "live"
        if key is not None and key not in KEYS:
            return "key"
        return None

    async def click(self, picked: Picked, *, timeout_ms: int) -> None:
        """A direct click (``replay/direct.py``) at the point the call that marked the element
        measured and hit-tested, its guard armed; else Playwright's click (:meth:`_act`)."""
        why = self._not_direct()
        point = why if why is not None else await self._direct.point(picked)
        self._world.pointing = True  # a refusal the next call reads is this click's
        if isinstance(point, tuple):
            ACTIONS["direct:click"] += 1
            self._world.action_begins()
            if picked.token in self._world.replaced:
                self._replaced_before(timeout_ms)
            await self._world.guard("the click", lambda: self._direct.click(*point))
            return
        ACTIONS[f"fallback:click:{point}"] += 1
        target = await self._locating.locator(picked)
        await self._act(picked, "the click", lambda: target.click(timeout=timeout_ms), timeout_ms)

    async def fill(self, picked: Picked, value: str, *, timeout_ms: int) -> None:
        """Direct typing (focus and select all in our world, trusted ``Input.insertText``); else (an
        empty value, a number/date/editable field, a disabled one) Playwright's fill."""
        await self._focused(
            picked,
            ("type", "typing"),
            lambda: self._direct.insert(value),
            lambda target: target.fill(value, timeout=timeout_ms),
            timeout_ms,
            fill=True,
            why="empty" if not value else None,
        )

    async def _focused(
        self,
        picked: Picked,
        kind: tuple[str, str],
        send: Callable[[], Awaitable[None]],
        fallback: Callable[[Locator], Awaitable[None]],
        timeout_ms: int,
        *,
        fill: bool,
        why: str | None = None,
        race: bool = True,
    ) -> None:
        """The action begins: ``picked`` focused in our world (``DirectInput.focus``), then ``send``
        the input, unless ``why`` says it cannot be direct; else ``fallback``, Playwright's action
        (:meth:`_act`). Raises :class:`TargetReplaced` when the element left the page."""
        name, doing = kind
        if why is None:
            why = self._not_direct()
        if why is None:
            why = await self._direct.focus(picked, fill=fill, framed=self._locating.framed(picked))
        if why == "replaced":  # the element left the page: nothing was done
            self._replaced_before(timeout_ms)
        if why is None:
            ACTIONS[f"direct:{name}"] += 1
            await self._world.guard(doing, send)
            return
        ACTIONS[f"fallback:{name}:{why}"] += 1
        target = await self._locating.locator(picked)
        await self._act(picked, doing, lambda: fallback(target), timeout_ms, race=race)

    async def select(
        self,
        picked: Picked,
        value: str,
        *,
        timeout_ms: int,
        by_label: bool = False,
        allowed: Sequence[str] | None = None,
    ) -> str | None:
        if by_label:
            found = await self._world.call("optionByLabel", {"label": value}, api=COLLECT)
            if not isinstance(found, str):
                return None
            value = found
        if allowed is not None and value not in allowed:
            return None
        if not await self._world.call("hasOption", {"value": value}):
            if picked.token in self._world.replaced:  # not the field's options: the field is gone
                self._world.action_begins()
                self._replaced_before(timeout_ms)
            return None
        ACTIONS["playwright:select"] += 1
        target = await self._locating.locator(picked)

        async def choose() -> None:
            await target.select_option(value=value, timeout=timeout_ms)

        await self._act(picked, "the selection", choose, timeout_ms)
        return value

    async def open_picker(self, picked: Picked, name: str, *, timeout_ms: int) -> tuple[str, ...] | None:
        """Click the combobox marked by ``picked`` (as :meth:`click`; a searchable one, an editable
        input, then gets ``name`` typed to filter its list), then wait for the listbox it opens
        (owned through ``aria-controls``/``aria-owns``, else the one newly visible) until two looks
        find the same enabled options: their names, or None when no list opened in time."""
        armed = await self._world.call("arm", {}, api=LISTBOX, aim=True)  # the combobox, clicked next
        if not isinstance(armed, dict):
            armed = {}
        if not armed.get("open"):  # a list already open is not clicked shut
            await self.click(picked, timeout_ms=timeout_ms)
        if armed.get("searchable"):
            await self.fill(picked, name, timeout_ms=timeout_ms)
        deadline = time.monotonic() + timeout_ms / 1000
        await self.settle(0, timeout_ms=timeout_ms)
        seen: list[str] | None = None
        while True:
            data = await self._world.call("options", {}, api=LISTBOX)
            names = data.get("names") if isinstance(data, dict) else None
            if isinstance(names, list) and names and names == seen:
                return tuple(str(n) for n in names)
            seen = names if isinstance(names, list) else None
            if time.monotonic() >= deadline:
                return None
            await asyncio.sleep(OPTIONS_POLL_S)

    async def pick_option(self, index: int, name: str, *, timeout_ms: int) -> bool:
        """Click option ``index`` of the list :meth:`open_picker` read, once it is stable
        (Playwright's actionability checks: visible, not moving, receiving the click), then whether
        the combobox shows ``name`` (or the option is selected)."""
        attr = self._locating.attr + "-option"
        nonce = secrets.token_hex(8)
        marked = await self._world.call("mark", {"index": index, "attr": attr, "nonce": nonce}, api=LISTBOX)
        if not marked:
            return False
        if marked != "chosen":  # a multi-select's option chosen already is not clicked out again
            option = self._page.locator(f"[{attr}='{nonce}']")
            ACTIONS["playwright:option"] += 1
            self._world.action_begins()
            await self._world.guard("the option's click", lambda: option.click(timeout=timeout_ms))
            await self.settle(0, timeout_ms=timeout_ms)
        shown = bool(await self._world.call("shown", {"name": name, "attr": attr}, api=LISTBOX))
        if await self._world.call("left", {}, api=LISTBOX):  # a multi-select's list stays open
            await self.close_picker(timeout_ms=timeout_ms)
        return shown

    async def close_picker(self, *, timeout_ms: int) -> None:
        """Close an open picker's list with Escape, choosing nothing."""
        self._world.action_begins()
        await self._world.guard("closing the list", lambda: self._page.keyboard.press("Escape"))
        await self.settle(0, timeout_ms=timeout_ms)

    async def press(self, picked: Picked | None, key: str, *, timeout_ms: int) -> None:
        """Direct: the element focused in our world (as Playwright's press does), then the key
        down and up over CDP; with no element, the key goes wherever the focus is. Else (a key the
        table does not describe, an element in a frame, disabled) Playwright's press."""
        why = self._not_direct(key)
        if picked is None:
            self._world.action_begins()
            ACTIONS["direct:press" if why is None else f"fallback:press:{why}"] += 1
            direct = why is None
            send = (lambda: self._direct.key(key)) if direct else (lambda: self._page.keyboard.press(key))
            await self._world.guard("the key press", send)
            return
        await self._focused(
            picked,
            ("press", "the key press"),
            lambda: self._direct.key(key),
            lambda target: target.press(key, timeout=timeout_ms),
            timeout_ms,
            fill=False,
            why=why,
            race=False,
        )

    async def scroll(
        self, picked: Picked, to: str, *, max_rounds: int, settle_ms: int, timeout_ms: int
    ) -> int:
        """Into view: Playwright's ``scroll_into_view_if_needed``. To the end: scroll the container
        (the element when it scrolls, else the page) to its end, then wait for it to grow (more
        content or more elements) for at most :data:`END_QUIET_S`; again while it grows, at most
        ``max_rounds`` times. The rounds that made it grow."""
        target = await self._locating.locator(picked)
        self._world.action_begins()  # what the scroll loads is settled after it, like an action's
        if to != "end":
            await self._world.guard(
                "scrolling", lambda: target.scroll_into_view_if_needed(timeout=timeout_ms)
            )
            return 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_ms / 1000
        rounds = 0
        before = await self._world.call("scrollEnd", {}, api=COLLECT)
        while rounds < max_rounds and isinstance(before, dict):
            quiet = min(loop.time() + END_QUIET_S, deadline)
            after = before
            while after == before and loop.time() < quiet:
                await asyncio.sleep(0.05)
                after = await self._world.call("scrollState", {}, api=COLLECT)
            if after == before or not isinstance(after, dict):
                break
            rounds += 1
            if loop.time() >= deadline:
                break
            if settle_ms:
                await asyncio.sleep(settle_ms / 1000)
            before = await self._world.call("scrollEnd", {}, api=COLLECT)
        return rounds

    async def hover(self, picked: Picked, *, timeout_ms: int) -> None:
        target = await self._locating.locator(picked)
        await self._act(picked, "the hover", lambda: target.hover(timeout=timeout_ms), timeout_ms)

    async def set_file(self, picked: Picked, upload: UploadFile, *, timeout_ms: int) -> None:
        target = await self._locating.locator(picked)
        copy = self._uploads.enter_context(private_copy(upload))  # set by the browser: trusted events
        await self._act(picked, "the upload", lambda: target.set_input_files(copy), timeout_ms)

    # ---- Driver: reading -----------------------------------------------------------------------

    async def check(self, picked: Picked, check: str, expected: str | int | None) -> bool:
        return bool(await self._world.call("check", {"check": check, "expected": expected}))

    async def count(self, candidate: LocatorCandidate, *, salt: str) -> int:
        value = await self._world.call("count", {"candidate": candidate.to_json(), "salt": salt})
        return value if isinstance(value, int) else -1

    async def read(self, picked: Picked, read: str, attribute: str | None) -> str | None:
        data = await self._world.call("read", {"read": read, "attribute": attribute}, api=COLLECT)
        if not isinstance(data, dict) or not data.get("ok"):
            raise ReplayUIError("SR_REPLAY_UI_TARGET_NOT_FOUND", "the element went away before it was read")
        value = data.get("value")
        if value is None:
            return None
        return str(value) if not isinstance(value, bool) else ("true" if value else "false")

    async def read_list(
        self,
        items: ElementSet,
        fields: Sequence[FieldSpec],
        *,
        salt: str,
        token: str | None,
        limit: int,
        within: Scope | None,
        allow_heal: bool,
    ) -> ListRead:
        arg = {
            "set": set_arg(
                items.candidates, items.fingerprint, salt=salt, within=within, allow_heal=allow_heal
            ),
            "token": token,
            "fields": fields_arg(fields),
            "limit": limit,
        }
        data = await self._world.call("list", arg, api=COLLECT)
        try:
            total = int(data["total"])
            outcome = data["outcome"]
            rows = tuple(field_values(row, len(fields)) for row in data["rows"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed") from exc
        if outcome not in ("exact", "healed", "ambiguous") or len(rows) > limit:
            raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed")
        return ListRead(total, rows, outcome)

    async def page_state(
        self, *, salt: str, text: bool, verify: str | None = None, prefetch: Upcoming | None = None
    ) -> PageSummary:
        """The page summary; checks the marked field's value against ``verify`` (when given) and
        removes the step's mark in the same call (one round trip, not three). With ``prefetch``,
        the same call also probes the page for the next step's target (see :meth:`probe`), or
        enters the loop's next item, reads its fields and probes the body's first target in it
        (see :meth:`enter_item`)."""
        arg: dict[str, Any] = {"salt": salt, "text": text, "verify": verify}
        data = await self._locating.summary(arg, salt=salt, prefetch=prefetch)
        try:
            verified = data.get("verified")
            return PageSummary(
                elements=int(data["elements"]),
                structure=str(data["structure"]),
                text=None if data.get("text") is None else str(data["text"]),
                verified=verified if isinstance(verified, bool) else None,
            )
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page state was malformed") from exc

    async def screenshot(self, *, timeout_ms: int) -> bytes:
        """The viewport as PNG bytes (CDP, optimised for speed: only its digest is kept). Text
        carets are hidden meanwhile: a focused field's blinking caret made two replays of the same
        page leave two screenshot digests."""
        params = {"format": "png", "optimizeForSpeed": True, "captureBeyondViewport": False}

        async def capture() -> bytes:
            cdp = await self._world.session()
            shot = await asyncio.wait_for(cdp.send("Page.captureScreenshot", params), timeout_ms / 1000)
            return base64.b64decode(shot["data"])

        await self._world.call("caret", {"hide": True})
        try:
            png: bytes = await self._world.guard("the screenshot", capture)
        except TimeoutError as exc:
            raise ReplayUIError(
                "SR_REPLAY_UI_TIMEOUT", "the browser did not finish the screenshot in time"
            ) from exc
        finally:
            if not self._world.crashed():
                try:
                    await self._world.call("caret", {"hide": False})
                except ReplayUIError as exc:  # the page navigated meanwhile: nothing of ours is left
                    log.debug("caret: %s", exc.code)
        return png

    # ---- Driver: dialogs (replay/dialogs.py) ---------------------------------------------------

    async def arm_dialog(self, *, accept: bool, text: str | None, expects: str | None) -> None:
        await self._dialogs.arm(accept=accept, text=text, expects=expects)

    async def dialog_seen(self) -> DialogSeen | None:
        return self._dialogs.seen

    async def disarm_dialog(self) -> None:
        self._dialogs.disarm()
