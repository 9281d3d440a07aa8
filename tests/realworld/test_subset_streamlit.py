"""The component-library part of the ``make test`` subset: the Streamlit order desk (React and
BaseWeb widgets drawn over a WebSocket) at both versions, on real servers and real Chromium.

One task, ``ship-order``: a customer typed into the filter, then that customer's row's "Mark
shipped", one of alike per-row buttons on a page Streamlit redraws after every widget event. Only
skillreel runs here: the codegen-style baseline races the redraw on this page (it can ship the
unfiltered list's first order: see docs/realworld.md), which ``make realworld`` reports and a test
must not depend on. Also checked: the served app asks for nothing beyond 127.0.0.1, the claim
``apps/streamlit/serve.py`` makes.

The venvs are built from PyPI into the corpus cache (``make test`` builds them before pytest runs:
``python -m bench.realworld --install-only --app streamlit``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.realworld.corpus import APPS
from bench.realworld.dbcheck import WRONG
from bench.realworld.envs import AppServer, Installed, free_port
from bench.realworld.run import Result, Selection
from playwright.sync_api import Page, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from skillreel.sandbox.chromium import find_chromium
from tests.realworld import subset

pytestmark = [pytest.mark.realworld, pytest.mark.browser, pytest.mark.slow]

APP = next(a for a in APPS if a.name == "streamlit")
TASK = "ship-order"
LOCAL = ("http://127.0.0.1:", "ws://127.0.0.1:", "data:", "blob:")

installed, results = subset.fixtures(APP, Selection(apps=(APP.name,), tasks=(TASK,), tools=("skillreel",)))


def test_the_task_was_recorded_and_replayed_on_every_version(results: list[Result]) -> None:
    assert sorted(r.version for r in results) == sorted(v.label for v in APP.versions)
    assert not [r for r in results if r.detail.startswith("not recorded")], results


def test_no_replay_ships_another_order(results: list[Result]) -> None:
    wrong = [r for r in results if r.verdict == WRONG]
    assert not wrong, wrong


@pytest.mark.parametrize("index", [0, -1], ids=["oldest", "newest"])
def test_nothing_leaves_127_0_0_1(installed: list[Installed], tmp_path: Path, index: int) -> None:
    """The page, its fonts and icon font, the WebSocket, an unfolded expander and an opened picker:
    every request stays local."""
    elsewhere: list[str] = []
    with AppServer(installed[index], free_port(), tmp_path / "server") as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(find_chromium(headless=True)), headless=True)
        try:
            page = browser.new_page()
            page.on("request", lambda r: None if r.url.startswith(LOCAL) else elsewhere.append(r.url))
            page.goto(server.origin + "/")
            page.get_by_text("Order 1008").wait_for(timeout=30_000)
            page.locator("summary:has-text('New order')").click()
            _open_picker(page)
            page.wait_for_timeout(1_000)
        finally:
            browser.close()
    assert elsewhere == []


def _open_picker(page: Page) -> None:
    """Open the form's priority picker: a click that lands while the expander still unfolds (a busy
    machine) may open nothing, so it is made again, at most three times (what is checked is where
    the page's requests go, not how fast it opens)."""
    picker = page.locator("[data-testid=stForm] input[role=combobox]")
    option = page.get_by_role("option", name="Urgent", exact=True)
    for attempt in range(3):
        picker.click()
        try:
            option.wait_for(timeout=10_000)
            return
        except PlaywrightTimeoutError:
            if attempt == 2:
                raise
            page.keyboard.press("Escape")
