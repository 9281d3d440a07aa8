"""``PlaywrightDriver``: the engine's :class:`~skillreel.replay.driving.Driver` over a real Chromium.

Every measurement is a call into our scripts in an isolated world of the page's main frame,
through the one channel of ``replay/world.py`` (:class:`~skillreel.replay.world.World`: script
registration, calls, reinstall after a navigation, the settle state between an action and the
next call). The page's dialogs are answered by ``replay/dialogs.py``.

The element the rule chose is marked by ``resolve.js`` with a per-session random attribute name
and a per-step random value; the action then goes through Playwright's strict locator for exactly
that attribute (trusted input, actionability and hit-target checks included; two marked elements
would be a strict-mode error, never a click on the first). The mark is removed right after.

Typing uses ``Locator.fill`` (focus, select all, trusted ``Input.insertText``) and is verified in
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
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeVar

from playwright.async_api import BrowserContext, Locator, Page
from playwright.async_api import Error as PlaywrightError
from pydantic import ValidationError

from ..errors import ReplayUIError
from ..locate import heal
from ..model.actions import FieldSpec
from ..model.locators import ElementSet, Fingerprint, LocatorBundle, LocatorCandidate
from .dialogs import PageDialogs
from .driving import (
    Choice,
    DialogSeen,
    FieldValue,
    ItemAhead,
    ItemsFound,
    ListRead,
    Picked,
    Scope,
    TargetReplaced,
    Upcoming,
)
from .evidence import PageSummary
from .settling import (
    PageActivity,
)
from .world import COLLECT, World

log = logging.getLogger(__name__)
_T = TypeVar("_T")

END_QUIET_S: Final = 1.0  # a lazy list that has not grown this long after a scroll is at its end


class Ledger(Protocol):
    def mark(self) -> int: ...
    def origins_since(self, mark: int) -> tuple[str, ...]: ...


class Session(Protocol):
    """What the driver needs of ``sandbox.browser.BrowserSession``."""

    @property
    def page(self) -> Page: ...
    @property
    def context(self) -> BrowserContext: ...
    @property
    def ledger(self) -> Ledger: ...
    @property
    def crashed(self) -> bool: ...
    async def goto_start(self, *, timeout_ms: int = 30_000) -> None: ...


@dataclass(frozen=True)
class _Prefetch:
    """A probe measured ahead, in the previous step's page-summary call (see :meth:`page_state`)
    or in entering a loop item (:meth:`enter_item`)."""

    bundle: LocatorBundle
    within: Scope | None
    token: str
    nonce: str
    data: Any
    activity: int  # the page activity position when it was measured
    world: str


@dataclass(frozen=True)
class _Entered:
    """A loop item entered and its fields read ahead, in the page-summary call of the step that
    ended the previous iteration (see :meth:`page_state`)."""

    loop: str
    index: int
    values: tuple[FieldValue, ...]
    activity: int
    world: str


class PlaywrightDriver:
    def __init__(self, session: Session) -> None:
        self._session = session
        self._page = session.page
        # the isolated-world channel: every call into the page's scripts, and the settle state
        self._world = World(self._page, lambda: session.crashed, PageActivity(self._page))
        self._dialogs = PageDialogs(self._page)
        self._attr = "data-sr-" + secrets.token_hex(6)
        self._marked = False
        self._probes = 0
        self._speculative: tuple[str, int, Picked] | None = None
        self._framed: str | None = None  # the nonce of a marked element inside a frame
        # schema v2: open loops (the arguments that find their items again after a navigation, the
        # count when opened, the current index)
        self._loops: dict[str, tuple[dict[str, Any], int, Scope | None]] = {}
        self._current: dict[str, int] = {}
        self._prefetched: _Prefetch | None = None
        self._entered: _Entered | None = None

    async def _locator(self, picked: Picked) -> Locator:
        """Playwright's strict locator for the marked element: in the page (its CSS engine pierces
        open shadow roots), or in the child frame that holds the mark."""
        selector = f"[{self._attr}='{picked.token}']"
        if self._framed != picked.token:
            return self._page.locator(selector)
        for frame in self._page.frames[1:]:
            try:
                if await frame.locator(selector).count() == 1:
                    return frame.locator(selector)
            except PlaywrightError:
                continue
        return self._page.locator(selector)

    # ---- Driver: navigation ----------------------------------------------------------------------

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

    # ---- Driver: resolution ----------------------------------------------------------------------

    async def probe(self, bundle: LocatorBundle, *, salt: str, within: Scope | None = None) -> heal.Probe:
        """Measure the page for ``bundle``; the first unique visible hit is marked speculatively, so
        that :meth:`pick` costs no round trip when the decision agrees (the mark alone does nothing).
        A measurement taken ahead by :meth:`page_state` serves when nothing happened since."""
        self._speculative = None
        ahead, self._prefetched = self._prefetched, None
        if ahead is not None and ahead.within == within and self._still_fresh(ahead, bundle):
            return self._probe_result(ahead.token, ahead.nonce, ahead.data)
        token, nonce, arg = self._probe_arg(bundle, salt, within)
        return self._probe_result(token, nonce, await self._world.call("probe", arg))

    def _still_fresh(self, ahead: _Prefetch, bundle: LocatorBundle) -> bool:
        """A measurement taken ahead serves a probe of the same bundle in the same scope only, and
        only when nothing happened on the page since."""
        return (ahead.bundle is bundle or ahead.bundle == bundle) and self._unchanged(
            ahead.activity, ahead.world
        )

    def _unchanged(self, activity: int, world: str) -> bool:
        """Nothing happened on the page since a measurement taken at ``activity`` in ``world``: no
        request, navigation or load since, the same document, no action waiting to be settled."""
        return (
            activity == self._world.activity.mark()
            and world == self._world.unique
            and self._world.quiet_deadline is None
        )

    def _ahead(
        self, bundle: LocatorBundle, within: Scope | None, token: str, nonce: str, *, data: Any
    ) -> None:
        """Keep a probe measured ahead (its element speculatively marked: cleaned up by a later call)."""
        if self._world.unique is not None and isinstance(data, dict):
            self._marked = self._marked or data.get("speculative") is not None
            self._prefetched = _Prefetch(
                bundle, within, token, nonce, data, self._world.activity.mark(), self._world.unique
            )

    def _probe_arg(
        self, bundle: LocatorBundle, salt: str, within: Scope | None = None
    ) -> tuple[str, str, dict[str, Any]]:
        self._probes += 1
        token, nonce = f"p{self._probes}", secrets.token_hex(16)
        arg = {
            "token": token,
            "bundle": bundle.to_json(),
            "salt": salt,
            "weights": heal.WEIGHTS.to_json(),
            "exactMin": heal.EXACT_MIN,
            "margin": heal.MARGIN,
            "floor": heal.FLOOR,
            "topK": heal.TOP_K,
            "speculate": {"attr": self._attr, "nonce": nonce},
            "within": None if within is None else {"loop": within.loop, "index": within.index},
        }
        return token, nonce, arg

    def _probe_result(self, token: str, nonce: str, data: Any) -> heal.Probe:
        try:
            probe = heal.probe_from_json(data)
        except heal.ProbeShapeError as exc:
            raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed") from exc
        guess = data.get("speculative") if isinstance(data, dict) else None
        if isinstance(guess, dict) and isinstance(guess.get("element"), int):
            self._marked = True
            try:
                fingerprint = Fingerprint.parse(guess["fingerprint"])
            except (ValidationError, KeyError, TypeError):
                return probe  # no shortcut; pick() measures again
            self._speculative = (token, guess["element"], Picked(nonce, fingerprint))
            self._note_frame(nonce, guess.get("framed"))
        return probe

    async def pick(
        self, probe: heal.Probe, element: int, *, salt: str, describe: bool, hide: Sequence[str] = ()
    ) -> Picked | None:
        """Mark ``element`` for the action; ``describe``: also its fresh locator candidates (a healed
        step), and whether one of its texts holds a value of ``hide`` (checked in the page; only a
        yes or no comes back)."""
        guess, self._speculative = self._speculative, None
        if guess is not None and not describe and guess[:2] == (probe.token, element):
            return guess[2]
        nonce = secrets.token_hex(16)
        data = await self._world.call(
            "pick",
            {
                "token": probe.token,
                "element": element,
                "salt": salt,
                "attr": self._attr,
                "nonce": nonce,
                "describe": describe,
                "hide": [h.lower() for h in hide if len(h) >= 2] if describe else [],
            },
        )
        if not isinstance(data, dict) or not data.get("ok"):
            return None
        self._marked = True
        try:
            fingerprint = Fingerprint.parse(data["fingerprint"])
        except (ValidationError, KeyError, TypeError) as exc:
            raise ReplayUIError(
                "SR_REPLAY_UI_ACTION_FAILED", "the target element cannot be described"
            ) from exc
        self._note_frame(nonce, data.get("framed"))
        return Picked(
            nonce, fingerprint, _candidates(data.get("candidates")), echoes=data.get("echoes") is True
        )

    def _note_frame(self, nonce: str, framed: Any) -> None:
        """Remember that the element marked ``nonce`` lives in a same-origin frame's document."""
        self._framed = nonce if framed is True else None

    async def release(self) -> None:
        """Remove the mark; never raises (it runs in cleanup, also after a crash). A mark that a
        probe measured ahead left stays for its step (the next summary or pick removes it)."""
        self._speculative = None
        if not self._marked or self._prefetched is not None:
            return
        self._marked = False
        if self._world.unique is None or self._world.unique != self._world.installed or self._world.crashed():
            return  # a new document: nothing of ours is marked in it
        try:
            await self._world.call("release", {"attr": self._attr})
        except ReplayUIError as exc:
            log.debug("release: %s", exc.code)

    # ---- Driver: actions -------------------------------------------------------------------------

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
        self._marked = False
        self._prefetched = None
        self._speculative = None
        self._world.quiet_deadline = time.monotonic() + timeout_ms / 1000
        raise TargetReplaced

    async def click(self, picked: Picked, *, timeout_ms: int) -> None:
        target = await self._locator(picked)
        await self._act(picked, "the click", lambda: target.click(timeout=timeout_ms), timeout_ms)

    async def fill(self, picked: Picked, value: str, *, timeout_ms: int) -> None:
        target = await self._locator(picked)
        await self._act(picked, "typing", lambda: target.fill(value, timeout=timeout_ms), timeout_ms)

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
        target = await self._locator(picked)

        async def choose() -> None:
            await target.select_option(value=value, timeout=timeout_ms)

        await self._act(picked, "the selection", choose, timeout_ms)
        return value

    async def press(self, picked: Picked | None, key: str, *, timeout_ms: int) -> None:
        if picked is None:
            self._world.action_begins()
            await self._world.guard("the key press", lambda: self._page.keyboard.press(key))
        else:
            target = await self._locator(picked)
            await self._act(
                picked, "the key press", lambda: target.press(key, timeout=timeout_ms), timeout_ms, race=False
            )

    async def check(self, picked: Picked, check: str, expected: str | int | None) -> bool:
        return bool(await self._world.call("check", {"check": check, "expected": expected}))

    async def count(self, candidate: LocatorCandidate, *, salt: str) -> int:
        value = await self._world.call("count", {"candidate": candidate.to_json(), "salt": salt})
        return value if isinstance(value, int) else -1

    # ---- Driver: observation ---------------------------------------------------------------------

    async def page_state(
        self, *, salt: str, text: bool, verify: str | None = None, prefetch: Upcoming | None = None
    ) -> PageSummary:
        """The page summary; checks the marked field's value against ``verify`` (when given) and
        removes the step's mark in the same call (one round trip, not three). With ``prefetch``,
        the same call also probes the page for the next step's target (see :meth:`probe`), or
        enters the loop's next item, reads its fields and probes the body's first target in it
        (see :meth:`enter_item`)."""
        arg: dict[str, Any] = {"salt": salt, "text": text, "verify": verify}
        if self._marked and self._world.unique is not None and self._world.unique == self._world.installed:
            arg["attr"] = self._attr
        self._marked = False
        self._speculative = None
        self._prefetched = None
        self._entered = None
        if prefetch is None:
            data = await self._world.call("pageState", arg)
        elif isinstance(prefetch, ItemAhead):
            scope = Scope(prefetch.loop, prefetch.index)
            calls, probe = self._entry_calls(
                scope, prefetch.fields, salt, prefetch.allow_heal, prefetch.probe
            )
            results = await self._world.call("batch", [["pageState", arg], *calls])
            ok = isinstance(results, list) and len(results) == len(calls) + 1
            data = results[0] if ok else None
            if ok and self._entered_from(scope, results[1:], len(prefetch.fields)) and probe:
                self._ahead(*probe, data=results[3])
        else:
            token, nonce, probe_arg = self._probe_arg(prefetch, salt)
            both = await self._world.call("batch", [["pageState", arg], ["probe", probe_arg]])
            data, ahead = both if isinstance(both, list) and len(both) == 2 else (None, None)
            self._ahead(prefetch, None, token, nonce, data=ahead)
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

    def network_mark(self) -> int:
        return self._session.ledger.mark()

    def network_denied_since(self, mark: int) -> tuple[str, ...]:
        return self._session.ledger.origins_since(mark)

    # ---- Driver: schema v2 -----------------------------------------------------------------------

    def _set_arg(
        self,
        candidates: tuple[LocatorCandidate, ...],
        fingerprint: Fingerprint,
        *,
        salt: str,
        within: Scope | None,
        allow_heal: bool,
    ) -> dict[str, Any]:
        """What ``collect.js`` needs to find a set (the decision constants come from ``heal``)."""
        return {
            **_read_arg(salt, allow_heal),
            "candidates": [c.to_json() for c in candidates],
            "fingerprint": fingerprint.to_json(),
            "identity": _identity(fingerprint),
            "within": None if within is None else {"loop": within.loop, "index": within.index},
        }

    async def choose(
        self, bundle: LocatorBundle, token: str, *, salt: str, within: Scope | None, allow_heal: bool
    ) -> Choice:
        nonce = secrets.token_hex(16)
        self._speculative = None
        arg = self._set_arg(
            bundle.candidates, bundle.fingerprint, salt=salt, within=within, allow_heal=allow_heal
        )
        arg["mark"] = {"attr": self._attr, "nonce": nonce}
        data = await self._world.call("choose", {"set": arg, "token": token}, api=COLLECT)
        outcome = data.get("outcome") if isinstance(data, dict) else None
        if outcome in ("none", "many"):
            return Choice(outcome)
        if outcome != "one":
            raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed")
        self._marked = True
        try:
            fingerprint = Fingerprint.parse(data["fingerprint"])
        except (ValidationError, KeyError, TypeError) as exc:
            raise ReplayUIError(
                "SR_REPLAY_UI_ACTION_FAILED", "the target element cannot be described"
            ) from exc
        self._note_frame(nonce, data.get("framed"))
        return Choice("one", Picked(nonce, fingerprint), bool(data.get("healed")))

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
        arg = {
            "set": self._set_arg(
                items.candidates, items.fingerprint, salt=salt, within=within, allow_heal=allow_heal
            ),
            "token": token,
            "loop": loop,
            "keep": mark,
        }
        self._entered = None
        found = _items_found(await self._world.call("open", arg, api=COLLECT))
        if mark:
            self._loops[loop] = (arg, found.count, within)
        return found

    async def item(self, loop: str, index: int) -> bool:
        opened = self._loops.get(loop)
        if opened is None or index >= opened[1]:
            return False
        data = await self._world.call("item", {"loop": loop, "index": index}, api=COLLECT)
        if isinstance(data, dict) and not data.get("known"):
            # a new document (the body navigated): find the items again, the enclosing loop's first
            if not await self._reopen(loop):
                return False
            data = await self._world.call("item", {"loop": loop, "index": index}, api=COLLECT)
        ok = isinstance(data, dict) and data.get("ok") is True
        if ok:
            self._current[loop] = index
        return ok

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
        """The item made current and its fields read in one call (settle.js ``batch``), with the
        body's first target (``probe``) measured ahead in it; served without a round trip when the
        previous step's page summary did all that on a page unchanged since (:meth:`page_state`);
        after a navigation or a re-render the two calls of :meth:`item` and :meth:`read_fields`."""
        opened = self._loops.get(loop)
        if opened is None or index >= opened[1]:
            return None
        entered, self._entered = self._entered, None
        if (
            entered is not None
            and (entered.loop, entered.index) == (loop, index)
            and len(entered.values) == len(fields)
            and self._unchanged(entered.activity, entered.world)
        ):
            self._current[loop] = index
            return entered.values
        scope = Scope(loop, index)
        self._prefetched = None
        calls, ahead = self._entry_calls(scope, fields, salt, allow_heal, probe)
        results = await self._world.call("batch", calls)
        complete = isinstance(results, list) and len(results) == len(calls)
        if complete and self._entered_from(scope, results, len(fields)):
            self._entered = None
            self._current[loop] = index
            if ahead is not None:
                self._ahead(*ahead, data=results[2])
            return _field_values(results[1], len(fields))
        if not await self.item(loop, index):
            return None
        return await self.read_fields(fields, salt=salt, within=scope, allow_heal=allow_heal)

    def _entry_calls(
        self,
        scope: Scope,
        fields: Sequence[FieldSpec],
        salt: str,
        allow_heal: bool,
        probe: LocatorBundle | None,
    ) -> tuple[list[list[Any]], tuple[LocatorBundle, Scope | None, str, str] | None]:
        """The batch that enters an item: ``collect.item``, ``collect.fields``, and the probe of the
        body's first target (inside the item when it is ``within: "item"``) with what keeps it."""
        at = {"loop": scope.loop, "index": scope.index}
        read = {"set": _read_arg(salt, allow_heal), "fields": self._fields_arg(fields), "within": at}
        calls: list[list[Any]] = [[COLLECT + "item", at], [COLLECT + "fields", read]]
        if probe is None:
            return calls, None
        within = scope if probe.within == "item" else None
        token, nonce, probe_arg = self._probe_arg(probe, salt, within)
        calls.append(["probe", probe_arg])
        return calls, (probe, within, token, nonce)

    def _entered_from(self, scope: Scope, results: Sequence[Any], count: int) -> bool:
        """Keep an item entered ahead (``collect.item`` and ``collect.fields`` results) when the item
        was there and its fields well formed; False otherwise (nothing kept)."""
        found = results[0]
        if not isinstance(found, dict) or found.get("ok") is not True or self._world.unique is None:
            return False
        try:
            values = _field_values(results[1], count)
        except ReplayUIError:
            return False
        self._entered = _Entered(
            scope.loop, scope.index, values, self._world.activity.mark(), self._world.unique
        )
        return True

    async def _reopen(self, loop: str, depth: int = 0) -> bool:
        arg, count, within = self._loops[loop]
        if within is not None:
            outer = within.loop
            if depth > 8 or outer not in self._loops or self._current.get(outer) != within.index:
                return False
            known = await self._world.call("item", {"loop": outer, "index": within.index}, api=COLLECT)
            lost = isinstance(known, dict) and not known.get("known")
            if lost and not await self._reopen(outer, depth + 1):
                return False
        again = _items_found(await self._world.call("open", arg, api=COLLECT))
        return again.count == count and again.outcome != "ambiguous"

    async def close_items(self, loop: str) -> None:
        self._loops.pop(loop, None)
        self._current.pop(loop, None)
        self._entered = None
        ahead = self._prefetched
        if ahead is not None and ahead.within is not None and ahead.within.loop == loop:
            self._prefetched = None  # measured ahead in an item for a step that did not run
            await self.release()
        if self._world.unique is None or self._world.unique != self._world.installed or self._world.crashed():
            return
        try:
            await self._world.call("close", {"loop": loop}, api=COLLECT)
        except ReplayUIError as exc:
            log.debug("close_items: %s", exc.code)

    async def read(self, picked: Picked, read: str, attribute: str | None) -> str | None:
        data = await self._world.call("read", {"read": read, "attribute": attribute}, api=COLLECT)
        if not isinstance(data, dict) or not data.get("ok"):
            raise ReplayUIError("SR_REPLAY_UI_TARGET_NOT_FOUND", "the element went away before it was read")
        value = data.get("value")
        if value is None:
            return None
        return str(value) if not isinstance(value, bool) else ("true" if value else "false")

    def _fields_arg(self, fields: Sequence[FieldSpec]) -> list[dict[str, Any]]:
        return [
            {
                "target": None
                if f.target is None
                else {
                    "candidates": [c.to_json() for c in f.target.candidates],
                    "fingerprint": f.target.fingerprint.to_json(),
                },
                "identity": [] if f.target is None else _identity(f.target.fingerprint),
                "read": f.read,
                "attribute": f.attribute,
            }
            for f in fields
        ]

    async def read_fields(
        self, fields: Sequence[FieldSpec], *, salt: str, within: Scope, allow_heal: bool
    ) -> tuple[FieldValue, ...]:
        arg = {
            "set": _read_arg(salt, allow_heal),
            "fields": self._fields_arg(fields),
            "within": {"loop": within.loop, "index": within.index},
        }
        return _field_values(await self._world.call("fields", arg, api=COLLECT), len(fields))

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
            "set": self._set_arg(
                items.candidates, items.fingerprint, salt=salt, within=within, allow_heal=allow_heal
            ),
            "token": token,
            "fields": self._fields_arg(fields),
            "limit": limit,
        }
        data = await self._world.call("list", arg, api=COLLECT)
        try:
            total = int(data["total"])
            outcome = data["outcome"]
            rows = tuple(_field_values(row, len(fields)) for row in data["rows"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed") from exc
        if outcome not in ("exact", "healed", "ambiguous") or len(rows) > limit:
            raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed")
        return ListRead(total, rows, outcome)

    async def scroll(
        self, picked: Picked, to: str, *, max_rounds: int, settle_ms: int, timeout_ms: int
    ) -> int:
        """Into view: Playwright's ``scroll_into_view_if_needed``. To the end: scroll the container
        (the element when it scrolls, else the page) to its end, then wait for it to grow (more
        content or more elements) for at most :data:`END_QUIET_S`; again while it grows, at most
        ``max_rounds`` times. The rounds that made it grow."""
        target = await self._locator(picked)
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

    async def arm_dialog(self, *, accept: bool, text: str | None, expects: str | None) -> None:
        await self._dialogs.arm(accept=accept, text=text, expects=expects)

    async def dialog_seen(self) -> DialogSeen | None:
        return self._dialogs.seen

    async def disarm_dialog(self) -> None:
        self._dialogs.disarm()


def _read_arg(salt: str, allow_heal: bool) -> dict[str, Any]:
    """What ``collect.js`` needs to find the fields of an item (the rule's constants from ``heal``)."""
    return {
        "salt": salt,
        "weights": heal.WEIGHTS.to_json(),
        "healMin": heal.HEAL_MIN,
        "margin": heal.MARGIN,
        "allowHeal": allow_heal,
    }


def _identity(fingerprint: Fingerprint) -> list[str]:
    """The recorded attributes that count as identity (twin of ``Comparison.identity_agrees``)."""
    return sorted(
        n
        for n in fingerprint.attributes
        if n not in heal.CONTEXT_ATTRIBUTES and heal.WEIGHTS.attribute(n) > 0
    )


def _items_found(data: Any) -> ItemsFound:
    if not isinstance(data, dict) or not isinstance(data.get("count"), int):
        raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed")
    outcome = data.get("outcome")
    if outcome not in ("exact", "healed", "ambiguous"):
        raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed")
    return ItemsFound(data["count"], outcome)


def _field_values(data: Any, expected: int) -> tuple[FieldValue, ...]:
    if not isinstance(data, list) or len(data) != expected:
        raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed")
    out = []
    for read in data:
        outcome = read.get("outcome") if isinstance(read, dict) else None
        value = read.get("value") if isinstance(read, dict) else None
        if outcome not in ("ok", "absent", "ambiguous") or not isinstance(value, str | bool | None):
            raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed")
        out.append(FieldValue(outcome, value, read.get("healed") is True))
    return tuple(out)


def _candidates(data: Any) -> tuple[LocatorCandidate, ...] | None:
    """Fresh locator candidates from ``describe`` (for a heal proposal); invalid ones are dropped."""
    if not isinstance(data, list):
        return None
    found = []
    for item in data:
        try:
            found.append(LocatorCandidate.parse(item))
        except (ValidationError, ValueError, TypeError):
            continue
    return tuple(found) or None
