"""The Playwright driver (a Node.js process; no browser) started ahead, and how every Playwright
object is closed (``quietly``).

Kept apart from ``sandbox.browser`` and light to import (Playwright, ``errors`` and the vault's
environment sealing only; no pydantic, no model): ``skillreel replay`` spawns the driver first and
imports the rest of the verb, opens the store and runs the pre-flight while the driver boots.

The driver keeps its compiled JavaScript between runs (:func:`node_compile_cache`): Node.js compiles
Playwright's ~100 modules at every start otherwise (a driver's start: ~650 -> ~490 ms and ~790 ->
~630 CPU-ms on this 2-core machine).
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

import platformdirs
from playwright.async_api import Browser, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from skillreel.errors import ReplayUIError
from skillreel.vault import seal_environment

log = logging.getLogger(__name__)

SETUP: Final = "SR_REPLAY_UI_CHROMIUM_SETUP"
SETUP_FIX: Final = "install Chromium (`apt-get install chromium`) or set SKILLREEL_CHROMIUM to its path"
CLOSE_TIMEOUT_S: Final = 15.0
NODE_CACHE_ENV: Final = "NODE_COMPILE_CACHE"  # Node.js's module compile cache (a folder)
NODE_CACHE_OFF_ENV: Final = "NODE_DISABLE_COMPILE_CACHE"
NODE_CACHE_FOLDER: Final = "node-compile-cache"


async def quietly(close: Callable[[], Awaitable[Any]]) -> None:
    """Run a close step, bounded in time; a failure to close a dead browser is not news."""
    try:
        await asyncio.wait_for(close(), CLOSE_TIMEOUT_S)
    except (PlaywrightError, OSError, TimeoutError) as exc:
        log.debug("ignored while closing: %s", type(exc).__name__)


class DriverStart:
    """The Playwright driver (a Node.js process; no browser) started ahead of the work that must come
    before any browser starts, so that its boot overlaps that work (a whole `skillreel replay`
    process: the imports, the store and the pre-flight run while the driver boots).

        driver = await DriverStart.begin()     # the environment is sealed first (no secret inherited)
        try:
            ...                                # refusals here: no browser was started
            async with browser_session(env, driver=driver) as session: ...   # takes the driver over
            ...                                # the run's final write, while Chromium closes
        finally:
            await driver.close()               # stops it when no session took it, else awaits the
                                               # closing of the session's Chromium and the driver

    :meth:`begin` returns once the driver process is spawned: Playwright's transport spawns it in the
    first step of its task, so two turns of the loop let that happen before the caller's synchronous
    work holds the loop (if it took longer, the boot would only overlap less). A driver that could not
    start raises ``SR_REPLAY_UI_CHROMIUM_SETUP`` when a session takes it, as without a head start.
    """

    def __init__(self, task: asyncio.Task[Playwright]) -> None:
        self._task = task
        self._taken = False
        self._browser: Browser | None = None
        self._closing: asyncio.Task[None] | None = None

    @classmethod
    async def begin(cls) -> DriverStart:
        task = asyncio.ensure_future(start_playwright())
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return cls(task)

    async def take(self) -> Playwright:
        """The started driver, once (the caller stops it)."""
        if self._taken:
            raise ReplayUIError(SETUP, "the Playwright driver started ahead was already taken")
        self._taken = True
        return await self._task

    def owns(self, browser: Browser) -> None:
        """The session's Chromium, closed when the session hands the driver back."""
        self._browser = browser

    async def hand_back(self, pw: Playwright, *after: Callable[[], Awaitable[Any]]) -> None:
        """The session is over: start closing its Chromium, then the driver, then ``after`` (the
        session's proxy: it outlives the browser it serves), in the background (:meth:`close`
        awaits it). Returns once the close request is on its way to the driver."""
        browser, self._browser = self._browser, None

        async def closing() -> None:
            try:
                if browser is not None:
                    await quietly(browser.close)
                await quietly(pw.stop)
            finally:
                for close in after:
                    await close()

        self._closing = asyncio.ensure_future(closing())
        await asyncio.sleep(0)
        await asyncio.sleep(0)

    async def close(self) -> None:
        """Stop the driver if no session took it (a refused replay); a start that failed is not news.
        A start still under way is cancelled rather than awaited (a refusal does not wait for the
        driver's boot): the driver process is killed when asyncio closes its transport (the CLI's
        ``asyncio.run`` ends next). After a session: wait until its Chromium and the driver closed."""
        if self._closing is not None:
            closing, self._closing = self._closing, None
            await asyncio.shield(closing)
            return
        if self._taken:
            return
        self._taken = True
        if not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            return
        try:
            pw = await asyncio.wait_for(asyncio.shield(self._task), CLOSE_TIMEOUT_S)
        except (ReplayUIError, TimeoutError) as exc:
            log.debug("the driver started ahead did not start: %s", type(exc).__name__)
            self._task.cancel()
            return
        await quietly(pw.stop)


async def start_playwright() -> Playwright:
    seal_environment()  # the driver and Chromium inherit no SKILLREEL_SECRET_* variable
    node_compile_cache()
    try:
        return await async_playwright().start()
    except PlaywrightError as exc:
        raise ReplayUIError(SETUP, f"the Playwright driver could not start; {SETUP_FIX}") from exc


def node_compile_cache(base: Path | None = None) -> Path | None:
    """Point the driver at a compile cache (``NODE_COMPILE_CACHE``) in skillreel's cache folder
    (``platformdirs``' user cache, or ``base``), so Node.js compiles Playwright's modules once, not
    at every start; returns the folder, or None when this call set up no cache.

    Node.js runs the code it finds there, so the folder is used only when it and every folder above
    it up to the user's home (or to ``/``), symbolic links resolved, is owned by this user (or root
    above it) and writable by no one else; a folder it creates is 0700. Anything else means no
    cache, never a failure: the driver then compiles as before. A ``NODE_COMPILE_CACHE`` or
    ``NODE_DISABLE_COMPILE_CACHE`` the caller set is left as it is."""
    if NODE_CACHE_ENV in os.environ or NODE_CACHE_OFF_ENV in os.environ:
        return None
    chosen = base or Path(platformdirs.user_cache_dir("skillreel", appauthor=False))
    try:
        (chosen / NODE_CACHE_FOLDER).mkdir(mode=0o700, parents=True, exist_ok=True)
        folder = (chosen / NODE_CACHE_FOLDER).resolve(strict=True)
        if not _private(folder):
            return None
    except OSError as exc:
        log.debug("no compile cache for the driver: %s", type(exc).__name__)
        return None
    os.environ[NODE_CACHE_ENV] = str(folder)
    return folder


def _private(folder: Path) -> bool:
    """``folder`` (a resolved path) and the folders above it, up to the home folder, are directories
    that only this user (or root) can change, ``folder`` itself this user's."""
    uid = os.geteuid()
    home = Path.home().resolve()
    current = folder
    first = True
    while True:
        info = current.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_mode & 0o022:
            return False
        if info.st_uid != uid and (first or info.st_uid != 0):
            return False
        if current == home or current.parent == current:
            return True
        current, first = current.parent, False
