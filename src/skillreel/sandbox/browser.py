"""Find and launch Chromium, and set up a browser context for one target (ARCHITECTURE section 7).

This is the only module that launches Chromium. A session has two enforcement layers, both
reporting refusals to one :class:`~skillreel.sandbox.ledger.NetworkLedger`:

1. **Routing** in the context: ``context.route("**/*")`` serves the HTML fixture document and
   admits only allowlisted origins; ``context.route_web_socket`` does the same for page sockets.
2. **The enforcing proxy** (:mod:`skillreel.sandbox.proxy`) Chromium is launched through, with
   loopback proxied too and host resolution mapped away, so redirects, workers and anything the
   routing layer never sees still cannot reach an origin off the allowlist. An HTML fixture
   session's proxy has an empty allowlist and its context is emulated offline: nothing leaves
   the machine (routing still fulfils the fixture document).

:class:`WarmBrowser` keeps one Chromium between sessions (the MCP server's): each session gets a
fresh isolated context with its own fresh enforcing proxy (a per-context proxy), routing as above;
the browser is launched through a proxy that refuses everything.

Before the Playwright driver starts, ``vault.seal_environment`` moves every ``SKILLREEL_SECRET_*``
variable out of the process environment, so neither the driver nor Chromium inherits one.

Playwright errors are translated here, once: launch problems to ``SR_REPLAY_UI_CHROMIUM_SETUP``,
a browser or renderer crash to ``SR_REPLAY_UI_BROWSER_CRASHED``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import shutil
import stat
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, cast

from playwright.async_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    ProxySettings,
    Route,
    StorageState,
    WebSocketRoute,
    async_playwright,
)
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from skillreel.errors import InputError, ReplayUIError, TargetError
from skillreel.model.environment import FIXTURE_ORIGIN, FIXTURE_URL, Environment, HtmlTarget
from skillreel.model.limits import MAX_HTML_CHARS
from skillreel.model.session import SessionState
from skillreel.vault import seal_environment

from .allowlist import SINKHOLE_SUFFIX, decide
from .files import fixture_digest, read_storage_state
from .ledger import NetworkLedger
from .proxy import EnforcingProxy

log = logging.getLogger(__name__)

SETUP: Final = "SR_REPLAY_UI_CHROMIUM_SETUP"
CRASHED: Final = "SR_REPLAY_UI_BROWSER_CRASHED"
CHROMIUM_NAMES: Final = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
SETUP_FIX: Final = "install Chromium (`apt-get install chromium`) or set SKILLREEL_CHROMIUM to its path"
CLOSE_TIMEOUT_S: Final = 15.0
# The fixture origin's favicon is asked for by the browser itself (headed), not by the page.
_FIXTURE_FAVICON: Final = FIXTURE_ORIGIN + "/favicon.ico"

# Background networking off (otherwise Chromium's own requests would meet the proxy and count as
# refusals), no QUIC (UDP would not go through an HTTP proxy), WebRTC limited to proxied
# connections (no STUN over UDP), and no crash reporter or first-run UI.
BASE_ARGS: Final = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--disable-breakpad",
    "--disable-quic",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--no-pings",
    "--metrics-recording-only",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
)


# Chromium's own services (accounts, component updates, autofill, ...) still call home on some
# occasions whatever the switches above say. Point each at a never-resolving host the proxy
# refuses without counting: that traffic is the browser's, not the page's, and must not fail a
# replay (a page's own request to a Google host is still refused and counted as usual).
_SERVICES: Final = (
    ("gaia-url", "gaia"),
    ("lso-url", "lso"),
    ("google-apis-url", "apis"),
    ("google-base-url", "google"),
    ("oauth-account-manager-url", "oauth"),
    ("autofill-server-url", "autofill"),
    ("sync-url", "sync"),
    ("translate-script-url", "translate"),
    ("variations-server-url", "variations"),
)
_SERVICE_SWITCHES: Final = (
    *(f"--{switch}=https://{name}{SINKHOLE_SUFFIX}/" for switch, name in _SERVICES),
    f"--component-updater=url-source=https://update{SINKHOLE_SUFFIX}/service/update2/json",
)


def find_chromium() -> Path:
    """The Chromium to launch: ``SKILLREEL_CHROMIUM``, else the system's, else Playwright's own."""
    configured = os.environ.get("SKILLREEL_CHROMIUM")
    if configured:
        path = Path(configured)
        if _is_executable(path):
            return path
        raise ReplayUIError(
            SETUP, "SKILLREEL_CHROMIUM does not name an executable file; point it at Chromium or unset it"
        )
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return Path(found)
    bundled = _playwright_chromium()
    if bundled is not None:
        return bundled
    raise ReplayUIError(SETUP, f"Chromium was not found; {SETUP_FIX}")


def _playwright_chromium() -> Path | None:
    root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(Path.home() / ".cache" / "ms-playwright")
    candidates = sorted(Path(root).glob("chromium-*/chrome-linux*/chrome"), reverse=True)
    candidates += sorted(
        Path(root).glob("chromium-*/chrome-mac*/Chromium.app/Contents/MacOS/Chromium"), reverse=True
    )
    return next((p for p in candidates if _is_executable(p)), None)


def _is_executable(path: Path) -> bool:
    # os.access alone says yes to root for any file with an x bit anywhere; require one for us too.
    try:
        info = path.stat()
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and bool(info.st_mode & 0o111) and os.access(path, os.X_OK)


def launch_args(proxy_url: str) -> list[str]:
    """Chromium's command-line switches for a session whose enforcing proxy is ``proxy_url``."""
    args = [
        *BASE_ARGS,
        f"--proxy-server={proxy_url}",
        "--proxy-bypass-list=<-loopback>",
        *_SERVICE_SWITCHES,
        # Chromium never needs DNS: every host is resolved by the proxy (allowlisted ones only).
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")
    return args


@dataclass(eq=False)
class BrowserSession:
    """One Chromium, one context and its first page, for one environment."""

    environment: Environment
    browser: Browser
    context: BrowserContext
    page: Page
    ledger: NetworkLedger
    proxy: EnforcingProxy
    _crashed: list[str] = field(default_factory=list)

    @property
    def crashed(self) -> bool:
        """True once the browser disconnected or a page's renderer crashed."""
        return bool(self._crashed) or not self.browser.is_connected()

    async def goto_start(self, *, timeout_ms: int = 30_000) -> None:
        """Load ``environment.start_url`` in :attr:`page` (the fixture is served by routing).

        Raises ``SR_REPLAY_UI_TIMEOUT``, ``SR_REPLAY_UI_BROWSER_CRASHED`` or
        ``SR_REPLAY_UI_NAVIGATION_FAILED`` (the page did not load: refused, unreachable, aborted).
        """
        try:
            await self.page.goto(self.environment.start_url, wait_until="load", timeout=timeout_ms)
        except PlaywrightTimeoutError as exc:
            raise ReplayUIError("SR_REPLAY_UI_TIMEOUT", "the start page did not load in time") from exc
        except PlaywrightError as exc:
            if self.crashed:
                raise crashed_error() from exc
            raise ReplayUIError(
                "SR_REPLAY_UI_NAVIGATION_FAILED", f"the start page could not be loaded{net_error_code(exc)}"
            ) from exc


def net_error_code(exc: Exception) -> str:
    """Chromium's ``net::ERR_*`` code from a Playwright error, as `` (net::ERR_...)`` or "".

    Playwright's message also holds the URL, which must not reach an error; the code alone is
    content-free and says why (refused, aborted by routing, unreachable...).
    """
    found = _NET_ERROR.search(str(exc))
    return f" ({found.group(0)})" if found else ""


_NET_ERROR: Final = re.compile(r"net::ERR_[A-Z_]{1,64}")


def crashed_error() -> ReplayUIError:
    return ReplayUIError(CRASHED, "Chromium exited or a page crashed")


def _check_target(
    environment: Environment, html: str | None, storage_state: Path | SessionState | None
) -> str | None:
    if isinstance(environment.target, HtmlTarget):
        if html is None:
            raise TargetError("SR_RECORD_TARGET_INVALID", "an HTML fixture target needs its HTML")
        if storage_state is not None:
            raise TargetError("SR_RECORD_TARGET_INVALID", "an HTML fixture takes no storage state")
        if len(html) > MAX_HTML_CHARS:
            raise InputError("SR_RECORD_INPUT_TOO_LARGE", "the HTML fixture exceeds 1,000,000 characters")
        if fixture_digest(html) != environment.target.html_digest:
            raise TargetError("SR_RECORD_ENVIRONMENT_DRIFT", "the HTML fixture differs from the recorded one")
        return html
    if html is not None:
        raise TargetError("SR_RECORD_TARGET_INVALID", "a URL target takes no HTML fixture")
    return None


def _sign_in(storage_state: Path | SessionState | None) -> dict[str, Any] | None:
    """The storage state a session starts with: a vault session's body, or a file read once."""
    if isinstance(storage_state, SessionState):
        return storage_state.body
    return read_storage_state(storage_state) if storage_state is not None else None


def _require_display() -> None:
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        raise ReplayUIError(SETUP, "a headed window needs a display; set DISPLAY or run under xvfb-run")


async def _quietly(close: Callable[[], Awaitable[Any]]) -> None:
    """Run a close step, bounded in time; a failure to close a dead browser is not news."""
    try:
        await asyncio.wait_for(close(), CLOSE_TIMEOUT_S)
    except (PlaywrightError, OSError, TimeoutError) as exc:
        log.debug("ignored while closing: %s", type(exc).__name__)


async def _launch(
    pw: Playwright,
    executable: Path,
    headless: bool,
    proxy_url: str,
    *,
    slow_mo_ms: int = 0,
    traces_dir: Path | None = None,
) -> Browser:
    try:
        return await pw.chromium.launch(
            executable_path=str(executable),
            headless=headless,
            slow_mo=slow_mo_ms or None,
            traces_dir=traces_dir,
            args=launch_args(proxy_url),
            handle_sigint=False,
            handle_sigterm=False,
            handle_sighup=False,
        )
    except PlaywrightError as exc:
        raise ReplayUIError(SETUP, f"Chromium could not be started; {SETUP_FIX}") from exc


async def _new_context(
    browser: Browser,
    environment: Environment,
    state: dict[str, Any] | None,
    *,
    offline: bool,
    proxy: str | None = None,
) -> BrowserContext:
    viewport = environment.viewport
    try:
        return await browser.new_context(
            viewport={"width": viewport.width, "height": viewport.height},
            service_workers="block",
            accept_downloads=False,
            offline=offline,
            storage_state=cast(StorageState | None, state),
            # A per-context proxy also carries loopback (Playwright adds <-loopback> to its bypass).
            proxy=ProxySettings(server=proxy) if proxy is not None else None,
        )
    except PlaywrightError as exc:
        if state is not None and browser.is_connected():
            raise InputError(
                "SR_RECORD_INPUT_MALFORMED", "the storage state is not a Playwright storage state"
            ) from exc
        raise ReplayUIError(SETUP, f"Chromium could not open a browser context; {SETUP_FIX}") from exc


async def _install_routes(
    context: BrowserContext, ledger: NetworkLedger, environment: Environment, fixture: str | None
) -> None:
    allowed = () if fixture is not None else environment.allowed_origins

    async def on_request(route: Route) -> None:
        url = route.request.url
        try:
            if fixture is not None and url == FIXTURE_URL:
                await route.fulfill(status=200, content_type="text/html; charset=utf-8", body=fixture)
                return
            if fixture is not None and url == _FIXTURE_FAVICON:
                await route.fulfill(status=404, body="")
                return
            decision = decide(url, allowed)
            if decision.allowed:
                await route.continue_()
                return
            ledger.refuse(decision.origin)
            await route.abort("blockedbyclient")
        except PlaywrightError as exc:  # the context is closing or the page went away
            log.debug("route handler: %s", type(exc).__name__)

    async def on_web_socket(ws: WebSocketRoute) -> None:
        decision = decide(ws.url, allowed)
        if decision.allowed:
            ws.connect_to_server()
            return
        ledger.refuse(decision.origin)
        with contextlib.suppress(PlaywrightError):
            await ws.close(code=1008, reason="refused by skillreel")

    await context.route("**/*", on_request)
    await context.route_web_socket(lambda _url: True, on_web_socket)


@asynccontextmanager
async def browser_session(
    environment: Environment,
    *,
    html: str | None = None,
    storage_state: Path | SessionState | None = None,
    headless: bool = True,
    slow_mo_ms: int = 0,
    traces_dir: Path | None = None,
) -> AsyncIterator[BrowserSession]:
    """Launch Chromium for ``environment`` and yield a :class:`BrowserSession`.

    ``html`` is the fixture's HTML (required for, and only for, an HTML target; it must match the
    environment's digest). ``storage_state`` (URL targets only: a file, read once, or a vault
    session's body) starts the context signed in.
    ``headless=False`` opens a window (needs ``DISPLAY``, e.g. under ``xvfb-run``); ``slow_mo_ms``
    slows every browser operation down by that much (``replay --slow-mo``); ``traces_dir`` is where
    Playwright streams a trace (``sandbox.artifacts``: a private scratch directory). Everything is
    closed on exit, also after a crash; a Playwright error escaping the body after a crash becomes
    ``SR_REPLAY_UI_BROWSER_CRASHED``.
    """
    fixture = _check_target(environment, html, storage_state)
    state = _sign_in(storage_state)
    executable = find_chromium()
    if not headless:
        _require_display()
    ledger = NetworkLedger()
    async with AsyncExitStack() as stack:
        proxy = EnforcingProxy(() if fixture is not None else environment.allowed_origins, ledger.refuse)
        await proxy.start()
        stack.push_async_callback(proxy.close)
        pw = await _start_playwright()
        stack.push_async_callback(_quietly, pw.stop)
        browser = await _launch(
            pw, executable, headless, proxy.server_url, slow_mo_ms=slow_mo_ms, traces_dir=traces_dir
        )
        stack.push_async_callback(_quietly, browser.close)
        async with _session(browser, environment, fixture, state, ledger, proxy, None) as session:
            yield session


async def _start_playwright() -> Playwright:
    seal_environment()  # the driver and Chromium inherit no SKILLREEL_SECRET_* variable
    try:
        return await async_playwright().start()
    except PlaywrightError as exc:
        raise ReplayUIError(SETUP, f"the Playwright driver could not start; {SETUP_FIX}") from exc


@asynccontextmanager
async def _session(
    browser: Browser,
    environment: Environment,
    fixture: str | None,
    state: dict[str, Any] | None,
    ledger: NetworkLedger,
    proxy: EnforcingProxy,
    context_proxy: str | None,
) -> AsyncIterator[BrowserSession]:
    """A fresh context of ``browser`` with routing and its first page. ``context_proxy``: the
    context's own proxy (a warm browser's; the context is closed on exit, the browser stays);
    None: the browser's (the browser is closed on exit, and the context with it)."""
    context = await _new_context(
        browser, environment, state, offline=fixture is not None, proxy=context_proxy
    )
    crashes: list[str] = []

    def disconnected(_browser: Browser) -> None:
        crashes.append("browser")

    context.on("page", lambda p: p.on("crash", lambda _p: crashes.append("page")))
    browser.on("disconnected", disconnected)
    try:
        try:
            await _install_routes(context, ledger, environment, fixture)
            page = await context.new_page()
        except PlaywrightError as exc:
            if not browser.is_connected():
                raise crashed_error() from exc
            raise ReplayUIError(SETUP, f"Chromium could not open a page; {SETUP_FIX}") from exc
        session = BrowserSession(environment, browser, context, page, ledger, proxy, crashes)
        try:
            yield session
        except PlaywrightError as exc:
            if session.crashed:
                raise crashed_error() from exc
            raise
    finally:
        browser.remove_listener("disconnected", disconnected)
        if context_proxy is not None:
            await _quietly(context.close)


class WarmBrowser:
    """One Chromium kept between sessions (the MCP server's): each :meth:`session` gets a fresh
    isolated context (no cookie, storage, cache or service worker of another session) behind its
    own fresh enforcing proxy, and shares only the browser process. Closed after ``idle_s`` seconds
    without a session, and relaunched by the next one; a crashed browser is relaunched too.

    The browser itself is launched through a proxy that refuses everything (its own traffic, and
    anything outside a context), so what no session's proxy allows never leaves either. Headed
    sessions (a ``human`` step) are not kept: they get a browser of their own
    (:func:`browser_session`). ``session`` has :func:`browser_session`'s signature.
    """

    def __init__(self, *, idle_s: float = 300.0) -> None:
        self.idle_s = idle_s
        self.launches = 0  # how many times Chromium was started (for tests and benchmarks)
        self._lock = asyncio.Lock()
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._guard_proxy: EnforcingProxy | None = None
        self._active = 0
        self._idle: asyncio.TimerHandle | None = None
        self._closing: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    @asynccontextmanager
    async def session(
        self,
        environment: Environment,
        *,
        html: str | None = None,
        storage_state: Path | SessionState | None = None,
        headless: bool = True,
    ) -> AsyncIterator[BrowserSession]:
        if not headless:
            async with browser_session(
                environment, html=html, storage_state=storage_state, headless=False
            ) as cold:
                yield cold
            return
        fixture = _check_target(environment, html, storage_state)
        state = _sign_in(storage_state)
        self._active += 1
        self._cancel_idle()
        try:
            ledger = NetworkLedger()
            proxy = EnforcingProxy(() if fixture is not None else environment.allowed_origins, ledger.refuse)
            await proxy.start()
            try:
                browser = await self._browser_up()
                async with _session(
                    browser, environment, fixture, state, ledger, proxy, proxy.server_url
                ) as session:
                    yield session
            finally:
                await proxy.close()
        finally:
            self._active -= 1
            self._schedule_idle()

    async def _browser_up(self) -> Browser:
        async with self._lock:
            if self._closing is not None:
                await self._closing
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            await self._shutdown()
            executable = find_chromium()
            guard = EnforcingProxy((), lambda _origin: None)
            await guard.start()
            self._guard_proxy = guard
            self._pw = await _start_playwright()
            self._browser = await _launch(self._pw, executable, True, guard.server_url)
            self.launches += 1
            return self._browser

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
        browser, pw, guard = self._browser, self._pw, self._guard_proxy
        self._browser = self._pw = self._guard_proxy = None
        if browser is not None:
            await _quietly(browser.close)
        if pw is not None:
            await _quietly(pw.stop)
        if guard is not None:
            await guard.close()
