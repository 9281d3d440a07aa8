"""Playwright started ahead (``sandbox.playwright_start``): ``PlaywrightStart`` taken over by a
session or stopped unused, and ``EarlyPlaywright``, its process spawned before Playwright's API is
imported, adopted or ended; nothing is left running."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillreel.errors import ReplayUIError
from skillreel.sandbox.cold import browser_session
from skillreel.sandbox.playwright_start import EarlyPlaywright, PlaywrightStart
from tests.integration.sandbox.processes import chromium_tree, proc_table, wait_until_gone
from tests.support.factory import url_environment
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser


async def test_a_session_on_playwright_started_ahead_leaves_nothing_once_playwright_is_closed(
    server: LocalServer,
) -> None:
    """The session hands Chromium and Playwright back to close in the background (the CLI makes the
    run's final write meanwhile); closing Playwright waits for both."""
    server.set_page("/app", "<p>app</p>")
    playwright = await PlaywrightStart.begin()
    try:
        async with browser_session(url_environment(server.url("/app")), playwright=playwright) as session:
            await session.goto_start()
            pids = chromium_tree(session)
            assert pids
    finally:
        await playwright.close()
    assert not session.browser.is_connected()
    assert await wait_until_gone(pids) == set()


async def test_playwright_started_ahead_and_never_taken_is_stopped() -> None:
    """A refused replay: Playwright booting ahead is stopped unused (its start cancelled, nothing
    raised), and no session can take it afterwards."""
    unused = await PlaywrightStart.begin()
    await unused.close()
    with pytest.raises(ReplayUIError):
        await unused.take()


def _early_pid(early: EarlyPlaywright) -> int:
    process = early._process
    assert process is not None
    return process.pid


async def test_playwright_spawned_early_is_adopted_and_leaves_nothing(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`skillreel replay` spawns Playwright's process before Playwright's API is imported; the
    session runs on that very process (no second one), which inherits no vault variable, and
    closing Playwright ends it and Chromium."""
    monkeypatch.setenv("SKILLREEL_SECRET_EARLY_PASSWORD", "EarlyCanary71")
    server.set_page("/app", "<p>app</p>")
    early = EarlyPlaywright.spawn()
    assert early is not None
    pid = _early_pid(early)
    assert b"EarlyCanary71" not in Path(f"/proc/{pid}/environ").read_bytes()
    assert "SKILLREEL_SECRET_EARLY_PASSWORD" not in os.environ
    playwright = await PlaywrightStart.begin(early)
    try:
        async with browser_session(url_environment(server.url("/app")), playwright=playwright) as session:
            await session.goto_start()
            assert await session.page.text_content("p") == "app"
            pids = chromium_tree(session)
            table = proc_table()
            # Chromium is a child of the early process: the session did not start another Playwright
            assert any(table[p][0] == pid for p in pids if p in table)
    finally:
        await playwright.close()
    early.discard()  # adopted: nothing left to stop
    assert await wait_until_gone(pids | {pid}) == set()


async def test_playwright_spawned_early_and_never_taken_is_stopped() -> None:
    """A refused replay: the early process's adoption is cancelled and its process ended."""
    early = EarlyPlaywright.spawn()
    assert early is not None
    pid = _early_pid(early)
    unused = await PlaywrightStart.begin(early)
    await unused.close()
    assert await wait_until_gone({pid}) == set()
    with pytest.raises(ReplayUIError):
        await unused.take()


def test_playwright_spawned_early_and_discarded_is_stopped() -> None:
    """The run ended before any start took the process (the CLI discards it after its loop)."""
    early = EarlyPlaywright.spawn()
    assert early is not None
    process = early._process
    assert process is not None
    early.discard()
    assert process.returncode is not None
    assert process.stdin is not None
    assert process.stdin.closed
    early.discard()  # twice is harmless


async def test_playwright_spawned_early_falls_back_to_the_usual_start_on_another_playwright(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When Playwright's client is not built the way the adoption expects, the early process is
    ended and the usual start runs: the head start is lost, never the run."""
    from playwright._impl import transport

    early = EarlyPlaywright.spawn()
    assert early is not None
    process = early._process
    assert process is not None
    # the client's module no longer takes its transport from where the adoption replaces it
    monkeypatch.setattr(transport, "PipeTransport", type("Other", (transport.PipeTransport,), {}))
    playwright = await PlaywrightStart.begin(early)
    server.set_page("/app", "<p>app</p>")
    try:
        async with browser_session(url_environment(server.url("/app")), playwright=playwright) as session:
            await session.goto_start()
            assert await session.page.text_content("p") == "app"
            assert process.returncode is not None  # the early process was ended, unused
    finally:
        await playwright.close()


def test_playwright_that_cannot_be_spawned_early_means_the_usual_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PLAYWRIGHT_NODEJS_PATH", "/nonexistent/node")
    assert EarlyPlaywright.spawn() is None
