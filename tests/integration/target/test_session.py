"""browser_session basics: launch, the HTML fixture, a URL target, setup errors."""

from __future__ import annotations

import pytest

from skillreel.errors import ReplayUIError
from skillreel.target.browser import browser_session, find_chromium
from tests.factory import html_environment, url_environment
from tests.server import LocalServer

pytestmark = pytest.mark.browser


async def test_html_fixture_is_served_and_offline(second_server: LocalServer) -> None:
    html = (f"<html><body><h1 id=t>fixture</h1><img src='{second_server.url('/i.png')}'>"
            f"<script>fetch('{second_server.url('/f')}').catch(() => 0)</script></body></html>")
    async with browser_session(html_environment(html), html=html) as session:
        await session.goto_start()
        assert await session.page.inner_text("#t") == "fixture"
        await session.page.wait_for_function("performance.getEntriesByType('resource').length >= 0")
    assert session.ledger.denied_origins == (second_server.origin,)
    assert session.ledger.denied_count >= 1
    assert second_server.requests == []


async def test_url_target_loads_allowed_origin(server: LocalServer) -> None:
    server.set_page("/app", "<html><body><h1 id=t>app</h1></body></html>")
    async with browser_session(url_environment(server.url("/app"))) as session:
        await session.goto_start()
        assert await session.page.inner_text("#t") == "app"
    assert session.ledger.denied_count == 0
    assert server.requests == [("GET", "/app")]


def test_missing_chromium_is_a_setup_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLREEL_CHROMIUM", "/nonexistent")
    with pytest.raises(ReplayUIError) as info:
        find_chromium()
    assert info.value.code == "SR_REPLAY_UI_CHROMIUM_SETUP"
