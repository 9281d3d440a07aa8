"""Replay overhead in one process: the reference flow replayed by skillreel and by a hand-written
Playwright script doing the same actions on the same Chromium, runs interleaved.

    .venv/bin/python bench/replay_overhead.py            # 9 interleaved pairs
    .venv/bin/python bench/replay_overhead.py --quick    # 3 pairs

The flow is the issue-14 reference flow (``bench/_flow.py``: 18 actions over 4 pages: sign in, a
search whose results a fetch renders, a form, a confirmation a POST fetch shows). skillreel runs the
whole use case (``services.replaying.replay_skill``: pre-flight, Chromium behind the enforcing proxy
and request routing, isolated-world resolution of every target with the competitor check, verified
typing, event-driven settling, evidence, network checks, report and store update) with its defaults
(``--settle 0``: no fixed wait). The baseline (``bench/_flow_baseline.py``) is what a person would
write with Playwright: CSS selectors, ``fill``/``select_option``/``check``/``click``/``press``, one
wait for the confirmation; no proxy, no routing.

Printed: the medians of the whole run (launch included) and of the steps alone (first step to last),
and their ratios. Goal (issue 14): steps at most 1.10x. The whole process, imports and interpreter
included, is ``bench/replay_process.py``. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _flow import (
    NAME,
    PASSWORD,
    PASSWORD_ENV,
    baseline_steps,
    chromium_args,
    inputs,
    start_server,
    store_skill,
)
from _results import report
from playwright.async_api import async_playwright

from skillreel.replay.engine import StepProgress
from skillreel.sandbox.chromium import find_chromium
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import Store

GOAL = 1.10
COMMAND = "python bench/replay_overhead.py"


async def run_skillreel(store: Store, run: int, settle_ms: int = 0) -> tuple[float, float]:
    marks: list[float] = []

    def progress(step: StepProgress) -> None:
        first = step.phase == "start" and step.index == 0
        if first or (step.phase == "done" and step.index == step.total - 1):
            marks.append(time.perf_counter())

    start = time.perf_counter()
    request = ReplayRequest(name=NAME, inputs=inputs(run), settle_ms=settle_ms)
    outcome = await replay_skill(store, request, progress=progress)
    total = time.perf_counter() - start
    if outcome.error is not None:
        raise RuntimeError(f"the skillreel replay failed: {outcome.error.to_json()}")
    return total, marks[-1] - marks[0]


async def run_playwright(base: str, run: int) -> tuple[float, float]:
    """The hand-written baseline: the same actions, plain Playwright, the same Chromium."""
    start = time.perf_counter()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(find_chromium(headless=True)), args=chromium_args()
        )
        page = await browser.new_page()
        steps_start = time.perf_counter()
        await baseline_steps(page, base, inputs(run), PASSWORD)
        steps = time.perf_counter() - steps_start
        await browser.close()
    return time.perf_counter() - start, steps


async def main(pairs: int) -> None:
    server = start_server()
    with tempfile.TemporaryDirectory() as home:
        os.environ["SKILLREEL_HOME"] = home
        os.environ[PASSWORD_ENV] = PASSWORD
        await store_skill(server, Path(home))
        with Store.open(Path(home)) as store:
            await run_skillreel(store, 0)  # warm-up (imports, caches)
            await run_playwright(server.origin, 0)
            ours: list[tuple[float, float]] = []
            theirs: list[tuple[float, float]] = []
            load = os.getloadavg()[0]
            for run in range(1, pairs + 1):
                if run % 2:
                    ours.append(await run_skillreel(store, run))
                    theirs.append(await run_playwright(server.origin, run))
                else:
                    theirs.append(await run_playwright(server.origin, run))
                    ours.append(await run_skillreel(store, run))
                sys.stdout.write(
                    f"  pair {run}: skillreel {ours[-1][0]:.2f} s (steps {ours[-1][1]:.2f} s), "
                    f"playwright {theirs[-1][0]:.2f} s (steps {theirs[-1][1]:.2f} s)\n"
                )
            settled = await run_skillreel(store, pairs + 1, settle_ms=100)
    server.stop()
    sys.stdout.write(f"  load average (1 min) {load:.1f} before, {os.getloadavg()[0]:.1f} after\n")
    for label, index in (("whole run", 0), ("steps only", 1)):
        a = statistics.median(r[index] for r in ours)
        b = statistics.median(r[index] for r in theirs)
        report(
            f"reference replay (18 actions / 4 pages) in process, {label}",
            goal=f"<= {GOAL}x hand-written Playwright",
            measured=a * 1000,
            unit="ms",
            baseline=f"Playwright script {b * 1000:.0f} ms",
            ratio=a / b,
            command=COMMAND,
            met=a / b <= GOAL,
        )
    sys.stdout.write(
        f"  (with --settle 100 as an extra minimum: whole run {settled[0]:.2f} s, steps {settled[1]:.2f} s)\n"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 pairs instead of 9")
    args = parser.parse_args()
    asyncio.run(main(3 if args.quick else 9))
