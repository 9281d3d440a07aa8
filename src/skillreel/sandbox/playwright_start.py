"""Playwright's Node.js process (no browser; what Playwright calls its driver) started ahead, and how
every Playwright object is closed (``quietly``).

In skillreel "driver" means the replay driver only (``replay.driving.Driver``); the process that
Playwright's Python API talks to is called "Playwright's process" here.

Kept apart from the modules that launch Chromium and light to import (``errors``, the vault's
environment sealing and ``platformdirs``; Playwright's Python API is imported when first used, no
pydantic, no model): ``skillreel replay`` spawns Playwright's process first
(:meth:`EarlyPlaywright.spawn`, before even Playwright's Python API is imported) and imports the
rest of the verb, opens the store and runs the pre-flight while the process boots.

The process keeps its compiled JavaScript between runs (:func:`node_compile_cache`): Node.js
compiles Playwright's ~100 modules at every start otherwise (bench/RESULTS.md, "The sandbox's
figures").
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import platformdirs

from skillreel.errors import ReplayUIError
from skillreel.vault import seal_environment

if TYPE_CHECKING:
    from playwright.async_api import Browser, Playwright

log = logging.getLogger(__name__)

SETUP: Final = "SR_REPLAY_UI_CHROMIUM_SETUP"
SETUP_FIX: Final = "install Chromium (`apt-get install chromium`) or set SKILLREEL_CHROMIUM to its path"
CLOSE_TIMEOUT_S: Final = 15.0
NODE_CACHE_ENV: Final = "NODE_COMPILE_CACHE"  # Node.js's module compile cache (a folder)
NODE_CACHE_OFF_ENV: Final = "NODE_DISABLE_COMPILE_CACHE"
NODE_CACHE_FOLDER: Final = "node-compile-cache"


async def quietly(close: Callable[[], Awaitable[Any]]) -> None:
    """Run a close step, bounded in time; a failure to close a dead browser is not news."""
    from playwright.async_api import Error as PlaywrightError

    try:
        await asyncio.wait_for(close(), CLOSE_TIMEOUT_S)
    except (PlaywrightError, OSError, TimeoutError) as exc:
        log.debug("ignored while closing: %s", type(exc).__name__)


class PlaywrightStart:
    """Playwright's process (Node.js; no browser) started ahead of the work that must come before
    any browser starts, so that its boot overlaps that work (a whole `skillreel replay` process: the
    imports, the store and the pre-flight run while Playwright's process boots).

        playwright = await PlaywrightStart.begin()   # the environment is sealed first (no secret inherited)
        try:
            ...                                # refusals here: no browser was started
            async with browser_session(env, playwright=playwright) as session: ...   # takes it over
            ...                                # the run's final write, while Chromium closes
        finally:
            await playwright.close()           # stops it when no session took it, else awaits the
                                               # closing of the session's Chromium and of Playwright

    :meth:`begin` returns once Playwright's process is spawned: Playwright's transport spawns it in
    the first step of its task, so two turns of the loop let that happen before the caller's
    synchronous work holds the loop (if it took longer, the boot would only overlap less). A
    Playwright that could not start raises ``SR_REPLAY_UI_CHROMIUM_SETUP`` when a session takes it, as
    without a head start.
    """

    def __init__(self, task: asyncio.Task[Playwright]) -> None:
        self._task = task
        self._taken = False
        self._browser: Browser | None = None
        self._closing: asyncio.Task[None] | None = None

    @classmethod
    async def begin(cls, early: EarlyPlaywright | None = None) -> PlaywrightStart:
        """``early``: Playwright's process, spawned before this (:meth:`EarlyPlaywright.spawn`); this
        start takes it over (and stops it when it goes unused)."""
        task = asyncio.ensure_future(early.adopt() if early is not None else start_playwright())
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return cls(task)

    async def take(self) -> Playwright:
        """The started Playwright, once (the caller stops it)."""
        if self._taken:
            raise ReplayUIError(SETUP, "Playwright's process started ahead was already taken")
        self._taken = True
        return await self._task

    def owns(self, browser: Browser) -> None:
        """The session's Chromium, closed when the session hands Playwright back."""
        self._browser = browser

    async def hand_back(self, pw: Playwright, *after: Callable[[], Awaitable[Any]]) -> None:
        """The session is over: start closing its Chromium, then Playwright, then ``after`` (the
        session's proxy: it outlives the browser it serves), in the background (:meth:`close`
        awaits it). Returns once the close request is on its way to Playwright's process."""
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
        """Stop Playwright if no session took it (a refused replay); a start that failed is not news.
        A start still under way is cancelled rather than awaited (a refusal does not wait for its
        boot): Playwright's process is killed when asyncio closes its transport (the CLI's
        ``asyncio.run`` ends next). After a session: wait until its Chromium and Playwright closed."""
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
            log.debug("Playwright started ahead did not start: %s", type(exc).__name__)
            self._task.cancel()
            return
        await quietly(pw.stop)


async def start_playwright() -> Playwright:
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import async_playwright

    _playwright_environment()
    try:
        return await async_playwright().start()
    except PlaywrightError as exc:
        raise ReplayUIError(SETUP, f"Playwright's Node.js process could not start; {SETUP_FIX}") from exc


def _playwright_environment() -> None:
    """What Playwright's process inherits, set before any is spawned: no SKILLREEL_SECRET_*
    variable (nor does Chromium), and the compile cache."""
    seal_environment()
    node_compile_cache()


class EarlyPlaywright:
    """Playwright's Node.js process, spawned before Playwright's Python API is imported (it boots
    while that import runs), then adopted by Playwright's client in place of the process it would
    spawn (:meth:`adopt`).

        early = EarlyPlaywright.spawn()        # None when it cannot: the usual start then
        playwright = await PlaywrightStart.begin(early)

    The process is the one Playwright spawns (its own command line and environment, from its own
    functions), after the same preparation as :func:`start_playwright` (:func:`_playwright_environment`:
    the vault's variables sealed first, the compile cache set). Adopting it uses two internals of
    Playwright's client (``out_of_process.PlaywrightClient`` builds its pipe transport from the
    module's ``PipeTransport``): when they are not there (another Playwright), the process is stopped and
    the usual start runs, so a different Playwright costs the head start, never the run. Like the
    usual start, the process ends when its standard input closes (also when this process dies).
    """

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process: subprocess.Popen[bytes] | None = process

    @classmethod
    def spawn(cls) -> EarlyPlaywright | None:
        _playwright_environment()
        try:
            from playwright._impl._driver import compute_driver_executable, get_driver_env

            executable, entry = compute_driver_executable()
            process = subprocess.Popen(
                [executable, entry, "run-driver"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=get_driver_env(),
            )
        except Exception as exc:  # any failure here: the usual start reports it
            log.debug("no early Playwright: %s", type(exc).__name__)
            return None
        return cls(process)

    async def adopt(self) -> Playwright:
        """Playwright's client on this process (taken once); the usual start when it cannot be."""
        process, self._process = self._process, None
        if process is None:
            raise ReplayUIError(SETUP, "Playwright's process spawned ahead was already taken")
        try:
            client, owned = _client_on(process)
        except (ImportError, AttributeError) as exc:  # another Playwright: no adoption
            log.debug("the early Playwright cannot be adopted: %s", type(exc).__name__)
            _kill(process, owned=[])
            return await start_playwright()
        try:
            return await client
        except BaseException:  # cancelled (a refused replay) or failed: no browser was started
            _kill(process, owned=owned)
            raise

    def discard(self) -> None:
        """Stop the process if nobody adopted it (it has started no browser)."""
        process, self._process = self._process, None
        if process is not None:
            _kill(process, owned=[])


def _client_on(
    process: subprocess.Popen[bytes],
) -> tuple[Awaitable[Playwright], list[asyncio.BaseTransport]]:
    """Playwright's client (as ``async_playwright().start()`` builds it) on ``process``'s pipes, and
    the transports that own the pipes once attached (:meth:`_Pipes.attach`)."""
    from playwright._impl import out_of_process
    from playwright._impl.transport import PipeTransport
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import Playwright as AsyncPlaywright
    from playwright.async_api._context_manager import PlaywrightContextManager

    if getattr(out_of_process, "PipeTransport", None) is not PipeTransport:
        raise AttributeError("PipeTransport")
    owned: list[asyncio.BaseTransport] = []

    class AdoptedTransport(PipeTransport):
        """The standard pipe transport, on a process already running."""

        async def connect(self) -> None:
            self._stopped_future = asyncio.Future()
            try:
                pipes = await _Pipes.attach(process, owned)
            except Exception as exc:
                self.on_error_future.set_exception(exc)
                raise
            self._proc = pipes  # type: ignore[assignment]
            self._output = pipes.stdin  # type: ignore[assignment]

    manager = PlaywrightContextManager()
    setattr(out_of_process, "PipeTransport", AdoptedTransport)  # read once, just below  # noqa: B010
    try:
        client = out_of_process.PlaywrightClient()
    finally:
        setattr(out_of_process, "PipeTransport", PipeTransport)  # noqa: B010
    manager._client = client

    async def started() -> Playwright:
        try:
            impl = await client._playwright
        except PlaywrightError as exc:
            raise ReplayUIError(SETUP, f"Playwright's Node.js process could not start; {SETUP_FIX}") from exc
        playwright = AsyncPlaywright(impl)
        playwright.stop = manager.__aexit__  # type: ignore[method-assign]
        return playwright

    return started(), owned


class _Pipes:
    """What the pipe transport uses of an asyncio process: ``stdout`` to read, ``stdin`` to write and
    close, ``communicate()`` to wait for the end."""

    def __init__(
        self, process: subprocess.Popen[bytes], reader: asyncio.StreamReader, writer: asyncio.WriteTransport
    ) -> None:
        self._process = process
        self.stdout = reader
        self.stdin = writer

    @classmethod
    async def attach(cls, process: subprocess.Popen[bytes], owned: list[asyncio.BaseTransport]) -> _Pipes:
        """Our ends of the process's pipes on the running loop; each transport is added to ``owned``
        once it owns its pipe (asyncio closes the pipe of one it could not finish)."""
        loop = asyncio.get_running_loop()
        if process.stdout is None or process.stdin is None:
            raise OSError("Playwright's pipes are gone")
        reader = asyncio.StreamReader(limit=32_768, loop=loop)
        read, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader, loop=loop), process.stdout
        )
        owned.append(read)
        writer, _ = await loop.connect_write_pipe(asyncio.Protocol, process.stdin)
        owned.append(writer)
        return cls(process, reader, writer)

    async def communicate(self) -> None:
        await asyncio.to_thread(self._process.wait)


def _kill(process: subprocess.Popen[bytes], *, owned: list[asyncio.BaseTransport]) -> None:
    """End a Playwright process that has started no browser, and close our ends of its pipes: through the
    transports that own them, else the files themselves."""
    process.kill()
    process.wait()
    for transport in owned:
        transport.close()
    for stream in (process.stdout, process.stdin)[len(owned) :]:
        if stream is not None:
            stream.close()


def node_compile_cache(base: Path | None = None) -> Path | None:
    """Point Playwright's process at a compile cache (``NODE_COMPILE_CACHE``) in skillreel's cache folder
    (``platformdirs``' user cache, or ``base``), so Node.js compiles Playwright's modules once, not
    at every start; returns the folder, or None when this call set up no cache.

    Node.js runs the code it finds there, so the folder is used only when it and every folder above
    it up to the user's home (or to ``/``), symbolic links resolved, is owned by this user (or root
    above it) and writable by no one else; a folder it creates is 0700. Anything else means no
    cache, never a failure: Playwright's process then compiles as before. A ``NODE_COMPILE_CACHE`` or
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
        log.debug("no compile cache for Playwright: %s", type(exc).__name__)
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
