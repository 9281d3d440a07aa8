"""The network boundary in a real Chromium: every way a page can reach a second loopback origin
off the allowlist is refused, named in the ledger by origin only, and never reaches that origin.

Each test drives one vector from a page on ``server`` (the allowlisted target), waits until the
refusal is in the ledger (an event, not a timer), then checks the second origin saw nothing.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, async_playwright

from skillreel.errors import ReplayUIError
from skillreel.sandbox.chromium import find_chromium, launch_args
from skillreel.sandbox.cold import browser_session
from skillreel.sandbox.context import BrowserSession
from skillreel.sandbox.ledger import NetworkLedger
from skillreel.sandbox.proxy import EnforcingProxy
from tests.integration.sandbox.netpeers import EchoWebSocketServer, TcpListener
from tests.support.factory import url_environment
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

WAIT_S = 20.0  # an upper bound for an event to happen, never a measured duration


async def wait_for_refusal(session: BrowserSession | NetworkLedger, mark: int) -> None:
    ledger = session if isinstance(session, NetworkLedger) else session.ledger

    async def poll() -> None:
        while ledger.since(mark) == 0:
            await asyncio.sleep(0.02)

    await asyncio.wait_for(poll(), WAIT_S)


def host_port(origin: str) -> tuple[str | None, int | None]:
    parts = urlsplit(origin)
    default = 443 if parts.scheme in ("https", "wss") else 80
    return parts.hostname, parts.port or default


@pytest.fixture
async def ws_listener() -> AsyncIterator[TcpListener]:
    listener = TcpListener()
    await listener.start()
    yield listener
    await listener.close()


APP = """<!doctype html><html><body><h1 id=t>app</h1>
<form id=f method=post action="{b}/post"><input name=a value=1></form>
<script>window.result = null; function done(v) {{ window.result = v; }}</script>
<script>{js}</script></body></html>"""

VECTORS = {
    "fetch": "fetch('{b}/fetch').then(() => done('ok'), () => done('err'))",
    "xhr": "const x = new XMLHttpRequest(); x.onload = () => done('ok'); x.onerror = () => done('err');"
    "x.open('GET', '{b}/xhr'); x.send()",
    "image": "const i = new Image(); i.onload = () => done('ok'); i.onerror = () => done('err');"
    "i.src = '{b}/img.png'",
    "script": "const s = document.createElement('script'); s.onload = () => done('ok');"
    "s.onerror = () => done('err'); s.src = '{b}/s.js'; document.head.append(s)",
    "iframe": "const f = document.createElement('iframe'); f.src = '{b}/frame'; document.body.append(f)",
    "form-post": "document.getElementById('f').submit()",
    "window-open": "window.open('{b}/popup')",
    "beacon": "navigator.sendBeacon('{b}/beacon', 'x')",
    "event-source": "new EventSource('{b}/events')",
    "fetch-redirect": "fetch('/redirect').then(() => done('ok'), () => done('err'))",
    "worker-fetch": "new Worker('/worker.js')",
}

WORKER_JS = "fetch('{b}/from-worker').catch(() => 0)"


def serve_app(server: LocalServer, second: LocalServer, js: str, path: str = "/app") -> None:
    b = second.origin
    server.set_page(path, APP.format(b=b, js=js.format(b=b)))
    server.set_route("/redirect", status=302, headers={"Location": second.url("/landing")})
    server.set_route(
        "/worker.js", body=WORKER_JS.format(b=b).encode(), headers={"Content-Type": "text/javascript"}
    )


def serve_vectors(server: LocalServer, second: LocalServer) -> dict[str, str]:
    """One page per vector (``/app-NAME``); returns the path of each."""
    paths = {vector: f"/app-{vector}" for vector in VECTORS}
    for vector, path in paths.items():
        serve_app(server, second, VECTORS[vector], path)
    return paths


async def refused_one_by_one(
    page: Page, ledger: NetworkLedger, server: LocalServer, paths: dict[str, str]
) -> list[str]:
    """Load every vector's page in turn in one page of one browser; the vectors whose refusal the
    ledger did not see (each waits for its own refusal, an event: never a timer)."""
    missed = []
    for vector, path in sorted(paths.items()):
        mark = ledger.mark()
        await page.goto(server.url(path))
        try:
            await wait_for_refusal(ledger, mark)
        except TimeoutError:
            missed.append(vector)
    return missed


async def test_every_vector_to_a_second_origin_is_refused(
    server: LocalServer, second_server: LocalServer
) -> None:
    # One session for all vectors (a launch each cost a CPU-second and more): each vector's page is
    # loaded in turn and must add its own refusal; the second origin must see nothing, from any.
    paths = serve_vectors(server, second_server)
    first = sorted(paths)[0]
    environment = url_environment(server.url(paths[first]))
    async with browser_session(environment) as session:
        await session.goto_start()
        missed = await refused_one_by_one(session.page, session.ledger, server, paths)
    assert missed == []
    assert session.ledger.denied_origins == (second_server.origin,)
    assert second_server.requests == []
    assert {p for _, p in server.requests} >= set(paths.values())  # every vector's page was served


async def test_navigation_redirect_to_second_origin_is_refused(
    server: LocalServer, second_server: LocalServer
) -> None:
    serve_app(server, second_server, "")
    async with browser_session(url_environment(server.url("/app"))) as session:
        await session.goto_start()
        mark = session.ledger.mark()
        response = await session.page.goto(server.url("/redirect"))
        assert session.ledger.since(mark) >= 1
        assert response is None or response.status == 403
    assert session.ledger.denied_origins == (second_server.origin,)
    assert second_server.requests == []
    assert ("GET", "/redirect") in server.requests


@pytest.mark.parametrize("where", ["page", "worker"])
async def test_web_socket_to_second_origin_never_connects(
    where: str, server: LocalServer, ws_listener: TcpListener
) -> None:
    ws = f"ws://127.0.0.1:{ws_listener.port}/socket"
    socket_js = (
        f"const w = new WebSocket('{ws}'); w.onclose = () => postMessage('closed');"
        "w.onerror = () => postMessage('error');"
    )
    server.set_route("/ws-worker.js", body=socket_js.encode(), headers={"Content-Type": "text/javascript"})
    js = (
        "new Worker('/ws-worker.js').onmessage = (e) => done(e.data)"
        if where == "worker"
        else socket_js.replace("postMessage", "done")
    )
    server.set_page("/app", APP.format(b=server.origin, js=js))
    async with browser_session(url_environment(server.url("/app"))) as session:
        mark = session.ledger.mark()
        await session.goto_start()
        await session.page.wait_for_function("window.result !== null", timeout=WAIT_S * 1000)
        assert session.ledger.since(mark) >= 1
        origins = session.ledger.denied_origins
    assert ws_listener.accepted == 0
    assert {host_port(o) for o in origins} == {("127.0.0.1", ws_listener.port)}


async def test_allowed_requests_still_work(server: LocalServer, second_server: LocalServer) -> None:
    server.set_route("/data", body=b"same-origin", headers={"Content-Type": "text/plain"})
    second_server.set_route(
        "/data",
        body=b"allowlisted",
        headers={"Content-Type": "text/plain", "Access-Control-Allow-Origin": "*"},
    )
    js = (
        f"Promise.all([fetch('/data').then(r => r.text()), fetch('{second_server.origin}/data')"
        ".then(r => r.text())]).then(v => done(v.join('+')), () => done('err'))"
    )
    server.set_page("/app", APP.format(b=server.origin, js=js))
    environment = url_environment(server.url("/app"), (second_server.origin,))
    async with browser_session(environment) as session:
        await session.goto_start()
        await session.page.wait_for_function("window.result !== null", timeout=WAIT_S * 1000)
        assert await session.page.evaluate("window.result") == "same-origin+allowlisted"
    assert session.ledger.denied_count == 0
    assert ("GET", "/data") in second_server.requests


@pytest.mark.parametrize("where", ["page", "worker"])
async def test_allowlisted_web_socket_works_through_the_proxy(where: str, server: LocalServer) -> None:
    echo = EchoWebSocketServer()
    await echo.start()
    try:
        ws = f"ws://127.0.0.1:{echo.port}/echo"
        socket_js = (
            f"const w = new WebSocket('{ws}'); w.onopen = () => w.send('hello');"
            "w.onmessage = (e) => { postMessage('echo:' + e.data); w.close(); };"
            "w.onerror = () => postMessage('error');"
        )
        server.set_route(
            "/ws-worker.js", body=socket_js.encode(), headers={"Content-Type": "text/javascript"}
        )
        js = (
            "new Worker('/ws-worker.js').onmessage = (e) => done(e.data)"
            if where == "worker"
            else socket_js.replace("postMessage", "done")
        )
        server.set_page("/app", APP.format(b=server.origin, js=js))
        environment = url_environment(server.url("/app"), (f"http://127.0.0.1:{echo.port}",))
        async with browser_session(environment) as session:
            await session.goto_start()
            await session.page.wait_for_function("window.result !== null", timeout=WAIT_S * 1000)
            assert await session.page.evaluate("window.result") == "echo:hello"
        assert session.ledger.denied_count == 0
        assert echo.handshakes == 1
    finally:
        await echo.close()


@asynccontextmanager
async def proxy_only(allowed: tuple[str, ...]) -> AsyncIterator[tuple[Page, NetworkLedger]]:
    """Chromium launched exactly as a session launches it, but with no routing at all."""
    ledger = NetworkLedger()
    async with EnforcingProxy(allowed, ledger.refuse) as proxy, async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(find_chromium()), args=launch_args(proxy.server_url)
        )
        try:
            context = await browser.new_context(service_workers="block")
            yield await context.new_page(), ledger
        finally:
            await browser.close()


async def test_the_proxy_alone_refuses_every_vector(server: LocalServer, second_server: LocalServer) -> None:
    paths = serve_vectors(server, second_server)
    async with proxy_only((server.origin,)) as (page, ledger):
        missed = await refused_one_by_one(page, ledger, server, paths)
    assert missed == []
    assert ledger.denied_origins == (second_server.origin,)
    assert second_server.requests == []


async def test_the_proxy_alone_refuses_page_and_worker_sockets(
    server: LocalServer, ws_listener: TcpListener
) -> None:
    ws = f"ws://127.0.0.1:{ws_listener.port}/socket"
    socket_js = f"const w = new WebSocket('{ws}'); w.onclose = () => postMessage('closed');"
    server.set_route("/ws-worker.js", body=socket_js.encode(), headers={"Content-Type": "text/javascript"})
    js = "new Worker('/ws-worker.js').onmessage = (e) => done(e.data);" + socket_js.replace(
        "postMessage", "done"
    )
    server.set_page("/app", APP.format(b=server.origin, js=js))
    async with proxy_only((server.origin,)) as (page, ledger):
        await page.goto(server.url("/app"))
        await page.wait_for_function("window.result !== null", timeout=WAIT_S * 1000)
        assert ledger.denied_count >= 1
        origins = ledger.denied_origins
    assert ws_listener.accepted == 0
    assert {host_port(o) for o in origins} == {("127.0.0.1", ws_listener.port)}


class _Datagrams(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.count = 0

    def datagram_received(self, data: bytes, addr: tuple[str | object, int]) -> None:
        self.count += 1


def chromium_builds() -> list[str]:
    """Every Chromium build a session may launch on this machine: ``SKILLREEL_CHROMIUM`` alone when
    it is set, else the headless shell (headless launches) and the browser (headed ones)."""
    if os.environ.get("SKILLREEL_CHROMIUM"):
        return [os.environ["SKILLREEL_CHROMIUM"]]
    try:
        return sorted({str(find_chromium(headless=True)), str(find_chromium(headless=False))})
    except ReplayUIError:  # no Chromium at all: collected anyway (``make check``), never run
        return []


# The headless shell ignores the browser's --webrtc-ip-handling-policy: without the content
# layer's --force-webrtc-ip-handling-policy it sent STUN over UDP, past the proxy.
@pytest.mark.parametrize("build", chromium_builds(), ids=lambda b: Path(b).name)
async def test_webrtc_cannot_reach_stun_or_turn(
    build: str, server: LocalServer, ws_listener: TcpListener, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLREEL_CHROMIUM", build)
    loop = asyncio.get_running_loop()
    transport, udp = await loop.create_datagram_endpoint(_Datagrams, local_addr=("127.0.0.1", 0))
    try:
        stun = transport.get_extra_info("sockname")[1]
        js = (
            "const pc = new RTCPeerConnection({iceServers: ["
            f"{{urls: 'stun:127.0.0.1:{stun}'}},"
            f"{{urls: 'turn:127.0.0.1:{ws_listener.port}?transport=tcp',"
            " username: 'u', credential: 'p'}]});"
            "const found = []; pc.onicecandidate = (e) => { if (e.candidate) found.push(e.candidate); };"
            "pc.onicegatheringstatechange = () => {"
            " if (pc.iceGatheringState === 'complete') done('gathered:' + found.length); };"
            "pc.createDataChannel('x'); pc.createOffer().then((o) => pc.setLocalDescription(o));"
        )
        server.set_page("/app", APP.format(b=server.origin, js=js))
        async with browser_session(url_environment(server.url("/app"))) as session:
            await session.goto_start()
            await session.page.wait_for_function("window.result !== null", timeout=WAIT_S * 1000)
            assert await session.page.evaluate("window.result") == "gathered:0"
            origins = session.ledger.denied_origins
    finally:
        transport.close()
    assert udp.count == 0  # no UDP at all: WebRTC may only use proxied connections
    assert ws_listener.accepted == 0
    assert {host_port(o) for o in origins} == {("127.0.0.1", ws_listener.port)}


async def test_file_urls_are_refused(server: LocalServer) -> None:
    server.set_page("/app", APP.format(b=server.origin, js=""))
    async with browser_session(url_environment(server.url("/app"))) as session:
        await session.goto_start()
        with pytest.raises(PlaywrightError):
            await session.page.goto("file:///etc/hostname")
        assert session.ledger.denied_origins == ("file://",)
