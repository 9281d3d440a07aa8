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

Before the Playwright driver starts (``sandbox.driver_start``), ``vault.seal_environment`` moves every
``SKILLREEL_SECRET_*`` variable out of the process environment, so neither the driver nor Chromium
inherits one.

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
from collections.abc import AsyncIterator
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
    Response,
    Route,
    StorageState,
    WebSocketRoute,
)
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from skillreel.errors import InputError, ReplayUIError, SkillreelError, TargetError
from skillreel.model.environment import FIXTURE_ORIGIN, FIXTURE_URL, Environment, HtmlTarget, Viewport
from skillreel.model.limits import MAX_HTML_CHARS
from skillreel.model.session import SessionState

from .allowlist import SINKHOLE_SUFFIX, decide, routed_pattern
from .driver_start import (
    SETUP,
    SETUP_FIX,
    DriverStart,
    quietly,
    start_playwright,
)
from .files import fixture_digest, read_storage_state
from .ledger import NetworkLedger
from .proxy import UNREACHABLE_HEADER, EnforcingProxy

log = logging.getLogger(__name__)

CRASHED: Final = "SR_REPLAY_UI_BROWSER_CRASHED"
# How long a context and its first page may take to open. Playwright 1.65 never answers a new page
# of a browser that is killed while the page opens: without a bound, a warm browser killed then
# held every later MCP play forever (the spare opened ahead was awaited).
OPEN_S: Final = 10.0
CHROMIUM_NAMES: Final = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Chromium's headless build (Debian's chromium-headless-shell; what Playwright itself runs
# headless): the same engine without the browser's UI, about a CPU-second cheaper a launch and
# half a CPU-second a context (bench/RESULTS.md note 10). Debian's binary first: the package's
# /usr/bin wrapper runs it as a child instead of exec'ing it, so a signal meant for the browser
# (a forced close, a crash test) would reach the wrapper.
HEADLESS_SHELL_PATHS: tuple[Path, ...] = (Path("/usr/lib/chromium/chromium-headless-shell"),)
HEADLESS_SHELL_NAMES: Final = ("chromium-headless-shell",)
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
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
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


# Chromium takes the *last* ``--disable-features`` switch and ignores the others, and Playwright
# passes one of its own before ours: the one this module passes must carry Playwright's list too.
# PLAYWRIGHT_DISABLED_FEATURES is Playwright 1.65's (chromiumSwitches.ts); tests/unit/
# test_sandbox_launch.py fails when the installed driver disables a feature missing here.
PLAYWRIGHT_DISABLED_FEATURES: Final = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
# The full browser's address bar preloads its suggestion popup as a WebUI page, in a renderer of
# its own, for every window (one per context): ~1 CPU-second per launch and ~0.7 per context,
# for a popup no headless session ever opens (measured, bench/RESULTS.md note 9). A headed
# window keeps Chromium's defaults (``launch_args``).
SKILLREEL_DISABLED_FEATURES: Final = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")
DISABLE_FEATURES: Final = "--disable-features=" + ",".join(
    (*PLAYWRIGHT_DISABLED_FEATURES, *SKILLREEL_DISABLED_FEATURES)
)


def find_chromium(*, headless: bool = False) -> Path:
    """The Chromium to launch: ``SKILLREEL_CHROMIUM``, else the system's (for a ``headless``
    launch its headless shell when installed), else Playwright's own."""
    configured = os.environ.get("SKILLREEL_CHROMIUM")
    if configured:
        path = Path(configured)
        if _is_executable(path):
            return path
        raise ReplayUIError(
            SETUP, "SKILLREEL_CHROMIUM does not name an executable file; point it at Chromium or unset it"
        )
    if headless:
        shell = next((p for p in HEADLESS_SHELL_PATHS if _is_executable(p)), None)
        if shell is not None:
            return shell
    for name in (*(HEADLESS_SHELL_NAMES if headless else ()), *CHROMIUM_NAMES):
        found = shutil.which(name)
        if found:
            return Path(found)
    bundled = _playwright_chromium(headless=headless)
    if bundled is not None:
        return bundled
    raise ReplayUIError(SETUP, f"Chromium was not found; {SETUP_FIX}")


def _playwright_chromium(*, headless: bool) -> Path | None:
    root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(Path.home() / ".cache" / "ms-playwright")
    candidates = (
        sorted(
            Path(root).glob("chromium_headless_shell-*/chrome-headless-shell-*/chrome-headless-shell"),
            reverse=True,
        )
        if headless
        else []
    )
    candidates += sorted(Path(root).glob("chromium-*/chrome-linux*/chrome"), reverse=True)
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


def launch_args(proxy_url: str, *, headless: bool = True) -> list[str]:
    """Chromium's command-line switches for a session whose enforcing proxy is ``proxy_url``.

    A headed window (a recording, ``replay --headed``) keeps the address bar as Chromium ships it:
    a person may type into it, and one launch is not worth a popup that behaves differently.
    """
    args = [
        *BASE_ARGS,
        *((DISABLE_FEATURES,) if headless else ()),
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
            response = await self.page.goto(self.environment.start_url, wait_until="load", timeout=timeout_ms)
        except PlaywrightTimeoutError as exc:
            raise ReplayUIError("SR_REPLAY_UI_TIMEOUT", "the start page did not load in time") from exc
        except PlaywrightError as exc:
            if self.crashed:
                raise crashed_error() from exc
            raise ReplayUIError(
                "SR_REPLAY_UI_NAVIGATION_FAILED", f"the start page could not be loaded{net_error_code(exc)}"
            ) from exc
        if response is not None and response.status == 502 and await _unreachable(response):
            raise ReplayUIError(
                "SR_REPLAY_UI_NAVIGATION_FAILED",
                "the start page could not be loaded (its server cannot be reached)",
            )


async def _unreachable(response: Response) -> bool:
    """The enforcing proxy's own answer: the start page's server could not be reached."""
    try:
        return await response.header_value(UNREACHABLE_HEADER) == "unreachable"
    except PlaywrightError:
        return False


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


def _checked_fixture(
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
            args=launch_args(proxy_url, headless=headless),
            handle_sigint=False,
            handle_sigterm=False,
            handle_sighup=False,
        )
    except PlaywrightError as exc:
        raise ReplayUIError(SETUP, f"Chromium could not be started; {SETUP_FIX}") from exc


async def _new_context(
    browser: Browser,
    viewport: Viewport,
    state: dict[str, Any] | None,
    *,
    offline: bool,
    proxy: str | None = None,
) -> BrowserContext:
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

    # Requests that begin with exactly an allowlisted origin are continued by Playwright's driver
    # without a round trip to this handler (routed_pattern: decide would allow each of them; the
    # proxy still judges every request); every other request meets decide here.
    routed = None if fixture is not None else routed_pattern(allowed)
    await context.route(re.compile(routed) if routed is not None else "**/*", on_request)
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
    driver: DriverStart | None = None,
) -> AsyncIterator[BrowserSession]:
    """Launch Chromium for ``environment`` and yield a :class:`BrowserSession`.

    ``html`` is the fixture's HTML (required for, and only for, an HTML target; it must match the
    environment's digest). ``storage_state`` (URL targets only: a file, read once, or a vault
    session's body) starts the context signed in.
    ``headless=False`` opens a window (needs ``DISPLAY``, e.g. under ``xvfb-run``); ``slow_mo_ms``
    slows every browser operation down by that much (``replay --slow-mo``); ``traces_dir`` is where
    Playwright streams a trace (``sandbox.artifacts``: a private scratch directory). Everything is
    closed on exit, also after a crash; a Playwright error escaping the body after a crash becomes
    ``SR_REPLAY_UI_BROWSER_CRASHED``. ``driver``: a Playwright driver started ahead
    (:class:`DriverStart`); this session takes it over, and on exit starts closing Chromium and the
    driver without waiting (the proxy is closed, no page is left to act): ``driver.close()`` awaits
    that, so the caller's last work (the run's final write) overlaps Chromium's shutdown.
    """
    fixture = _checked_fixture(environment, html, storage_state)
    state = _sign_in(storage_state)
    executable = find_chromium(headless=headless)
    if not headless:
        _require_display()
    ledger = NetworkLedger()
    async with AsyncExitStack() as stack:
        proxy = EnforcingProxy(() if fixture is not None else environment.allowed_origins, ledger.refuse)
        await proxy.start()
        if driver is None:
            stack.push_async_callback(proxy.close)
        pw = await (driver.take() if driver is not None else start_playwright())
        if driver is not None:  # closed by the driver's owner, after the work that needs no browser
            stack.push_async_callback(driver.hand_back, pw, proxy.close)
        else:
            stack.push_async_callback(quietly, pw.stop)
        browser = await _launch(
            pw, executable, headless, proxy.server_url, slow_mo_ms=slow_mo_ms, traces_dir=traces_dir
        )
        if driver is not None:
            driver.owns(browser)
        else:
            stack.push_async_callback(quietly, browser.close)
        async with _session(browser, environment, fixture, state, ledger, proxy, None) as session:
            yield session


def _not_opened(browser: Browser) -> ReplayUIError:
    """A context or page that did not open within OPEN_S: the browser died, or it is stuck."""
    if not browser.is_connected():
        return crashed_error()
    return ReplayUIError(SETUP, f"Chromium did not open a page in time; {SETUP_FIX}")


@asynccontextmanager
async def _session(
    browser: Browser,
    environment: Environment,
    fixture: str | None,
    state: dict[str, Any] | None,
    ledger: NetworkLedger,
    proxy: EnforcingProxy,
    context_proxy: str | None,
    spare: _Spare | None = None,
) -> AsyncIterator[BrowserSession]:
    """A fresh context of ``browser`` with routing and its first page. ``context_proxy``: the
    context's own proxy (a warm browser's; the context is closed on exit, the browser stays);
    None: the browser's (the browser is closed on exit, and the context with it). ``spare``: the
    context and page a warm browser opened ahead for this session (never used before)."""
    if spare is not None:
        context = spare.context
    else:
        try:
            context = await asyncio.wait_for(
                _new_context(
                    browser, environment.viewport, state, offline=fixture is not None, proxy=context_proxy
                ),
                OPEN_S,
            )
        except TimeoutError as exc:
            raise _not_opened(browser) from exc
    crashes: list[str] = []

    def disconnected(_browser: Browser) -> None:
        crashes.append("browser")

    def watch(page: Page) -> None:
        page.on("crash", lambda _p: crashes.append("page"))

    context.on("page", watch)
    if spare is not None:
        watch(spare.page)
    browser.on("disconnected", disconnected)
    try:
        try:
            await _install_routes(context, ledger, environment, fixture)
            page = spare.page if spare is not None else await asyncio.wait_for(context.new_page(), OPEN_S)
        except TimeoutError as exc:
            raise _not_opened(browser) from exc
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
            await quietly(context.close)


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
        storage_state: Path | SessionState | None = None,
        headless: bool = True,
    ) -> AsyncIterator[BrowserSession]:
        if not headless:
            async with browser_session(
                environment, html=html, storage_state=storage_state, headless=False
            ) as cold:
                yield cold
            return
        fixture = _checked_fixture(environment, html, storage_state)
        state = _sign_in(storage_state)
        self._active += 1
        self._cancel_idle()
        try:
            ledger = NetworkLedger()
            spare = (
                await self._take_spare(environment.viewport) if fixture is None and state is None else None
            )
            if spare is not None:
                proxy = spare.proxy
                spare.hand_over(environment.allowed_origins, ledger)
            else:
                proxy = EnforcingProxy(
                    () if fixture is not None else environment.allowed_origins, ledger.refuse
                )
                await proxy.start()
            try:
                browser = spare.browser if spare is not None else await self._browser_up()
                async with _session(
                    browser, environment, fixture, state, ledger, proxy, proxy.server_url, spare
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
            self._browser = await _launch(self._pw, executable, True, guard.server_url)
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
                _new_context(browser, viewport, None, offline=False, proxy=proxy.server_url), OPEN_S
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
