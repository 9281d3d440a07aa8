"""A session's context, routing and start page (``sandbox.context``, ``sandbox.routing``), through
``browser_session``: the offline HTML fixture and a plain URL target."""

from __future__ import annotations

import re

import pytest

from skillreel.errors import ReplayUIError
from skillreel.model.environment import FIXTURE_ORIGIN
from skillreel.sandbox import routing as routing_module
from skillreel.sandbox.allowlist import decide, routed_pattern
from skillreel.sandbox.chromium import find_chromium
from skillreel.sandbox.cold import browser_session
from tests.integration.sandbox.netpeers import TcpListener
from tests.support.factory import html_environment, url_environment
from tests.support.lookalike_urls import ORIGINS, URLS
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

WAIT_MS = 20_000

FIXTURE = """<!doctype html><html><body><h1 id=t>fixture</h1>
<script>
window.failures = [];
const fail = (what) => () => window.failures.push(what);
const img = new Image(); img.onerror = fail('image'); img.src = '{b}/i.png';
const s = document.createElement('script'); s.onerror = fail('script'); s.src = '{b}/s.js';
document.head.append(s);
fetch('{b}/f').catch(fail('fetch'));
fetch('/same-origin').catch(fail('same-origin'));
const w = new WebSocket('ws://127.0.0.1:{ws}/'); w.onclose = fail('socket');
const worker = new Worker(URL.createObjectURL(new Blob(
  ["fetch('{b}/from-worker').catch(() => postMessage('worker'))"], {{type: 'text/javascript'}})));
worker.onmessage = (e) => window.failures.push(e.data);
const local = new Image(); local.onload = () => window.failures.push('data-loaded');
local.src = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';
</script></body></html>"""


async def test_html_fixture_is_served_and_everything_else_refused(second_server: LocalServer) -> None:
    listener = TcpListener()
    await listener.start()
    ws_port = listener.port
    try:
        html = FIXTURE.format(b=second_server.origin, ws=ws_port)
        async with browser_session(html_environment(html), html=html) as session:
            await session.goto_start()
            assert session.page.url == "https://fixture.skillreel.invalid/"
            assert await session.page.inner_text("#t") == "fixture"
            await session.page.wait_for_function("window.failures.length === 7", timeout=WAIT_MS)
            failures = sorted(await session.page.evaluate("window.failures"))
    finally:
        await listener.close()
    # data: is local and loads; every network request failed, the fixture's own origin included
    assert failures == ["data-loaded", "fetch", "image", "same-origin", "script", "socket", "worker"]
    assert set(session.ledger.denied_origins) == {
        second_server.origin,
        FIXTURE_ORIGIN,
        f"ws://127.0.0.1:{ws_port}",
    }
    assert second_server.requests == []
    assert listener.accepted == 0


async def test_fixture_navigation_away_is_refused(second_server: LocalServer) -> None:
    html = "<a id=go href='{}'>go</a>".format(second_server.url("/away"))
    async with browser_session(html_environment(html), html=html) as session:
        await session.goto_start()
        mark = session.ledger.mark()
        async with session.page.expect_event("requestfailed", timeout=WAIT_MS):
            await session.page.click("#go")
        assert session.ledger.origins_since(mark) == (second_server.origin,)
    assert second_server.requests == []


async def test_url_target_loads_allowed_origin(server: LocalServer) -> None:
    server.set_page("/app", "<html><body><h1 id=t>app</h1></body></html>")
    async with browser_session(url_environment(server.url("/app"))) as session:
        await session.goto_start()
        assert await session.page.inner_text("#t") == "app"
        assert session.page.viewport_size == {"width": 1280, "height": 800}
    assert session.ledger.denied_count == 0
    assert server.requests == [("GET", "/app")]


async def test_start_page_that_cannot_load_is_a_navigation_error(server: LocalServer) -> None:
    port = server.port
    server.stop()

    async def start() -> None:
        async with browser_session(url_environment(f"http://127.0.0.1:{port}/gone")) as session:
            await session.goto_start()

    with pytest.raises(ReplayUIError) as info:
        await start()
    assert info.value.code == "SR_REPLAY_UI_NAVIGATION_FAILED"
    # why it failed, content-free: Chromium's net error code (the browser turns the proxy's 502
    # into one) or the proxy's own word (the headless shell shows the 502), never the URL
    assert "net::ERR_" in info.value.message or "cannot be reached" in info.value.message
    assert str(port) not in info.value.message
    assert "127.0.0.1" not in info.value.message


async def test_no_address_bar_popup_page_is_preloaded(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The full browser preloads its address bar's popup as a WebUI page for every window, in a
    # renderer of its own (about a CPU-second per launch); launch_args turns that off. (A headless
    # launch takes the headless shell when installed, which has no address bar: use the browser.)
    monkeypatch.setenv("SKILLREEL_CHROMIUM", str(find_chromium(headless=False)))
    server.set_page("/app", "<html><body><h1 id=t>app</h1></body></html>")
    async with browser_session(url_environment(server.url("/app"))) as session:
        await session.goto_start()
        second = await session.browser.new_context()  # every context gets a window of its own
        await (await second.new_page()).goto("about:blank")
        cdp = await session.browser.new_browser_cdp_session()
        targets = (await cdp.send("Target.getTargets", {"filter": [{}]}))["targetInfos"]
        await second.close()
    pages = [t for t in targets if t["type"] == "page"]
    assert len(pages) == 2  # the listing sees every page: the session's and the second context's
    assert [t["url"] for t in targets if t["url"].startswith("chrome://")] == []


async def test_routing_decides_every_request_but_those_of_an_allowlisted_origin(
    server: LocalServer, second_server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requests to an allowlisted origin are continued by Playwright's process without a round trip
    to the routing handler (``allowlist.routed_pattern``); a request anywhere else still meets the
    handler's decision and is refused there, in the ledger. Chromium's JavaScript reads the pattern
    as Python does (Playwright's process matches it in JavaScript)."""
    decided: list[str] = []

    def recorded(url: str, allowed: object) -> object:
        decided.append(url)
        return decide(url, allowed)  # type: ignore[arg-type]

    monkeypatch.setattr(routing_module, "decide", recorded)
    away = second_server.url("/away.png")
    server.set_page(
        "/app",
        "<!doctype html><h1 id=t>app</h1><img src='/local.png'>"
        "<script>fetch('/api'); const i = new Image(); i.onerror = () => { window.refused = true; };"
        f" i.src = '{away}';</script>",
    )
    async with browser_session(url_environment(server.url("/app"))) as session:
        mark = session.ledger.mark()
        await session.goto_start()
        await session.page.wait_for_function("window.refused === true", timeout=WAIT_MS)
        pattern = routed_pattern(ORIGINS)
        assert pattern is not None
        in_js = await session.page.evaluate(
            "([source, urls]) => urls.map((u) => new RegExp(source).test(u))", [pattern, list(URLS)]
        )
        assert in_js == [re.search(pattern, url) is not None for url in URLS]
        assert session.ledger.origins_since(mark) == (second_server.origin,)
    assert decided == [away]
    assert sorted(server.requests) == [("GET", "/api"), ("GET", "/app"), ("GET", "/local.png")]
    assert second_server.requests == []
