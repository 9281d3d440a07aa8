"""The warm browser: one Chromium kept between sessions (the MCP server's, a batch's, a fleet
worker's), a fresh isolated context and a fresh enforcing proxy per session, and the next session's
context opened ahead (a spare).

The browser itself is launched (``sandbox.chromium``) through a proxy that refuses everything; each
session's context is built as a cold session's is (``sandbox.context``), behind its own proxy.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import Browser, BrowserContext, Page, Playwright
from playwright.async_api import Error as PlaywrightError

from skillreel.errors import SkillreelError
from skillreel.model.environment import Environment, Viewport
from skillreel.model.login import LoginState

from .chromium import find_chromium, launch_chromium
from .cold import browser_session
from .context import (
    OPEN_S,
    BrowserSession,
    checked_fixture,
    new_context,
    open_session,
    session_proxy,
    starting_state,
)
from .ledger import NetworkLedger
from .playwright_start import quietly, start_playwright
from .proxy import EnforcingProxy

log = logging.getLogger(__name__)


class WarmBrowser:
    """One Chromium kept between sessions (the MCP server's): each :meth:`session` gets a fresh
    isolated context (no cookie, storage, cache or service worker of another session) behind its
    own fresh enforcing proxy, and shares only the browser process. Closed after ``idle_s`` seconds
    without a session, and relaunched by the next one; a crashed browser is relaunched too.

    The browser itself is launched through a proxy that refuses everything (its own traffic, and
    anything outside a context), so what no session's proxy allows never leaves either. Headed
    sessions (a ``human`` step) are not kept: they get a browser of their own
    (:func:`browser_session`). ``session`` has :func:`browser_session`'s signature.

    After a session ends, the next session's context, page and proxy are opened ahead (a *spare*,
    :class:`_Spare`), so a session does not wait for a context and its renderer to start. (Not while
    a session runs: on 2 cores opening a context beside a play's steps slowed the play by ~0.6 s,
    1.00x -> 1.66x the hand-written script's steps, `bench/mcp_play.py --pairs 7`, load ~5.) A spare
    is fresh and used by one session only; until a session takes it, its proxy refuses everything
    and it has no routing (its page stays on ``about:blank``); taken, its proxy gets the session's
    allowlist and ledger and the context its routing before anything loads. Only a URL target
    without storage state at the same viewport takes a spare (an HTML fixture's context is
    offline, a signed-in one starts with its state); the others open their own as before.
    """

    def __init__(self, *, idle_s: float = 300.0, spare: bool = True) -> None:
        self.idle_s = idle_s
        self.launches = 0  # how many times Chromium was started (for tests and benchmarks)
        self.spares_used = 0  # sessions that took a spare (for tests and benchmarks)
        self._lock = asyncio.Lock()
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._guard_proxy: EnforcingProxy | None = None
        self._active = 0
        self._idle: asyncio.TimerHandle | None = None
        self._closing: asyncio.Task[None] | None = None
        self._spares = spare
        self._spare: asyncio.Task[_Spare | None] | None = None

    @property
    def running(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    @property
    def spare_pending(self) -> bool:
        """True while a spare is open or being opened for the next session (for tests)."""
        return self._spare is not None

    @asynccontextmanager
    async def session(
        self,
        environment: Environment,
        *,
        html: str | None = None,
        storage_state: Path | LoginState | None = None,
        headless: bool = True,
        downloads: bool = False,
    ) -> AsyncIterator[BrowserSession]:
        """A session of the warm browser (a headed one: a cold browser of its own). ``downloads``:
        its context accepts downloads (never the spare's: a fresh context)."""
        if not headless:
            async with browser_session(
                environment, html=html, storage_state=storage_state, headless=False
            ) as cold:
                yield cold
            return
        fixture = checked_fixture(environment, html, storage_state)
        state = starting_state(storage_state)
        self._active += 1
        self._cancel_idle()
        try:
            ledger = NetworkLedger()
            fresh = fixture is not None or state is not None or downloads
            spare = await self._take_spare(environment.viewport) if not fresh else None
            if spare is not None:
                proxy = spare.proxy
                spare.hand_over(environment.allowed_origins, ledger)
            else:
                proxy = session_proxy(environment, fixture, ledger)
                await proxy.start()
            try:
                browser = spare.browser if spare is not None else await self._browser_up()
                ahead = (spare.context, spare.page) if spare is not None else None
                async with open_session(
                    browser,
                    environment,
                    fixture,
                    state,
                    ledger,
                    proxy,
                    proxy.server_url,
                    ahead,
                    downloads=downloads,
                ) as session:
                    yield session
            finally:
                await proxy.close()
        finally:
            self._active -= 1
            self._open_spare(environment.viewport)
            self._schedule_idle()

    async def _take_spare(self, viewport: Viewport) -> _Spare | None:
        """The spare opened ahead, if it is ready or being opened, fits ``viewport`` and its browser
        is the running one; otherwise None (a spare that does not fit is closed)."""
        task, self._spare = self._spare, None
        if task is None:
            return None
        if self._browser is None or not self._browser.is_connected():
            task.cancel()  # its browser is gone: opening it may never end (OPEN_S)
            return None
        try:
            spare = await asyncio.shield(task)
        except asyncio.CancelledError:
            if self._spare is None and not task.done():
                self._spare = task  # still the next session's (closed with the browser otherwise)
            raise
        if spare is None:
            return None
        if not spare.fits(viewport, self._browser):
            await spare.close()
            return None
        self.spares_used += 1
        return spare

    def _open_spare(self, viewport: Viewport) -> None:
        """Open the next session's context ahead, in the background (at most one spare)."""
        browser = self._browser
        if not self._spares or self._spare is not None or self._closing is not None:
            return
        if browser is None or not browser.is_connected():
            return
        self._spare = asyncio.ensure_future(_Spare.open(browser, viewport))

    async def _drop_spare(self) -> None:
        task, self._spare = self._spare, None
        if task is None:
            return
        spare = await asyncio.shield(task)
        if spare is not None:
            await spare.close()

    async def _browser_up(self) -> Browser:
        async with self._lock:
            if self._closing is not None:
                await self._closing
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            await self._shutdown()
            executable = find_chromium(headless=True)
            guard = EnforcingProxy((), lambda _origin: None)
            await guard.start()
            self._guard_proxy = guard
            self._pw = await start_playwright()
            self._browser = await launch_chromium(self._pw, executable, True, guard.server_url)
            self._browser.on("disconnected", self._gone)
            self.launches += 1
            return self._browser

    def _gone(self, browser: Browser) -> None:
        """The browser exited (killed, crashed): a spare being opened in it is given up at once."""
        task = self._spare
        if task is not None and browser is self._browser and not task.done():
            self._spare = None
            task.cancel()

    def _cancel_idle(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None

    def _schedule_idle(self) -> None:
        self._cancel_idle()
        if self._active == 0 and self._browser is not None:
            loop = asyncio.get_running_loop()
            self._idle = loop.call_later(self.idle_s, self._idle_close)

    def _idle_close(self) -> None:
        self._idle = None
        if self._active == 0 and self._closing is None:
            self._closing = asyncio.ensure_future(self._close_when_idle())

    async def _close_when_idle(self) -> None:
        try:
            async with self._lock:
                if self._active == 0:
                    await self._shutdown()
        finally:
            self._closing = None

    async def close(self) -> None:
        """Close the browser now (the server is stopping); a later session launches it again."""
        self._cancel_idle()
        async with self._lock:
            await self._shutdown()

    async def _shutdown(self) -> None:
        await self._drop_spare()
        browser, pw, guard = self._browser, self._pw, self._guard_proxy
        self._browser = self._pw = self._guard_proxy = None
        if browser is not None:
            await quietly(browser.close)
        if pw is not None:
            await quietly(pw.stop)
        if guard is not None:
            await guard.close()


class _Refusals:
    """A spare proxy's refusal callback: nowhere until a session takes the spare, then its ledger."""

    def __init__(self) -> None:
        self.ledger: NetworkLedger | None = None

    def __call__(self, origin: str | None) -> None:
        if self.ledger is not None:
            self.ledger.refuse(origin)


@dataclass(eq=False)
class _Spare:
    """A warm browser's next context, opened ahead: its own proxy (refusing everything until
    :meth:`hand_over`), no routing yet, one page on ``about:blank`` (see :class:`WarmBrowser`)."""

    browser: Browser
    viewport: Viewport
    context: BrowserContext
    page: Page
    proxy: EnforcingProxy
    refusals: _Refusals
    crashed: list[str] = field(default_factory=list)

    @classmethod
    async def open(cls, browser: Browser, viewport: Viewport) -> _Spare | None:
        """A spare, or None when it could not be opened (the browser closing or gone)."""
        refusals = _Refusals()
        proxy = EnforcingProxy((), refusals)
        context: BrowserContext | None = None
        try:
            await proxy.start()
            context = await asyncio.wait_for(
                new_context(browser, viewport, None, offline=False, proxy=proxy.server_url), OPEN_S
            )
            page = await asyncio.wait_for(context.new_page(), OPEN_S)
        except (SkillreelError, PlaywrightError, OSError, TimeoutError, asyncio.CancelledError) as exc:
            log.debug("no spare context: %s", type(exc).__name__)
            if context is not None:
                await quietly(context.close)
            await proxy.close()
            if isinstance(exc, asyncio.CancelledError):
                raise
            return None
        spare = cls(browser, viewport, context, page, proxy, refusals)
        page.on("crash", lambda _p: spare.crashed.append("page"))
        return spare

    def fits(self, viewport: Viewport, browser: Browser | None) -> bool:
        return (
            self.viewport == viewport
            and self.browser is browser
            and self.browser.is_connected()
            and not self.crashed
            and not self.page.is_closed()
        )

    def hand_over(self, allowed_origins: tuple[str, ...], ledger: NetworkLedger) -> None:
        """The session's allowlist and ledger, before its routing is installed and anything loads."""
        self.proxy.allowed_origins = tuple(allowed_origins)
        self.refusals.ledger = ledger

    async def close(self) -> None:
        await quietly(self.context.close)
        await self.proxy.close()
