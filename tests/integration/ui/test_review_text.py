"""What the review page writes, read in real Chromium (issue 31.7): no Python ``None`` where a value
is missing (an HTML fixture's environment has no origin), no literal backticks in refusals and
error pages (the quoted parts are code), and a validated skill's version in the list."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Browser, Page, async_playwright

from skillreel.sandbox.chromium import find_chromium
from skillreel.store import Store
from tests.support.factory import record_run, seed
from tests.support.review_page import review_server

pytestmark = pytest.mark.browser


@pytest.fixture
def review_url(skillreel_home: Path) -> Iterator[str]:
    with Store.open() as store:
        seed(store, "a-draft")
        seed(store, "a-validated", "validated")
        record_run(store, "a-validated")
    with review_server() as url:
        yield url


@pytest.fixture
async def page(review_url: str) -> AsyncIterator[Page]:
    async with async_playwright() as pw:
        browser: Browser = await pw.chromium.launch(executable_path=str(find_chromium()))
        try:
            opened = await (await browser.new_context()).new_page()
            response = await opened.goto(review_url)
            assert response is not None
            assert response.ok
            yield opened
        finally:
            await browser.close()


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


async def test_a_missing_value_is_never_shown_as_none(page: Page, review_url: str) -> None:
    for path in (
        "/",
        "/skills/a-draft",
        "/skills/a-draft/diff",
        "/skills/a-validated",
        "/skills/a-validated/runs",
    ):
        await page.goto(_origin(review_url) + path)
        text = await page.locator("main").inner_text()
        assert "None" not in text, (path, text)
    await page.goto(_origin(review_url) + "/skills/a-draft/diff")
    assert "origin an offline HTML fixture" in await page.locator("main").inner_text()


async def test_a_validated_skill_shows_its_version(page: Page) -> None:
    row = page.locator("table.skills tr", has_text="a-validated")
    assert "1.0.0" in await row.inner_text()


async def test_refusals_and_errors_show_code_not_backticks(page: Page, review_url: str) -> None:
    await page.goto(_origin(review_url) + "/skills/no-such-skill")
    assert await page.locator("h1.error").inner_text() == "SR_RECORD_NOT_FOUND"
    text = await page.locator("main").inner_text()
    assert "`" not in text, text
    assert await page.locator("main p code").count() >= 1
    fresh = await page.context.browser.new_context()  # type: ignore[union-attr]
    other = await fresh.new_page()
    await other.goto(_origin(review_url) + "/?token=wrong")
    refused = await other.locator("main").inner_text()
    assert "`" not in refused, refused
    assert await other.locator("main p code").inner_text() == "skillreel ui"
