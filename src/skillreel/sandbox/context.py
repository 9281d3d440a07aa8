"""What one session of either kind (cold: ``sandbox.cold``; warm: ``sandbox.warm``) is built from: a
fresh browser context for one target, its routing, its enforcing proxy and its network ledger, and
the :class:`BrowserSession` that holds them (ARCHITECTURE section 7).

A session has two enforcement layers, both reporting refusals to one
:class:`~skillreel.sandbox.ledger.NetworkLedger`:

1. **Routing** in the context (``sandbox.routing``): the HTML fixture document served, only
   allowlisted origins admitted, page sockets alike.
2. **The enforcing proxy** (:mod:`skillreel.sandbox.proxy`) the context's traffic goes through
   (the browser's, for a cold session; the context's own, for a warm one), with loopback proxied
   too and host resolution mapped away, so redirects, workers and anything the routing layer never
   sees still cannot reach an origin off the allowlist. An HTML fixture session's proxy has an
   empty allowlist and its context is emulated offline: nothing leaves the machine (routing still
   fulfils the fixture document).

Playwright errors of a session are translated here, once: a context or page that cannot open to
``SR_REPLAY_UI_CHROMIUM_SETUP``, a browser or renderer crash to ``SR_REPLAY_UI_BROWSER_CRASHED``.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, cast

from playwright.async_api import (
    Browser,
    BrowserContext,
    Page,
    ProxySettings,
    Response,
    StorageState,
)
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from skillreel.errors import InputError, ReplayUIError, TargetError
from skillreel.model.environment import Environment, HtmlTarget, Viewport
from skillreel.model.limits import MAX_HTML_CHARS
from skillreel.model.login import LoginState

from .files import fixture_digest, read_storage_state
from .ledger import NetworkLedger
from .playwright_start import SETUP, SETUP_FIX, quietly
from .proxy import UNREACHABLE_HEADER, EnforcingProxy
from .routing import install_routes

CRASHED: Final = "SR_REPLAY_UI_BROWSER_CRASHED"
# How long a context and its first page may take to open. Playwright 1.65 never answers a new page
# of a browser that is killed while the page opens: without a bound, a warm browser killed then
# held every later MCP play forever (the spare opened ahead was awaited).
OPEN_S: Final = 10.0


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


def checked_fixture(
    environment: Environment, html: str | None, storage_state: Path | LoginState | None
) -> str | None:
    """The HTML fixture a session serves (None for a URL target), once ``html`` and
    ``storage_state`` are shown to fit ``environment``'s target (an HTML fixture: its HTML, matching
    the recorded digest, and no storage state; a URL target: no HTML)."""
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


def starting_state(storage_state: Path | LoginState | None) -> dict[str, Any] | None:
    """The storage state a session starts with: a vault login's body, or a file read once."""
    if isinstance(storage_state, LoginState):
        return storage_state.body
    return read_storage_state(storage_state) if storage_state is not None else None


async def new_context(
    browser: Browser,
    viewport: Viewport,
    state: dict[str, Any] | None,
    *,
    offline: bool,
    proxy: str | None = None,
    downloads: bool = False,
) -> BrowserContext:
    """A fresh context of ``browser`` (service workers blocked; downloads refused unless
    ``downloads``: a skill with download steps); ``proxy``: its own enforcing proxy (a warm
    browser's), else the browser's."""
    try:
        return await browser.new_context(
            viewport={"width": viewport.width, "height": viewport.height},
            service_workers="block",
            accept_downloads=downloads,
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


def session_proxy(environment: Environment, fixture: str | None, ledger: NetworkLedger) -> EnforcingProxy:
    """A session's enforcing proxy, not yet started: the environment's allowlist, or nothing at all
    for an HTML fixture; its refusals counted in ``ledger``."""
    return EnforcingProxy(() if fixture is not None else environment.allowed_origins, ledger.refuse)


def not_opened(browser: Browser) -> ReplayUIError:
    """A context or page that did not open within OPEN_S: the browser died, or it is stuck."""
    if not browser.is_connected():
        return crashed_error()
    return ReplayUIError(SETUP, f"Chromium did not open a page in time; {SETUP_FIX}")


@asynccontextmanager
async def open_session(
    browser: Browser,
    environment: Environment,
    fixture: str | None,
    state: dict[str, Any] | None,
    ledger: NetworkLedger,
    proxy: EnforcingProxy,
    context_proxy: str | None,
    ahead: tuple[BrowserContext, Page] | None = None,
    *,
    downloads: bool = False,
) -> AsyncIterator[BrowserSession]:
    """A fresh context of ``browser`` with routing and its first page. ``context_proxy``: the
    context's own proxy (a warm browser's; the context is closed on exit, the browser stays);
    None: the browser's (the browser is closed on exit, and the context with it). ``ahead``: the
    context and page a warm browser opened ahead for this session (its spare, never used before).
    ``downloads``: the context accepts downloads (a fresh context only; a spare accepts none)."""
    if ahead is not None:
        context = ahead[0]
    else:
        try:
            context = await asyncio.wait_for(
                new_context(
                    browser,
                    environment.viewport,
                    state,
                    offline=fixture is not None,
                    proxy=context_proxy,
                    downloads=downloads,
                ),
                OPEN_S,
            )
        except TimeoutError as exc:
            raise not_opened(browser) from exc
    crashes: list[str] = []

    def disconnected(_browser: Browser) -> None:
        crashes.append("browser")

    def watch(page: Page) -> None:
        page.on("crash", lambda _p: crashes.append("page"))

    context.on("page", watch)
    if ahead is not None:
        watch(ahead[1])
    browser.on("disconnected", disconnected)
    try:
        try:
            await install_routes(context, ledger, environment, fixture)
            page = ahead[1] if ahead is not None else await asyncio.wait_for(context.new_page(), OPEN_S)
        except TimeoutError as exc:
            raise not_opened(browser) from exc
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
