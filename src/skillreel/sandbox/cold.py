"""The cold session: one Chromium launched for one session and closed with it (``skillreel replay``,
a recording, a headed window of a warm browser's session).

Chromium is launched through the session's own enforcing proxy (``sandbox.context``), with
Playwright either started here or taken over from a start made ahead
(:class:`~skillreel.sandbox.playwright_start.PlaywrightStart`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

from skillreel.model.environment import Environment
from skillreel.model.login import LoginState

from .chromium import find_chromium, launch_chromium, require_display
from .context import BrowserSession, checked_fixture, open_session, session_proxy, starting_state
from .ledger import NetworkLedger
from .playwright_start import PlaywrightStart, quietly, start_playwright


@asynccontextmanager
async def browser_session(
    environment: Environment,
    *,
    html: str | None = None,
    storage_state: Path | LoginState | None = None,
    headless: bool = True,
    slow_mo_ms: int = 0,
    traces_dir: Path | None = None,
    playwright: PlaywrightStart | None = None,
    downloads: bool = False,
) -> AsyncIterator[BrowserSession]:
    """Launch Chromium for ``environment`` and yield a :class:`BrowserSession`.

    ``html`` is the fixture's HTML (required for, and only for, an HTML target; it must match the
    environment's digest). ``storage_state`` (URL targets only: a file, read once, or a vault
    session's body) starts the context signed in.
    ``headless=False`` opens a window (needs ``DISPLAY``, e.g. under ``xvfb-run``); ``slow_mo_ms``
    slows every browser operation down by that much (``replay --slow-mo``); ``traces_dir`` is where
    Playwright streams a trace (``sandbox.artifacts``: a private scratch directory). Everything is
    closed on exit, also after a crash; a Playwright error escaping the body after a crash becomes
    ``SR_REPLAY_UI_BROWSER_CRASHED``. ``playwright``: Playwright started ahead
    (:class:`PlaywrightStart`); this session takes it over, and on exit starts closing Chromium and
    Playwright without waiting (the proxy is closed, no page is left to act): ``playwright.close()``
    awaits that, so the caller's last work (the run's final write) overlaps Chromium's shutdown.
    ``downloads``: the context accepts downloads (a skill with download steps); otherwise Chromium
    refuses every download.
    """
    fixture = checked_fixture(environment, html, storage_state)
    state = starting_state(storage_state)
    executable = find_chromium(headless=headless)
    if not headless:
        require_display()
    ledger = NetworkLedger()
    async with AsyncExitStack() as stack:
        proxy = session_proxy(environment, fixture, ledger)
        await proxy.start()
        if playwright is None:
            stack.push_async_callback(proxy.close)
        pw = await (playwright.take() if playwright is not None else start_playwright())
        if playwright is not None:  # closed by its owner, after the work that needs no browser
            stack.push_async_callback(playwright.hand_back, pw, proxy.close)
        else:
            stack.push_async_callback(quietly, pw.stop)
        browser = await launch_chromium(
            pw, executable, headless, proxy.server_url, slow_mo_ms=slow_mo_ms, traces_dir=traces_dir
        )
        if playwright is not None:
            playwright.owns(browser)
        else:
            stack.push_async_callback(quietly, browser.close)
        async with open_session(
            browser, environment, fixture, state, ledger, proxy, None, downloads=downloads
        ) as session:
            yield session
