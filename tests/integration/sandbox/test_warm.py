"""The warm browser (``sandbox.warm.WarmBrowser``, the MCP server's): one Chromium, a fresh
isolated context and a fresh enforcing proxy per session. Nothing a page stores survives into the
next session; the network boundary holds as in a cold session; an idle or crashed browser is
relaunched by the next session."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from skillreel.errors import ReplayUIError
from skillreel.model.environment import Environment, Viewport
from skillreel.sandbox.warm import WarmBrowser
from tests.support.factory import html_environment, url_environment
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

WAIT_S = 20.0  # an upper bound for an event to happen, never a measured duration

# Everything a page can leave behind in a browser profile, written by session one...
STORE_ALL = """async () => {
  document.cookie = "script_cookie=1; max-age=3600; path=/";
  localStorage.setItem("k", "v");
  sessionStorage.setItem("k", "v");
  await new Promise((resolve, reject) => {
    const open = indexedDB.open("db", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("s");
    open.onsuccess = () => { open.result.close(); resolve(); };
    open.onerror = () => reject(open.error);
  });
  const cache = await caches.open("c");
  await cache.put("/cached", new Response("kept"));
  await fetch("/cached-http");
  await fetch("/cached-http");  // the second one from the HTTP cache
  let worker = "none";
  if (navigator.serviceWorker) {
    try { await navigator.serviceWorker.register("/sw.js"); worker = "registered"; }
    catch (e) { worker = "refused"; }
  }
  return worker;
}"""

# ...and looked for by session two (and by session one after a reload, to show the checks can fail).
FIND_ALL = """async () => {
  const databases = indexedDB.databases ? (await indexedDB.databases()).map((d) => d.name) : [];
  const workers = navigator.serviceWorker ? (await navigator.serviceWorker.getRegistrations()).length : 0;
  return {
    cookie: document.cookie,
    local: localStorage.length,
    session: sessionStorage.length,
    databases,
    caches: await caches.keys(),
    workers,
  };
}"""

NOTHING = {"cookie": "", "local": 0, "session": 0, "databases": [], "caches": [], "workers": 0}


def http_cached(server: LocalServer) -> int:
    return server.requests.count(("GET", "/cached-http"))


@pytest.fixture
async def warm() -> AsyncIterator[WarmBrowser]:
    browser = WarmBrowser(idle_s=600)
    yield browser
    await browser.close()


def serve(server: LocalServer) -> None:
    server.set_page("/app", "<!doctype html><title>app</title><h1>app</h1>")
    server.set_route("/login", headers={"Set-Cookie": "server_cookie=1; Max-Age=3600; Path=/"})
    server.set_route(
        "/cached-http",
        body=b"cached",
        headers={"Content-Type": "text/plain", "Cache-Control": "max-age=3600"},
    )
    server.set_route("/sw.js", body=b"self.onfetch = () => {};", headers={"Content-Type": "text/javascript"})


async def test_nothing_a_page_stores_survives_into_the_next_session(
    warm: WarmBrowser, server: LocalServer
) -> None:
    serve(server)
    environment = url_environment(server.url("/app"))
    async with warm.session(environment) as first:
        await first.goto_start()
        # routing turns Chromium's HTTP cache off; without it, the cache works (and must not leak)
        await first.context.unroute_all(behavior="ignoreErrors")
        await first.page.goto(server.url("/login"))
        await first.page.goto(server.url("/app"))
        await first.page.evaluate(STORE_ALL)
        await first.page.reload()
        kept: dict[str, Any] = await first.page.evaluate(FIND_ALL)
        first_browser = first.browser
        assert len(await first.context.cookies()) == 2
    # within a session everything is kept (so the checks below can fail)
    assert "server_cookie=1" in kept["cookie"]
    assert "script_cookie=1" in kept["cookie"]
    assert (kept["local"], kept["session"], kept["databases"], kept["caches"]) == (1, 1, ["db"], ["c"])
    assert http_cached(server) == 1

    async with warm.session(environment) as second:
        await second.goto_start()
        found = await second.page.evaluate(FIND_ALL)
        await second.context.unroute_all(behavior="ignoreErrors")
        await second.page.evaluate("() => fetch('/cached-http')")
        cookies = await second.context.cookies()
        assert second.browser is first_browser  # the same Chromium
        assert second.context is not first.context
    assert found == NOTHING
    assert cookies == []
    assert http_cached(server) == 2  # the HTTP cache of session one is gone too
    assert warm.spares_used == 1  # session two ran on the context opened after session one
    assert warm.launches == 1


async def test_each_session_has_its_own_proxy_and_ledger(
    warm: WarmBrowser, server: LocalServer, second_server: LocalServer
) -> None:
    server.set_page(
        "/app",
        f"<!doctype html><script>fetch('{second_server.origin}/x').catch(() => 0);"
        "new Worker('/w.js');</script>",
    )
    server.set_route(
        "/w.js",
        body=f"fetch('{second_server.origin}/from-worker').catch(() => 0)".encode(),
        headers={"Content-Type": "text/javascript"},
    )
    environment = url_environment(server.url("/app"))
    proxies = []
    for _ in range(2):
        async with warm.session(environment) as session:
            await session.goto_start()
            await asyncio.wait_for(until(lambda: session.ledger.denied_count >= 2), WAIT_S)
            proxies.append(session.proxy)
            assert session.ledger.denied_origins == (second_server.origin,)
    assert proxies[0] is not proxies[1]
    assert second_server.requests == []
    assert warm.launches == 1


async def test_the_proxy_alone_holds_in_a_warm_context(
    warm: WarmBrowser, server: LocalServer, second_server: LocalServer
) -> None:
    """With the routing layer taken away, the context's own proxy still refuses the second origin."""
    server.set_page("/app", f"<!doctype html><script>fetch('{second_server.origin}/x')</script>")
    async with warm.session(url_environment(server.url("/app"))) as session:
        await session.context.unroute_all(behavior="ignoreErrors")
        mark = session.ledger.mark()
        await session.goto_start()
        await asyncio.wait_for(until(lambda: session.ledger.since(mark) >= 1), WAIT_S)
    assert second_server.requests == []
    assert ("GET", "/app") in server.requests  # loopback goes through the context's proxy


async def test_the_next_session_takes_a_spare_context_opened_ahead_only_when_it_fits(
    warm: WarmBrowser, server: LocalServer, second_server: LocalServer
) -> None:
    """After a session, the next one's context is opened ahead (not while it runs: that slows the
    session on 2 cores); taken, it is as fresh and as fenced as any: its own proxy (here alone,
    routing removed) refuses the second origin, one page. A session at another viewport or on an
    HTML fixture does not take it."""
    server.set_page("/app", f"<!doctype html><script>fetch('{second_server.origin}/x')</script>")
    environment = url_environment(server.url("/app"))
    assert not warm.spare_pending
    async with warm.session(environment) as first:
        assert not warm.spare_pending  # nothing opened beside a running session
        await first.goto_start()
    assert warm.spare_pending
    assert warm.spares_used == 0
    async with warm.session(environment) as second:
        assert warm.spares_used == 1
        assert second.context is not first.context
        assert second.proxy is not first.proxy
        assert len(second.context.pages) == 1
        assert second.page.url == "about:blank"
        await second.context.unroute_all(behavior="ignoreErrors")
        mark = second.ledger.mark()
        await second.goto_start()
        await asyncio.wait_for(until(lambda: second.ledger.since(mark) >= 1), WAIT_S)
        assert second.ledger.denied_origins == (second_server.origin,)
    assert ("GET", "/app") in server.requests
    assert second_server.requests == []

    wide = Environment.build(target=environment.target, viewport=Viewport(width=1000, height=700))
    async with warm.session(wide) as third:
        await third.goto_start()
        assert await third.page.evaluate("() => innerWidth") == 1000
    html = "<!doctype html><title>fixture</title>"
    async with warm.session(html_environment(html), html=html) as fourth:
        await fourth.goto_start()
        assert await fourth.page.title() == "fixture"
    assert warm.spares_used == 1
    assert warm.launches == 1


async def test_an_idle_browser_closes_and_the_next_session_relaunches_it(server: LocalServer) -> None:
    server.set_page("/app", "<!doctype html><title>app</title>")
    environment = url_environment(server.url("/app"))
    warm = WarmBrowser(idle_s=0.05)
    try:
        async with warm.session(environment) as session:
            await session.goto_start()
        await asyncio.wait_for(until(lambda: not warm.running), WAIT_S)
        async with warm.session(environment) as session:
            await session.goto_start()
            assert warm.running
        assert warm.launches == 2
    finally:
        await warm.close()


async def test_a_crashed_browser_is_relaunched(warm: WarmBrowser, server: LocalServer) -> None:
    server.set_page("/app", "<!doctype html><title>app</title>")
    environment = url_environment(server.url("/app"))
    async with warm.session(environment) as session:
        await session.goto_start()
        await session.browser.close()  # as if Chromium died under the play
        assert session.crashed
    async with warm.session(environment) as session:
        await session.goto_start()
        assert await session.page.title() == "app"
    assert warm.launches == 2


async def until(condition: Any) -> None:
    while not condition():
        await asyncio.sleep(0.02)


def chromium_browser_pids() -> set[int]:
    """Chromium's browser processes among this test process's descendants (not its renderers)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            children.setdefault(int(stat.rpartition(")")[2].split()[1]), []).append(int(entry.name))
    found, pending = set(), list(children.get(os.getpid(), []))
    while pending:
        pid = pending.pop()
        pending.extend(children.get(pid, []))
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(b"--remote-debugging-pipe" in a for a in argv) and not any(
            a.startswith(b"--type=") for a in argv
        ):
            found.add(pid)
    return found


async def test_a_browser_killed_as_a_session_ends_never_holds_the_next_one(
    warm: WarmBrowser, server: LocalServer
) -> None:
    """Killed while the next session's context is being opened ahead (Playwright never answers a
    new page of a browser killed then): the next session gets a relaunched browser, or the crash,
    never a wait without end (the MCP server's plays all hung so)."""
    server.set_page("/app", "<!doctype html><title>app</title>")
    environment = url_environment(server.url("/app"))
    codes: list[str | None] = []
    for _ in range(4):
        async with warm.session(environment) as session:
            await session.goto_start()
        for pid in chromium_browser_pids():
            os.kill(pid, signal.SIGKILL)  # the spare is being opened now
        try:
            async with asyncio.timeout(WAIT_S * 3):  # a bound on a hang, not a measured duration
                async with warm.session(environment) as session:
                    await session.goto_start()
            codes.append(None)
        except ReplayUIError as exc:
            codes.append(exc.code)
    assert set(codes) <= {None, "SR_REPLAY_UI_BROWSER_CRASHED"}
    async with warm.session(environment) as session:
        await session.goto_start()
        assert await session.page.title() == "app"
    assert warm.launches >= 2
