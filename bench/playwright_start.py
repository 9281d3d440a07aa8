"""What starting Playwright's process costs with skillreel's compile cache and without it.

    .venv/bin/python bench/playwright_start.py [--runs 8]

Each run starts a fresh interpreter that starts Playwright the way skillreel does
(``sandbox.playwright_start.start_playwright``: its Node.js process, no browser) and stops it, twice,
interleaved: with the compile cache (``NODE_COMPILE_CACHE`` in the user's cache folder, warmed by one
start first) and with ``NODE_DISABLE_COMPILE_CACHE=1``. Wall time of the start and the CPU of
Playwright's process (the interpreter's children, after it exited). Medians are printed. Not a
test: nothing is asserted. (Until issue 27: ``bench/driver_start.py``, the same measure.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import report

COMMAND = "python bench/playwright_start.py"
PROBE = """
import asyncio, json, resource, time
from skillreel.sandbox.playwright_start import start_playwright
async def main():
    started = time.perf_counter()
    playwright = await start_playwright()
    up = time.perf_counter() - started
    await playwright.stop()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"start": up, "cpu": children.ru_utime + children.ru_stime}))
asyncio.run(main())
"""


def start_once(cache: bool) -> dict[str, float]:
    unset = ("NODE_COMPILE_CACHE", "NODE_DISABLE_COMPILE_CACHE")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    if not cache:
        env["NODE_DISABLE_COMPILE_CACHE"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    ).stdout
    measured: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=8)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    start_once(cache=True)  # the cache is written by the first start
    runs: dict[bool, list[dict[str, float]]] = {True: [], False: []}
    for _ in range(args.runs):
        for cache in (True, False):
            runs[cache].append(start_once(cache))

    def median(cache: bool, key: str) -> float:
        return statistics.median(r[key] for r in runs[cache]) * 1000

    with_cache, without = median(True, "start"), median(False, "start")
    cpu_with, cpu_without = median(True, "cpu"), median(False, "cpu")
    load = os.getloadavg()[0]
    sys.stdout.write(
        f"Playwright start: {with_cache:.0f} ms with the compile cache, {without:.0f} ms without; "
        f"its CPU {cpu_with:.0f} vs {cpu_without:.0f} ms (load {load_before:.1f} -> {load:.1f})\n"
    )
    report(
        figure="Playwright's process start (Node.js, no browser), skillreel's compile cache",
        goal="information",
        measured=with_cache,
        unit="ms",
        baseline=f"without the cache {without:.0f} ms (its CPU {cpu_with:.0f} vs {cpu_without:.0f} ms)",
        ratio=with_cache / without,
        command=f"{COMMAND} --runs {args.runs}",
    )


if __name__ == "__main__":
    main()
