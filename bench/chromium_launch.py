"""What a Chromium launch and a browser context cost in CPU, with skillreel's switches and without.

    .venv/bin/python bench/chromium_launch.py [--rounds 5] [--contexts 5]

Each round launches Chromium three ways, interleaved: with ``launch_args`` exactly as skillreel
launches it; the same without its ``--disable-features`` switch (Playwright's own list then applies,
and the address bar's WebUI popup is preloaded); and with Playwright's defaults alone (what a
hand-written script passes: ``--no-sandbox`` as root). A launch is measured as the browser's start,
one context, one page and a ``data:`` document, then 1 s of idling (the preloads finish); then
``--contexts`` more contexts, each with a page and a document, are opened and closed one after the
other. CPU-seconds of every process below this one (the driver, Chromium's processes), read from
/proc every 50 ms (a process that exits keeps its last reading). Medians of the rounds are printed.
Not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import threading
from pathlib import Path

from playwright.async_api import async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _flow_baseline import chromium_args
from _results import report
from row_cpu import _cpu, _tree

from skillreel.sandbox.chromium import DISABLE_FEATURES, find_chromium, launch_args

COMMAND = "python bench/chromium_launch.py"
PAGE = "data:text/html,<p>hello</p>"


class TreeCpu:
    """CPU-seconds of this process's descendants, sampled in a thread (the last reading per pid)."""

    def __init__(self) -> None:
        self._last: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(0.05)

    def sample(self) -> None:
        me = os.getpid()
        for pid in _tree(me):
            cpu = _cpu(pid) if pid != me else None
            if cpu is not None:
                self._last[pid] = cpu

    def total(self) -> float:
        self.sample()
        return sum(self._last.values())

    def __enter__(self) -> TreeCpu:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()


async def one_round(args: list[str], contexts: int) -> tuple[float, float]:
    """CPU-seconds of (a launch with its first page, one more context on average)."""
    with TreeCpu() as cpu:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=str(find_chromium(headless=True)), args=args)
            page = await (await browser.new_context()).new_page()
            await page.goto(PAGE)
            await asyncio.sleep(1.0)
            launched = cpu.total()
            for _ in range(contexts):
                context = await browser.new_context()
                await (await context.new_page()).goto(PAGE)
                await asyncio.sleep(0.3)
                await context.close()
            await asyncio.sleep(0.5)
            per_context = (cpu.total() - launched) / contexts
            await browser.close()
    return launched, per_context


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--contexts", type=int, default=5)
    options = parser.parse_args()
    # The proxy address is never used: the pages are data: documents.
    ours = launch_args("http://127.0.0.1:9")
    variants = {
        "skillreel": ours,
        "skillreel without its --disable-features": [a for a in ours if a != DISABLE_FEATURES],
        "Playwright defaults": chromium_args(),
    }
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    for round_ in range(options.rounds):
        for name, args in variants.items():
            results[name].append(await one_round(args, options.contexts))
        shown = "; ".join(f"{name} {runs[-1][0]:.2f} + {runs[-1][1]:.2f}" for name, runs in results.items())
        print(f"round {round_ + 1} (CPU-s, launch + each further context): {shown}")
    medians = {
        name: (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
        for name, runs in results.items()
    }
    for name, (launch, context) in medians.items():
        print(f"{name}: launch + first page {launch:.2f} CPU-s, each further context {context:.2f} CPU-s")
    plain = medians["Playwright defaults"]
    for label, index in (("launch + first page", 0), ("each further context", 1)):
        report(
            f"Chromium CPU, {label}, skillreel's switches",
            goal="information",
            measured=medians["skillreel"][index] * 1000,
            unit="CPU-ms",
            baseline=f"Playwright defaults {plain[index] * 1000:.0f} CPU-ms",
            ratio=medians["skillreel"][index] / plain[index],
            command=COMMAND,
        )


if __name__ == "__main__":
    asyncio.run(main())
