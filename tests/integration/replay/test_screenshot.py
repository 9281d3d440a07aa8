"""An observe step's screenshot digest is the same for the same page: the caret of a focused field
blinks, so the driver hides every text caret while it captures (``replay/driver.py`` screenshot,
``locate/resolve.js`` caret), also under a Content-Security-Policy that refuses inline styles, and
leaves nothing of its own on the page."""

from __future__ import annotations

import asyncio
import base64

import pytest

from skillreel.replay.driver import PlaywrightDriver
from skillreel.replay.evidence import screenshot_digest
from skillreel.sandbox.cold import browser_session
from tests.support.factory import url_environment
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><head><title>Search</title></head><body>
<label for="q">Search</label><input id="q" value="invoices" style="font-size: 40px; width: 30em">
</body></html>"""
SPACING_S = 0.2  # between captures: a caret blinks every 500 ms, so six captures span both phases
CAPTURES = 6


async def test_a_blinking_caret_never_changes_the_screenshot_digest(server: LocalServer) -> None:
    server.set_route(
        "/p",
        body=PAGE.encode(),
        headers={"Content-Type": "text/html", "Content-Security-Policy": "style-src 'none'"},
    )
    async with browser_session(url_environment(server.url("/p"))) as session:
        await session.goto_start()
        page = session.page
        await page.focus("#q")
        cdp = await page.context.new_cdp_session(page)
        raw: set[str] = set()
        for _ in range(CAPTURES):  # the page as it is: the caret blinks
            shot = await cdp.send("Page.captureScreenshot", {"format": "png"})
            raw.add(screenshot_digest(base64.b64decode(shot["data"])))
            await asyncio.sleep(SPACING_S)
        driver = PlaywrightDriver(session)
        taken: set[str] = set()
        for _ in range(CAPTURES):
            taken.add(screenshot_digest(await driver.screenshot(timeout_ms=10_000)))
            await asyncio.sleep(SPACING_S)
        assert len(raw) > 1, "the caret did not blink: this page proves nothing"
        assert len(taken) == 1
        assert await page.evaluate("document.adoptedStyleSheets.length") == 0
        assert await page.evaluate("document.activeElement.id") == "q"
