"""The isolated-world channel of :class:`~skillreel.replay.driver.PlaywrightDriver`: every call
into our scripts in the page goes through :meth:`World.call`.

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

The channel also holds what settling needs between an action and the next call
(``replay/settling.py``): where the action began in the page's activity (:meth:`World.action_begins`),
the deadline of the DOM-quiet window the next call waits for in ``settle.js``
(:attr:`World.quiet_deadline`), and the marks the page replaced before an action reached them
(announced by our world through the ``skillreelReplaced`` binding), and where to click the element
the last call marked (:attr:`World.aim`, ``aim.js``; its guard's refusals raise from the next call).
Playwright errors met here are translated once (:meth:`World.translate`).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
from functools import cache
from importlib import resources
from typing import Any, Final, TypeVar

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from ..errors import ReplayUIError
from ..locate import resolve_world_script
from .driving import TargetCovered, TargetReplaced
from .settling import (
    CALM_WINDOW_MS,
    LEAVING_WAIT_S,
    MAX_ROUNDS,
    NETWORK_CAP_S,
    QUIET_CAP_MS,
    QUIET_WINDOW_MS,
    PageActivity,
)

_T = TypeVar("_T")

# What ``call.js`` returns in a world our scripts are not (yet) in (a new document the registered
# script did not reach: installed then, and the call made again).
MISSING: Final = "skillreel:not-installed"
# The in-page API a call goes to (settle.js routes it): resolve.js, or collect.js (schema v2 sets,
# items, reads): "collect." prefixes the method.
RESOLVE: Final = ""
COLLECT: Final = "collect."
LISTBOX: Final = "listbox."  # popup pickers: locate/listbox.js
# The binding our world calls with a mark's nonce when the marked element left the page before any
# input reached it (settle.js; exposed to our world only: Runtime.addBinding with its name).
REPLACED_BINDING: Final = "skillreelReplaced"
RETRIES: Final = 5
RETRY_DELAY_S: Final = 0.05


@cache
def world_script() -> str:
    """What the isolated world holds: ``fingerprint.js``, ``resolve.js``, ``aim.js``, then
    ``settle.js``."""
    here = resources.files(__package__)
    aim = here.joinpath("aim.js").read_text("utf-8")
    settle = here.joinpath("settle.js").read_text("utf-8")
    return resolve_world_script() + "\n;\n" + aim + "\n;\n" + settle + "\n;\ntrue;\n"


@cache
def call_script() -> str:
    """``call.js``: the function every call runs in our world (to settle.js's call or after)."""
    return resources.files(__package__).joinpath("call.js").read_text("utf-8")


@cache
def document_script() -> str:
    """The same, registered to run as each new document of the page starts: in the main frame only
    (every top-level declaration of the scripts is a ``var``: the block does not scope them)."""
    return "if (window.top === window) {\n" + world_script() + "\n}\n"


class _Transient(Exception):
    """The isolated world went away (a navigation); measure again in the new document."""


class World:
    """Our isolated world in the main frame of ``page``, over the driver's own CDP session."""

    def __init__(self, page: Page, session_crashed: Callable[[], bool], activity: PageActivity) -> None:
        self._page = page
        self._session_crashed = session_crashed
        self.name = "skillreel-" + secrets.token_hex(8)
        self.cdp: CDPSession | None = None
        self.frame_id: str | None = None
        self.contexts: dict[int, str] = {}  # our world's execution context id -> unique id
        self.unique: str | None = None
        self.installed: str | None = None
        self.activity = activity
        self.action_mark = 0  # activity position when the last action began
        self.quiet_deadline: float | None = None  # set: the next measurement waits for a quiet DOM
        # the nonces of marked elements the page replaced before an action reached them (settle.js)
        self.replaced: set[str] = set()
        self.replacing: tuple[str, asyncio.Future[None]] | None = None  # the action that waits
        # where to click the element the last call marked (aim.js; its nonce, ok, x, y, why), its
        # guard armed; None after any other call
        self.aim: dict[str, Any] | None = None
        self.refused = False  # the guard refused a press since the last pointer action began
        self.pointing = False  # a click of ours was sent since the last call: a refusal is its

    def crashed(self) -> bool:
        """Chromium exited or the page crashed (or closed)."""
        return self._session_crashed() or self._page.is_closed()

    def translate(
        self, exc: Exception, doing: str, *, code: str = "SR_REPLAY_UI_ACTION_FAILED"
    ) -> ReplayUIError:
        if self.crashed():
            return ReplayUIError("SR_REPLAY_UI_BROWSER_CRASHED", "Chromium exited or the page crashed")
        if isinstance(exc, PlaywrightTimeoutError):
            return ReplayUIError("SR_REPLAY_UI_TIMEOUT", f"the browser did not finish {doing} in time")
        return ReplayUIError(code, f"the browser could not finish {doing}")

    async def guard(
        self, doing: str, work: Callable[[], Awaitable[_T]], code: str = "SR_REPLAY_UI_ACTION_FAILED"
    ) -> _T:
        try:
            return await work()
        except PlaywrightError as exc:
            raise self.translate(exc, doing, code=code) from exc

    async def session(self) -> CDPSession:
        if self.cdp is None:
            cdp = await self._page.context.new_cdp_session(self._page)
            cdp.on("Runtime.executionContextCreated", self._on_created)
            cdp.on("Runtime.executionContextDestroyed", self._on_destroyed)
            cdp.on("Runtime.executionContextsCleared", self._on_cleared)
            cdp.on("Runtime.bindingCalled", self._on_replaced)
            self.activity.watch(cdp)
            tree = await cdp.send("Page.getFrameTree")
            self.frame_id = tree["frameTree"]["frame"]["id"]
            await asyncio.gather(
                # our world and scripts in every later document of the main frame as it starts: the
                # first call there needs no world created and no script installed (round trips, a
                # compile);
                # Chromium runs such a script only for a session that enabled the Page domain
                cdp.send(
                    "Page.addScriptToEvaluateOnNewDocument",
                    {"source": document_script(), "worldName": self.name},
                ),
                cdp.send("Page.enable"),
                cdp.send("Runtime.enable"),
                # how our world tells that an action's target was replaced before the action reached it
                cdp.send("Runtime.addBinding", {"name": REPLACED_BINDING, "executionContextName": self.name}),
                # the page's script requests, announced on this session before its answers to our
                # calls (settling.py). Chromium's defaults: with no response buffer and no post data
                # (maxTotalBufferSize/maxResourceBufferSize 0, maxPostDataSize 1) replays of
                # password-form POSTs timed out in the real-app corpus (4 of 5; 0 of 4 with these)
                cdp.send("Network.enable"),
            )
            self.cdp = cdp
        return self.cdp

    def _on_created(self, event: dict[str, Any]) -> None:
        context = event.get("context", {})
        aux = context.get("auxData") or {}
        if context.get("name") == self.name and aux.get("frameId") == self.frame_id:
            self.contexts[context["id"]] = context["uniqueId"]

    def _on_destroyed(self, event: dict[str, Any]) -> None:
        unique = event.get("executionContextUniqueId")
        gone = self.contexts.pop(event.get("executionContextId", -1), None)
        if self.unique is not None and self.unique in (unique, gone):
            self.unique = None

    def _on_replaced(self, event: dict[str, Any]) -> None:
        """Our world says the element marked ``payload`` left the page before any input reached it."""
        if event.get("name") != REPLACED_BINDING or event.get("executionContextId") not in self.contexts:
            return
        nonce = event.get("payload")
        if not isinstance(nonce, str):
            return
        self.replaced.add(nonce)
        waiting = self.replacing
        if waiting is not None and waiting[0] == nonce and not waiting[1].done():
            waiting[1].set_result(None)

    def _on_cleared(self, _event: dict[str, Any]) -> None:
        self.contexts.clear()
        self.unique = None
        self.activity.document_replaced()

    async def _context(self, cdp: CDPSession) -> str:
        """Our world in the current document: the newest one announced (a document our registered
        script reached), else one created now."""
        if self.unique is None and self.contexts:
            self.unique = self.contexts[max(self.contexts)]
        if self.unique is None:
            world = await cdp.send(
                "Page.createIsolatedWorld",
                {"frameId": self.frame_id, "worldName": self.name, "grantUniveralAccess": False},
            )
            unique = self.contexts.get(world["executionContextId"])
            if unique is None:
                raise _Transient
            self.unique = unique
            await self.install(cdp)
        return self.unique

    async def install(self, cdp: CDPSession) -> None:
        """Install our scripts in the current world (created by us, or a call found them missing)."""
        if self.installed != self.unique:
            result = await cdp.send(
                "Runtime.evaluate",
                {
                    "expression": world_script(),
                    "uniqueContextId": self.unique,
                    "returnByValue": True,
                },
            )
            if "exceptionDetails" in result:
                raise ReplayUIError(
                    "SR_REPLAY_UI_ACTION_FAILED", "the resolution script could not be installed"
                )
            self.installed = self.unique

    async def call(self, method: str, arg: Any, *, api: str = RESOLVE, aim: bool = False) -> Any:
        """Call ``SkillreelResolve[method](arg)`` (or, with ``api=COLLECT``, ``SkillreelCollect``'s)
        in our isolated world, through ``settle.js``; retried across navigations. After an action
        (:meth:`settle`), the call first waits there for a quiet DOM. ``aim``: the call marks an
        element for an action; where to click it comes back in :attr:`aim` (``aim.js``), its guard
        armed. Raises :class:`TargetCovered` (or :class:`TargetReplaced`) when the guard refused
        the press of a direct action since the last call: nothing reached the page."""
        self.aim = None
        for _ in range(RETRIES):
            quiet = self.quiet_deadline
            try:
                cdp = await self.session()
                unique = await self._context(cdp)
                result = await cdp.send(
                    "Runtime.callFunctionOn", self._call_params(unique, api + method, arg, aim)
                )
                if result.get("result", {}).get("value") == MISSING:
                    # a document our registered script did not reach: install, call again
                    self.installed = None
                    await self.install(cdp)
                    continue
            except _Transient:
                await asyncio.sleep(RETRY_DELAY_S)
                continue
            except PlaywrightError as exc:
                if self.crashed():
                    raise self.translate(exc, "measuring the page") from exc
                self.unique = None
                if quiet is not None:  # most likely the page navigated while it was measured
                    await self.wait_activity(quiet)
                await asyncio.sleep(RETRY_DELAY_S)
                continue
            if "exceptionDetails" in result:
                raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the in-page resolution script failed")
            answer = result.get("result", {}).get("value")
            self.installed = unique
            if not isinstance(answer, dict):
                raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed")
            if answer.get("leaves") and await self._left(quiet):
                continue  # measured on a page a submitted form is taking away: measure the new one
            pointing, self.pointing = self.pointing, False
            self._refused(answer.get("refused"), pointing)
            aimed = answer.get("aim")
            self.aim = aimed if aim and isinstance(aimed, dict) else None
            if quiet is None:
                return answer.get("value")
            self.quiet_deadline = None
            if self.activity.busy(self.action_mark):  # the page started more while it was measured
                await self.wait_activity(quiet)
                self.quiet_deadline = quiet  # and the next measurement waits for quiet again
            return answer.get("value")
        raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page kept navigating while it was measured")

    async def _left(self, quiet: float | None) -> bool:
        """A form was submitted (and not prevented) since the last call: the browser starts its
        navigation a task later, so it may not be known yet. Wait for it (at most
        :data:`LEAVING_WAIT_S`), then for the new document as after any navigation; True when it
        came (the next measurement then waits for quiet again)."""
        deadline = quiet if quiet is not None else time.monotonic() + LEAVING_WAIT_S
        await self.activity.wait_leaving(self.action_mark, min(deadline, time.monotonic() + LEAVING_WAIT_S))
        if not self.activity.navigated_since(self.action_mark):
            return False
        await self.wait_activity(deadline)
        self.quiet_deadline = deadline
        return True

    def _refused(self, refused: Any, pointing: bool) -> None:
        """The guard refused the press of a direct action (``aim.js``): nothing reached the page.
        The next measurement waits for a quiet DOM (the page changed under the pointer), and the
        next pointer action is Playwright's own (its checks wait for the element to be stable and
        to receive the click). A refused press that was not ours (no click of ours since the last
        call: a person's, during a ``human`` step) only disarmed the guard."""
        if not isinstance(refused, dict) or not pointing:
            return
        self.refused = True
        self.quiet_deadline = time.monotonic() + QUIET_CAP_MS / 1000
        if refused.get("why") in ("replaced", "torn"):  # torn: it left between press and release
            raise TargetReplaced
        raise TargetCovered

    def _call_params(self, unique: str, method: str, arg: Any, aim: bool = False) -> dict[str, Any]:
        params: dict[str, Any] = {
            "uniqueContextId": unique,
            "returnByValue": True,
            "functionDeclaration": call_script(),
        }
        if self.quiet_deadline is None:
            params["arguments"] = [{"value": None}, {"value": method}, {"value": arg}, {"value": aim}]
            return params
        cap = min(QUIET_CAP_MS, max(0, int((self.quiet_deadline - time.monotonic()) * 1000)))
        params["arguments"] = [
            {"value": self._quiet(cap)},
            {"value": method},
            {"value": arg},
            {"value": aim},
        ]
        params["awaitPromise"] = True
        return params

    def _quiet(self, cap: int) -> dict[str, int]:
        """The DOM-quiet window of the measurement after an action (``settle.js`` ``after``): after a
        calm action one animation frame (at most the full window) and the short window, else the
        full window (``replay/settling.py``)."""
        if self.activity.calm(self.action_mark):
            return {"windowMs": CALM_WINDOW_MS, "frameMs": QUIET_WINDOW_MS, "capMs": cap}
        return {"windowMs": QUIET_WINDOW_MS, "frameMs": 0, "capMs": cap}

    def action_begins(self) -> None:
        self.action_mark = self.activity.mark()
        self.quiet_deadline = None

    async def wait_activity(self, deadline: float) -> None:
        """Until the action's navigation has loaded and its requests have finished (bounded)."""
        activity = self.activity
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
            await activity.wait_requests(self.action_mark, now + min(NETWORK_CAP_S, (deadline - now) / 2))
            if not (activity.navigating() or activity.unloaded()):
                return

    async def _wait_loaded(self, timeout_ms: int) -> None:
        await self.guard(
            "loading the page", lambda: self._page.wait_for_load_state("load", timeout=timeout_ms)
        )
