"""``PlaywrightDriver``: the engine's :class:`~skillreel.replay.engine.Driver` over a real Chromium.

Measurement runs in an **isolated world** of the page's main frame, addressed by its
``uniqueContextId`` (an execution context id alone may be reused after a cross-process navigation;
the unique id may not). The locate scripts (``element.js``, ``fingerprint.js``, ``resolve.js``,
``collect.js``) and ``settle.js`` are in it once per document: registered over CDP to run as every
new document of the main frame starts (``Page.addScriptToEvaluateOnNewDocument`` with the world's
name; the first call in a new document then needs no round trip to set it up), else, for a document
that script did not reach (the first one, loading while the registration is made), in a world
created with ``Page.createIsolatedWorld`` and installed on first use (a call that finds them
missing installs them and is made again). Every call passes its data as a call argument. The page
shares the DOM with that world but none of its JavaScript objects, so patched prototypes or a fake
``SkillreelResolve`` in the page cannot influence a decision.

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

Playwright errors are translated here, once, with content-free messages (their own messages
repeat selectors): a crash of the browser or page is ``SR_REPLAY_UI_BROWSER_CRASHED``, a timeout
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
from functools import cache
from importlib import resources
from typing import Any, Final, Protocol, TypeVar

from playwright.async_api import BrowserContext, CDPSession, Dialog, Locator, Page
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from pydantic import ValidationError

from ..errors import ReplayUIError
from ..locate import heal, resolve_world_script
from ..model.actions import FieldSpec
from ..model.locators import ElementSet, Fingerprint, LocatorBundle, LocatorCandidate
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
    CALM_WINDOW_MS,
    MAX_ROUNDS,
    NETWORK_CAP_S,
    QUIET_CAP_MS,
    QUIET_WINDOW_MS,
    PageActivity,
)

log = logging.getLogger(__name__)
_T = TypeVar("_T")

# What ``call.js`` returns in a world our scripts are not (yet) in (a new document the registered
# script did not reach: installed then, and the call made again).
MISSING: Final = "skillreel:not-installed"
# The in-page API a call goes to (settle.js routes it): resolve.js, or collect.js (schema v2 sets,
# items, reads): "collect." prefixes the method.
RESOLVE: Final = ""
COLLECT: Final = "collect."
# The binding our world calls with a mark's nonce when the marked element left the page before any
# input reached it (settle.js; exposed to our world only: Runtime.addBinding with its name).
REPLACED_BINDING: Final = "skillreelReplaced"
END_QUIET_S: Final = 1.0  # a lazy list that has not grown this long after a scroll is at its end
RETRIES: Final = 5
RETRY_DELAY_S: Final = 0.05


class Ledger(Protocol):
    def mark(self) -> int: ...
    def origins_since(self, mark: int) -> tuple[str, ...]: ...


class Session(Protocol):
    """What the driver needs of ``sandbox.context.BrowserSession``."""

    @property
    def page(self) -> Page: ...
    @property
    def context(self) -> BrowserContext: ...
    @property
    def ledger(self) -> Ledger: ...
    @property
    def crashed(self) -> bool: ...
    async def goto_start(self, *, timeout_ms: int = 30_000) -> None: ...


@cache
def world_script() -> str:
    """What the isolated world holds: ``fingerprint.js``, ``resolve.js``, then ``settle.js``."""
    settle = resources.files(__package__).joinpath("settle.js").read_text("utf-8")
    return resolve_world_script() + "\n;\n" + settle + "\n;\ntrue;\n"


@cache
def call_script() -> str:
    """``call.js``: the function every call runs in our world (to settle.js's call or after)."""
    return resources.files(__package__).joinpath("call.js").read_text("utf-8")


@cache
def document_script() -> str:
    """The same, registered to run as each new document of the page starts: in the main frame only
    (every top-level declaration of the scripts is a ``var``: the block does not scope them)."""
    return "if (window.top === window) {\n" + world_script() + "\n}\n"


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


class _Transient(Exception):
    """The isolated world went away (a navigation); measure again in the new document."""


class PlaywrightDriver:
    def __init__(self, session: Session) -> None:
        self._session = session
        self._page = session.page
        self._cdp: CDPSession | None = None
        self._frame_id: str | None = None
        self._world = "skillreel-" + secrets.token_hex(8)
        self._attr = "data-sr-" + secrets.token_hex(6)
        self._contexts: dict[int, str] = {}  # our world's execution context id -> unique id
        self._unique: str | None = None
        self._installed: str | None = None
        self._marked = False
        self._probes = 0
        self._speculative: tuple[str, int, Picked] | None = None
        self._framed: str | None = None  # the nonce of a marked element inside a frame
        # schema v2: open loops (the arguments that find their items again after a navigation, the
        # count when opened, the current index) and the armed answer to the next dialog
        self._loops: dict[str, tuple[dict[str, Any], int, Scope | None]] = {}
        self._current: dict[str, int] = {}
        self._armed: tuple[bool, str | None, str | None] | None = None
        self._seen: DialogSeen | None = None
        self._dialogs = False
        self._prefetched: _Prefetch | None = None
        self._entered: _Entered | None = None
        self._activity = PageActivity(self._page)
        self._action_mark = 0  # activity position when the last action began
        self._quiet_deadline: float | None = None  # set: the next measurement waits for a quiet DOM
        # the nonces of marked elements the page replaced before an action reached them (settle.js)
        self._replaced: set[str] = set()
        self._replacing: tuple[str, asyncio.Future[None]] | None = None  # the action that waits

    # ---- errors ----------------------------------------------------------------------------------

    def _crashed(self) -> bool:
        return self._session.crashed or self._page.is_closed()

    def _translate(
        self, exc: Exception, doing: str, *, code: str = "SR_REPLAY_UI_ACTION_FAILED"
    ) -> ReplayUIError:
        if self._crashed():
            return ReplayUIError("SR_REPLAY_UI_BROWSER_CRASHED", "Chromium exited or the page crashed")
        if isinstance(exc, PlaywrightTimeoutError):
            return ReplayUIError("SR_REPLAY_UI_TIMEOUT", f"the browser did not finish {doing} in time")
        return ReplayUIError(code, f"the browser could not finish {doing}")

    async def _guard(
        self, doing: str, work: Callable[[], Awaitable[_T]], code: str = "SR_REPLAY_UI_ACTION_FAILED"
    ) -> _T:
        try:
            return await work()
        except PlaywrightError as exc:
            raise self._translate(exc, doing, code=code) from exc

    # ---- the isolated world ----------------------------------------------------------------------

    async def _session_cdp(self) -> CDPSession:
        if self._cdp is None:
            cdp = await self._page.context.new_cdp_session(self._page)
            cdp.on("Runtime.executionContextCreated", self._on_created)
            cdp.on("Runtime.executionContextDestroyed", self._on_destroyed)
            cdp.on("Runtime.executionContextsCleared", self._on_cleared)
            cdp.on("Runtime.bindingCalled", self._on_replaced)
            self._activity.watch(cdp)
            tree = await cdp.send("Page.getFrameTree")
            self._frame_id = tree["frameTree"]["frame"]["id"]
            await asyncio.gather(
                # our world and scripts in every later document of the main frame as it starts: the
                # first call there needs no world created and no script installed (round trips, a
                # compile);
                # Chromium runs such a script only for a session that enabled the Page domain
                cdp.send(
                    "Page.addScriptToEvaluateOnNewDocument",
                    {"source": document_script(), "worldName": self._world},
                ),
                cdp.send("Page.enable"),
                cdp.send("Runtime.enable"),
                # how our world tells that an action's target was replaced before the action reached it
                cdp.send(
                    "Runtime.addBinding", {"name": REPLACED_BINDING, "executionContextName": self._world}
                ),
                # the page's script requests, announced on this session before its answers to our
                # calls (settling.py). Chromium's defaults: with no response buffer and no post data
                # (maxTotalBufferSize/maxResourceBufferSize 0, maxPostDataSize 1) replays of
                # password-form POSTs timed out in the real-app corpus (4 of 5; 0 of 4 with these)
                cdp.send("Network.enable"),
            )
            self._cdp = cdp
        return self._cdp

    def _on_created(self, event: dict[str, Any]) -> None:
        context = event.get("context", {})
        aux = context.get("auxData") or {}
        if context.get("name") == self._world and aux.get("frameId") == self._frame_id:
            self._contexts[context["id"]] = context["uniqueId"]

    def _on_destroyed(self, event: dict[str, Any]) -> None:
        unique = event.get("executionContextUniqueId")
        gone = self._contexts.pop(event.get("executionContextId", -1), None)
        if self._unique is not None and self._unique in (unique, gone):
            self._unique = None

    def _on_replaced(self, event: dict[str, Any]) -> None:
        """Our world says the element marked ``payload`` left the page before any input reached it."""
        if event.get("name") != REPLACED_BINDING or event.get("executionContextId") not in self._contexts:
            return
        nonce = event.get("payload")
        if not isinstance(nonce, str):
            return
        self._replaced.add(nonce)
        waiting = self._replacing
        if waiting is not None and waiting[0] == nonce and not waiting[1].done():
            waiting[1].set_result(None)

    def _on_cleared(self, _event: dict[str, Any]) -> None:
        self._contexts.clear()
        self._unique = None
        self._activity.document_replaced()

    async def _context(self, cdp: CDPSession) -> str:
        """Our world in the current document: the newest one announced (a document our registered
        script reached), else one created now."""
        if self._unique is None and self._contexts:
            self._unique = self._contexts[max(self._contexts)]
        if self._unique is None:
            world = await cdp.send(
                "Page.createIsolatedWorld",
                {"frameId": self._frame_id, "worldName": self._world, "grantUniveralAccess": False},
            )
            unique = self._contexts.get(world["executionContextId"])
            if unique is None:
                raise _Transient
            self._unique = unique
            await self._install(cdp)
        return self._unique

    async def _install(self, cdp: CDPSession) -> None:
        """Install our scripts in the current world (created by us, or a call found them missing)."""
        if self._installed != self._unique:
            result = await cdp.send(
                "Runtime.evaluate",
                {
                    "expression": world_script(),
                    "uniqueContextId": self._unique,
                    "returnByValue": True,
                },
            )
            if "exceptionDetails" in result:
                raise ReplayUIError(
                    "SR_REPLAY_UI_ACTION_FAILED", "the resolution script could not be installed"
                )
            self._installed = self._unique

    async def _call(self, method: str, arg: Any, *, api: str = RESOLVE) -> Any:
        """Call ``SkillreelResolve[method](arg)`` (or, with ``api=COLLECT``, ``SkillreelCollect``'s)
        in our isolated world, through ``settle.js``; retried across navigations. After an action
        (:meth:`settle`), the call first waits there for a quiet DOM."""
        for _ in range(RETRIES):
            quiet = self._quiet_deadline
            try:
                cdp = await self._session_cdp()
                unique = await self._context(cdp)
                result = await cdp.send(
                    "Runtime.callFunctionOn", self._call_params(unique, api + method, arg)
                )
                if result.get("result", {}).get("value") == MISSING:
                    # a document our registered script did not reach: install, call again
                    self._installed = None
                    await self._install(cdp)
                    continue
            except _Transient:
                await asyncio.sleep(RETRY_DELAY_S)
                continue
            except PlaywrightError as exc:
                if self._crashed():
                    raise self._translate(exc, "measuring the page") from exc
                self._unique = None
                if quiet is not None:  # most likely the page navigated while it was measured
                    await self._wait_activity(quiet)
                await asyncio.sleep(RETRY_DELAY_S)
                continue
            if "exceptionDetails" in result:
                raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the in-page resolution script failed")
            value = result.get("result", {}).get("value")
            self._installed = unique
            if quiet is None:
                return value
            self._quiet_deadline = None
            if self._activity.busy(self._action_mark):  # the page started more while it was measured
                await self._wait_activity(quiet)
                self._quiet_deadline = quiet  # and the next measurement waits for quiet again
            return value.get("value") if isinstance(value, dict) else None
        raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page kept navigating while it was measured")

    def _call_params(self, unique: str, method: str, arg: Any) -> dict[str, Any]:
        params: dict[str, Any] = {
            "uniqueContextId": unique,
            "returnByValue": True,
            "functionDeclaration": call_script(),
        }
        if self._quiet_deadline is None:
            params["arguments"] = [{"value": None}, {"value": method}, {"value": arg}]
            return params
        cap = min(QUIET_CAP_MS, max(0, int((self._quiet_deadline - time.monotonic()) * 1000)))
        params["arguments"] = [
            {"value": self._quiet(cap)},
            {"value": method},
            {"value": arg},
        ]
        params["awaitPromise"] = True
        return params

    def _quiet(self, cap: int) -> dict[str, int]:
        """The DOM-quiet window of the measurement after an action (``settle.js`` ``after``): after a
        calm action one animation frame (at most the full window) and the short window, else the
        full window (``replay/settling.py``)."""
        if self._activity.calm(self._action_mark):
            return {"windowMs": CALM_WINDOW_MS, "frameMs": QUIET_WINDOW_MS, "capMs": cap}
        return {"windowMs": QUIET_WINDOW_MS, "frameMs": 0, "capMs": cap}

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

    def _action_begins(self) -> None:
        self._action_mark = self._activity.mark()
        self._quiet_deadline = None

    async def start(self, *, timeout_ms: int) -> None:
        """Load the start page, once the CDP session is set up: the start page then begins with our
        world in it too (a few round trips first, against a world created, the scripts installed and
        a whole DOM-quiet window after it loaded)."""
        self._action_begins()
        try:
            await self._session_cdp()
        except PlaywrightError as exc:  # set up again on first use; a crash shows up there
            log.debug("CDP session setup: %s", type(exc).__name__)
            self._cdp = None
        await self._session.goto_start(timeout_ms=timeout_ms)

    async def goto(self, url: str, *, timeout_ms: int) -> None:
        self._action_begins()
        await self._guard(
            "loading a page",
            lambda: self._page.goto(url, wait_until="load", timeout=timeout_ms),
            "SR_REPLAY_UI_NAVIGATION_FAILED",
        )

    async def reload(self, *, timeout_ms: int) -> None:
        self._action_begins()
        await self._guard(
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
        return self._probe_result(token, nonce, await self._call("probe", arg))

    def _still_fresh(self, ahead: _Prefetch, bundle: LocatorBundle) -> bool:
        """A measurement taken ahead serves a probe of the same bundle in the same scope only, and
        only when nothing happened on the page since."""
        return (ahead.bundle is bundle or ahead.bundle == bundle) and self._unchanged(
            ahead.activity, ahead.world
        )

    def _unchanged(self, activity: int, world: str) -> bool:
        """Nothing happened on the page since a measurement taken at ``activity`` in ``world``: no
        request, navigation or load since, the same document, no action waiting to be settled."""
        return activity == self._activity.mark() and world == self._unique and self._quiet_deadline is None

    def _ahead(
        self, bundle: LocatorBundle, within: Scope | None, token: str, nonce: str, *, data: Any
    ) -> None:
        """Keep a probe measured ahead (its element speculatively marked: cleaned up by a later call)."""
        if self._unique is not None and isinstance(data, dict):
            self._marked = self._marked or data.get("speculative") is not None
            self._prefetched = _Prefetch(
                bundle, within, token, nonce, data, self._activity.mark(), self._unique
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
        data = await self._call(
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
        if self._unique is None or self._unique != self._installed or self._crashed():
            return  # a new document: nothing of ours is marked in it
        try:
            await self._call("release", {"attr": self._attr})
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
        self._action_begins()
        if picked.token in self._replaced:
            self._replaced_before(timeout_ms)
        if not race:
            await self._guard(doing, work)
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._replacing = (picked.token, waiter)
        action = asyncio.ensure_future(self._guard(doing, work))
        try:
            await asyncio.wait((action, waiter), return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._replacing = None
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
        self._quiet_deadline = time.monotonic() + timeout_ms / 1000
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
            found = await self._call("optionByLabel", {"label": value}, api=COLLECT)
            if not isinstance(found, str):
                return None
            value = found
        if allowed is not None and value not in allowed:
            return None
        if not await self._call("hasOption", {"value": value}):
            if picked.token in self._replaced:  # not the field's options: the field is gone
                self._action_begins()
                self._replaced_before(timeout_ms)
            return None
        target = await self._locator(picked)

        async def choose() -> None:
            await target.select_option(value=value, timeout=timeout_ms)

        await self._act(picked, "the selection", choose, timeout_ms)
        return value

    async def press(self, picked: Picked | None, key: str, *, timeout_ms: int) -> None:
        if picked is None:
            self._action_begins()
            await self._guard("the key press", lambda: self._page.keyboard.press(key))
        else:
            target = await self._locator(picked)
            await self._act(
                picked, "the key press", lambda: target.press(key, timeout=timeout_ms), timeout_ms, race=False
            )

    async def check(self, picked: Picked, check: str, expected: str | int | None) -> bool:
        return bool(await self._call("check", {"check": check, "expected": expected}))

    async def count(self, candidate: LocatorCandidate, *, salt: str) -> int:
        value = await self._call("count", {"candidate": candidate.to_json(), "salt": salt})
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
        if self._marked and self._unique is not None and self._unique == self._installed:
            arg["attr"] = self._attr
        self._marked = False
        self._speculative = None
        self._prefetched = None
        self._entered = None
        if prefetch is None:
            data = await self._call("pageState", arg)
        elif isinstance(prefetch, ItemAhead):
            scope = Scope(prefetch.loop, prefetch.index)
            calls, probe = self._entry_calls(
                scope, prefetch.fields, salt, prefetch.allow_heal, prefetch.probe
            )
            results = await self._call("batch", [["pageState", arg], *calls])
            ok = isinstance(results, list) and len(results) == len(calls) + 1
            data = results[0] if ok else None
            if ok and self._entered_from(scope, results[1:], len(prefetch.fields)) and probe:
                self._ahead(*probe, data=results[3])
        else:
            token, nonce, probe_arg = self._probe_arg(prefetch, salt)
            both = await self._call("batch", [["pageState", arg], ["probe", probe_arg]])
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
            cdp = await self._session_cdp()
            shot = await asyncio.wait_for(cdp.send("Page.captureScreenshot", params), timeout_ms / 1000)
            return base64.b64decode(shot["data"])

        await self._call("caret", {"hide": True})
        try:
            png: bytes = await self._guard("the screenshot", capture)
        except TimeoutError as exc:
            raise ReplayUIError(
                "SR_REPLAY_UI_TIMEOUT", "the browser did not finish the screenshot in time"
            ) from exc
        finally:
            if not self._crashed():
                try:
                    await self._call("caret", {"hide": False})
                except ReplayUIError as exc:  # the page navigated meanwhile: nothing of ours is left
                    log.debug("caret: %s", exc.code)
        return png

    async def settle(self, settle_ms: int, *, timeout_ms: int) -> None:
        """Wait for what the last action started (``replay/settling.py``): its navigation, its
        requests; the DOM-quiet window follows in the next measurement. ``settle_ms`` is an extra
        minimum from now (``--settle``)."""
        started = time.monotonic()
        deadline = started + timeout_ms / 1000
        await self._wait_activity(deadline)
        self._quiet_deadline = deadline
        if settle_ms:
            await asyncio.sleep(max(0.0, started + settle_ms / 1000 - time.monotonic()))
        if self._crashed():
            raise ReplayUIError("SR_REPLAY_UI_BROWSER_CRASHED", "Chromium exited or the page crashed")

    async def drain(self) -> None:
        """See :meth:`Driver.drain`. Never raises: the replay's outcome is already decided."""
        deadline = self._quiet_deadline
        if deadline is None or self._crashed():
            return
        self._quiet_deadline = None
        try:
            # a round trip to the renderer on our session (no quiet window, nothing installed): its
            # answer comes after every request the page had announced there (settling.py)
            cdp = await self._session_cdp()
            await cdp.send("Runtime.evaluate", {"expression": "0", "returnByValue": True})
            if self._activity.busy(self._action_mark):
                await self._wait_activity(deadline)
        except PlaywrightError as exc:
            log.debug("drain: %s", type(exc).__name__)
        except ReplayUIError as exc:
            log.debug("drain: %s", exc.code)

    async def _wait_activity(self, deadline: float) -> None:
        """Until the action's navigation has loaded and its requests have finished (bounded)."""
        activity = self._activity
        for _ in range(MAX_ROUNDS):
            await activity.wait_navigation(deadline)
            if activity.navigating():
                raise ReplayUIError(
                    "SR_REPLAY_UI_TIMEOUT", "the browser did not finish loading the page in time"
                )
            if activity.unloaded():
                await self._wait_loaded(max(1, int((deadline - time.monotonic()) * 1000)))
                activity.loaded()
            now = time.monotonic()
            await activity.wait_requests(self._action_mark, now + min(NETWORK_CAP_S, (deadline - now) / 2))
            if not (activity.navigating() or activity.unloaded()):
                return

    async def _wait_loaded(self, timeout_ms: int) -> None:
        await self._guard(
            "loading the page", lambda: self._page.wait_for_load_state("load", timeout=timeout_ms)
        )

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
        data = await self._call("choose", {"set": arg, "token": token}, api=COLLECT)
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
        found = _items_found(await self._call("open", arg, api=COLLECT))
        if mark:
            self._loops[loop] = (arg, found.count, within)
        return found

    async def item(self, loop: str, index: int) -> bool:
        opened = self._loops.get(loop)
        if opened is None or index >= opened[1]:
            return False
        data = await self._call("item", {"loop": loop, "index": index}, api=COLLECT)
        if isinstance(data, dict) and not data.get("known"):
            # a new document (the body navigated): find the items again, the enclosing loop's first
            if not await self._reopen(loop):
                return False
            data = await self._call("item", {"loop": loop, "index": index}, api=COLLECT)
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
        results = await self._call("batch", calls)
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
        if not isinstance(found, dict) or found.get("ok") is not True or self._unique is None:
            return False
        try:
            values = _field_values(results[1], count)
        except ReplayUIError:
            return False
        self._entered = _Entered(scope.loop, scope.index, values, self._activity.mark(), self._unique)
        return True

    async def _reopen(self, loop: str, depth: int = 0) -> bool:
        arg, count, within = self._loops[loop]
        if within is not None:
            outer = within.loop
            if depth > 8 or outer not in self._loops or self._current.get(outer) != within.index:
                return False
            known = await self._call("item", {"loop": outer, "index": within.index}, api=COLLECT)
            lost = isinstance(known, dict) and not known.get("known")
            if lost and not await self._reopen(outer, depth + 1):
                return False
        again = _items_found(await self._call("open", arg, api=COLLECT))
        return again.count == count and again.outcome != "ambiguous"

    async def close_items(self, loop: str) -> None:
        self._loops.pop(loop, None)
        self._current.pop(loop, None)
        self._entered = None
        ahead = self._prefetched
        if ahead is not None and ahead.within is not None and ahead.within.loop == loop:
            self._prefetched = None  # measured ahead in an item for a step that did not run
            await self.release()
        if self._unique is None or self._unique != self._installed or self._crashed():
            return
        try:
            await self._call("close", {"loop": loop}, api=COLLECT)
        except ReplayUIError as exc:
            log.debug("close_items: %s", exc.code)

    async def read(self, picked: Picked, read: str, attribute: str | None) -> str | None:
        data = await self._call("read", {"read": read, "attribute": attribute}, api=COLLECT)
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
        return _field_values(await self._call("fields", arg, api=COLLECT), len(fields))

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
        data = await self._call("list", arg, api=COLLECT)
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
        self._action_begins()  # what the scroll loads is settled after it, like an action's
        if to != "end":
            await self._guard("scrolling", lambda: target.scroll_into_view_if_needed(timeout=timeout_ms))
            return 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_ms / 1000
        rounds = 0
        before = await self._call("scrollEnd", {}, api=COLLECT)
        while rounds < max_rounds and isinstance(before, dict):
            quiet = min(loop.time() + END_QUIET_S, deadline)
            after = before
            while after == before and loop.time() < quiet:
                await asyncio.sleep(0.05)
                after = await self._call("scrollState", {}, api=COLLECT)
            if after == before or not isinstance(after, dict):
                break
            rounds += 1
            if loop.time() >= deadline:
                break
            if settle_ms:
                await asyncio.sleep(settle_ms / 1000)
            before = await self._call("scrollEnd", {}, api=COLLECT)
        return rounds

    async def _on_dialog(self, dialog: Dialog) -> None:
        """Every dialog of the page: the armed answer when it is of the kind expected, else
        dismissed (as the first version did for all of them). Its message is never read."""
        armed, kind = self._armed, dialog.type
        try:
            if armed is not None and armed[2] in (None, kind):
                accept, text, _ = armed
                self._armed = None
                self._seen = DialogSeen(kind, True)
                if accept and kind == "prompt" and text is not None:
                    await dialog.accept(text)
                elif accept:
                    await dialog.accept()
                else:
                    await dialog.dismiss()
                return
            if armed is not None:
                self._armed = None
                self._seen = DialogSeen(kind, False)
            await dialog.dismiss()
        except PlaywrightError as exc:  # the page went away with its dialog
            log.debug("dialog: %s", type(exc).__name__)

    def _listen_dialogs(self) -> None:
        if not self._dialogs:
            self._page.on("dialog", self._on_dialog)
            self._dialogs = True

    async def arm_dialog(self, *, accept: bool, text: str | None, expects: str | None) -> None:
        self._listen_dialogs()
        self._armed = (accept, text, expects)
        self._seen = None

    async def dialog_seen(self) -> DialogSeen | None:
        return self._seen

    async def disarm_dialog(self) -> None:
        self._armed = None
        self._seen = None


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
