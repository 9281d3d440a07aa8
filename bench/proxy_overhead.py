"""What the network boundary costs: page loads through browser_session (routing + enforcing proxy)
against the same Chromium with neither, and with the proxy only, measured in the same run.

    .venv/bin/python bench/proxy_overhead.py [--runs 7] [--resources 100]

A page on a loopback server loads N same-origin images and N fetches. Runs are interleaved;
the medians and ratios against the bare baseline are printed. Not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from playwright.async_api import Page, async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _results import report
from tests.support.factory import url_environment
from tests.support.server import LocalServer

from skillreel.sandbox.chromium import find_chromium, launch_args
from skillreel.sandbox.cold import browser_session
from skillreel.sandbox.ledger import NetworkLedger
from skillreel.sandbox.proxy import EnforcingProxy

GIF = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")


def page_html(n: int) -> str:
    images = "".join(f"<img src='/img/{i}.gif'>" for i in range(n))
    fetches = f"Promise.all([...Array({n}).keys()].map(i => fetch('/data/' + i)))"
    return (
        f"<html><body>{images}<script>window.ready = false;"
        f"{fetches}.then(() => {{ window.ready = true; }})</script></body></html>"
    )


async def load(page: Page, url: str) -> float:
    start = time.perf_counter()
    await page.goto(url, wait_until="load")
    await page.wait_for_function("window.ready === true")
    return time.perf_counter() - start


async def bare(url: str, proxy: bool) -> float:
    ledger = NetworkLedger()
    async with EnforcingProxy((url.rsplit("/", 1)[0],), ledger.refuse) as enforcing, async_playwright() as pw:
        args = launch_args(enforcing.server_url)
        if not proxy:
            args = [a for a in args if not a.startswith(("--proxy-", "--host-resolver-rules"))]
        browser = await pw.chromium.launch(executable_path=str(find_chromium(headless=True)), args=args)
        try:
            page = await (await browser.new_context(service_workers="block")).new_page()
            await load(page, url)  # warm up
            return await load(page, url)
        finally:
            await browser.close()


async def full(url: str) -> float:
    async with browser_session(url_environment(url)) as session:
        await load(session.page, url)  # warm up
        return await load(session.page, url)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--resources", type=int, default=100)
    options = parser.parse_args()
    server = LocalServer()
    server.start()
    server.set_page("/app", page_html(options.resources))
    for i in range(options.resources):
        server.set_route(f"/img/{i}.gif", body=GIF, headers={"Content-Type": "image/gif"})
        server.set_route(f"/data/{i}", body=b"x", headers={"Content-Type": "text/plain"})
    url = server.url("/app")
    variants: dict[str, Callable[[], Awaitable[float]]] = {
        "bare chromium": lambda: bare(url, proxy=False),
        "proxy only": lambda: bare(url, proxy=True),
        "browser_session (routing + proxy)": lambda: full(url),
    }
    samples: dict[str, list[float]] = {name: [] for name in variants}
    try:
        for _ in range(options.runs):
            for name, run in variants.items():
                samples[name].append(await run())
    finally:
        server.stop()
    baseline = statistics.median(samples["bare chromium"])
    print(f"page with {options.resources} images + {options.resources} fetches, {options.runs} runs each")
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"{name:36s} median {median * 1000:8.1f} ms   ratio {median / baseline:5.2f}x")
    guarded = statistics.median(samples["browser_session (routing + proxy)"])
    report(
        f"page load, {options.resources} images + {options.resources} fetches, through routing + proxy",
        goal="<= 1.25x bare Chromium",
        measured=guarded * 1000,
        unit="ms",
        baseline="bare Chromium",
        ratio=guarded / baseline,
        command="python bench/proxy_overhead.py",
        met=guarded / baseline <= 1.25,
    )


if __name__ == "__main__":
    asyncio.run(main())
