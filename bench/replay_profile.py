"""Where a whole `skillreel replay` process spends its time, phase by phase (a profile, not a goal).

    .venv/bin/python bench/replay_profile.py            # 5 runs, medians per phase
    .venv/bin/python bench/replay_profile.py --runs 3

The flow is the reference flow (``bench/_flow.py``). Phases: the interpreter and the imports of
`skillreel replay` (a fresh ``python -c`` importing what the verb imports, against ``python -c
pass``), then, in process, what ``services.replaying.replay_skill`` does in order: open the store
and pre-flight; start the enforcing proxy, Playwright and Chromium and open the context (entering
``browser_session``); the steps; closing the browser; the report and the store update. Each phase
is timed by wrapping the function that does it. Not a test; the load average is printed.

Then the steps, call by call: the time per run spent in each method of the replay's driver
(``replay.driver.PlaywrightDriver``; outermost calls only), against the time the hand-written
script's Playwright calls take for the same 18 actions in the same Chromium (``baseline_steps`` in
process, a fresh context per run). The actions themselves (``click``, ``fill``, ...) cost about
the same in both; what skillreel adds per step shows as ``page_state`` (the step's content-free
page summary, measured after the DOM-quiet window of ``replay/settle.js``), ``probe`` (resolving
the next target in our isolated world), ``settle`` (waiting for what the action started) and the
evidence. With ``--no-quiet-waits`` the replay's DOM-quiet windows and its animation-frame wait after each
action are set to zero (``World._quiet``; a what-if, not a mode of the product: the
replay then acts on pages still changing): what the steps cost with the page measured, probed and
settled for navigations and requests, but not waited on for quiet.

Measured on a quiet machine, 2026-12-01 (``--runs 4``, load 2.3): steps 1.86 s against
1.37 s; ``page_state`` 397 ms for 17 calls, ``probe`` 90 ms, ``settle`` 100 ms; the actions cost
the same (click 539 vs 568 ms, fill 404 vs 500 ms per run).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

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

import skillreel.services.replaying as replaying
from skillreel.replay import driver as replay_driver
from skillreel.replay import world as replay_world
from skillreel.replay.engine import ReplayEngine
from skillreel.sandbox import cold as cold_session
from skillreel.sandbox.chromium import find_chromium
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import Store

IMPORTS = (
    "import skillreel.cli.main, skillreel.cli.replay, skillreel.services.replaying, "
    "skillreel.replay.driver, skillreel.sandbox.cold, playwright.async_api"
)


def process_start(runs: int) -> tuple[float, float]:
    """Medians of ``python -c pass`` and of importing what `skillreel replay` imports, in seconds."""

    def timed(code: str) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - started

    bare = statistics.median(timed("pass") for _ in range(runs))
    imports = statistics.median(timed(IMPORTS) for _ in range(runs))
    return bare, imports


async def profile_once(store: Store, run: int, phases: dict[str, list[float]]) -> None:
    marks: dict[str, float] = {}
    original_session = cold_session.browser_session
    original_run = ReplayEngine.run
    original_record = replaying.end_played

    @asynccontextmanager
    async def session(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        marks["launch"] = time.perf_counter()
        async with original_session(*args, **kwargs) as opened:
            marks["launched"] = time.perf_counter()
            yield opened
            marks["closing"] = time.perf_counter()
        marks["closed"] = time.perf_counter()

    async def run_steps(self: ReplayEngine, *args: Any, **kwargs: Any) -> Any:
        marks["steps"] = time.perf_counter()
        try:
            return await original_run(self, *args, **kwargs)
        finally:
            marks["stepped"] = time.perf_counter()

    def record(*args: Any, **kwargs: Any) -> Any:
        marks["record"] = time.perf_counter()
        try:
            return original_record(*args, **kwargs)
        finally:
            marks["recorded"] = time.perf_counter()

    ReplayEngine.run = run_steps  # type: ignore[method-assign]
    replaying.end_played = record
    try:
        started = time.perf_counter()
        outcome = await replay_skill(
            store, ReplayRequest(name=NAME, inputs=inputs(run)), session_factory=session
        )
        ended = time.perf_counter()
    finally:
        ReplayEngine.run = original_run  # type: ignore[method-assign]
        replaying.end_played = original_record
    if outcome.error is not None:
        raise RuntimeError(f"the replay failed: {outcome.error.code}")
    phases["pre-flight (store read, checks, vault)"].append(marks["launch"] - started)
    phases["proxy + Playwright + Chromium + context"].append(marks["launched"] - marks["launch"])
    phases["steps (18 actions)"].append(marks["stepped"] - marks["steps"])
    phases["closing the browser"].append(marks["closed"] - marks["closing"])
    phases["report + store update"].append(marks["recorded"] - marks["record"])
    phases["whole replay_skill"].append(ended - started)


class CallTimes:
    """Seconds per method name, outermost calls only (a method calling another counts once)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._depth = 0

    def wrap(self, name: str, method: Any) -> Any:
        async def timed(*args: Any, **kwargs: Any) -> Any:
            outermost = self._depth == 0
            self._depth += 1
            started = time.perf_counter()
            try:
                return await method(*args, **kwargs)
            finally:
                self._depth -= 1
                if outermost:
                    self.seconds[name] += time.perf_counter() - started
                    self.calls[name] += 1

        return timed

    def clear(self) -> None:
        self.seconds.clear()
        self.calls.clear()

    def print(self, title: str, runs: int) -> None:
        sys.stdout.write(f"  {title} (per run):\n")
        for name, seconds in sorted(self.seconds.items(), key=lambda item: -item[1]):
            sys.stdout.write(
                f"    {seconds / runs * 1000:6.0f} ms  {self.calls[name] / runs:5.1f} calls  {name}\n"
            )


def time_driver_calls(times: CallTimes) -> None:
    for name, method in list(vars(replay_driver.PlaywrightDriver).items()):
        if inspect.iscoroutinefunction(method) and not name.startswith("_"):
            setattr(replay_driver.PlaywrightDriver, name, times.wrap(name, method))


class TimedPage:
    """A Playwright page whose awaited methods are timed (the hand-written script's calls)."""

    def __init__(self, page: Any, times: CallTimes) -> None:
        self._page = page
        self._times = times

    def __getattr__(self, name: str) -> Any:
        return self._times.wrap(name, getattr(self._page, name))


async def baseline_calls(base: str, runs: int) -> tuple[CallTimes, float]:
    """The hand-written script's 18 actions, in process, a fresh context per run (one warm-up)."""
    from playwright.async_api import async_playwright

    times = CallTimes()
    steps: list[float] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(find_chromium(headless=True)), args=chromium_args()
        )
        for run in range(runs + 1):
            if run == 1:
                times.clear()
            context = await browser.new_context()
            page = await context.new_page()
            started = time.perf_counter()
            await baseline_steps(TimedPage(page, times), base, inputs(run), PASSWORD)
            if run:
                steps.append(time.perf_counter() - started)
            await context.close()
        await browser.close()
    return times, statistics.median(steps)


def no_quiet_waits() -> None:
    """Every measurement after an action without a DOM-quiet window or a frame wait (a what-if)."""

    def quiet(self: replay_world.World, cap: int) -> dict[str, int]:
        return {"windowMs": 0, "frameMs": 0, "capMs": cap}

    replay_world.World._quiet = quiet  # type: ignore[method-assign]


async def main(runs: int, *, quiet_waits: bool = True) -> None:
    if not quiet_waits:
        no_quiet_waits()
        sys.stdout.write("  what-if: no DOM-quiet window and no frame wait after the actions\n")
    server = start_server()
    load_before = os.getloadavg()[0]
    bare, imports = process_start(runs)
    phases: dict[str, list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as home:
        os.environ["SKILLREEL_HOME"] = home
        os.environ[PASSWORD_ENV] = PASSWORD
        await store_skill(server, Path(home))
        calls = CallTimes()
        time_driver_calls(calls)
        with Store.open(Path(home)) as store:
            await profile_once(store, 0, defaultdict(list))  # warm-up
            calls.clear()
            for run in range(1, runs + 1):
                await profile_once(store, run, phases)
    theirs, their_steps = await baseline_calls(server.origin, runs)
    server.stop()
    sys.stdout.write(f"  python -c pass: {bare * 1000:.0f} ms\n")
    sys.stdout.write(f"  imports of `skillreel replay`: {(imports - bare) * 1000:.0f} ms on top\n")
    for name, values in phases.items():
        sys.stdout.write(f"  {name}: {statistics.median(values) * 1000:.0f} ms\n")
    calls.print("skillreel's driver calls during the steps", runs)
    sys.stdout.write(f"  hand-written script's steps, in process: {their_steps * 1000:.0f} ms\n")
    theirs.print("its Playwright calls", runs)
    sys.stdout.write(f"  load average (1 min) {load_before:.1f} before, {os.getloadavg()[0]:.1f} after\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--no-quiet-waits",
        action="store_true",
        help="a what-if: no DOM-quiet window and no frame wait after the actions",
    )
    args = parser.parse_args()
    asyncio.run(main(args.runs, quiet_waits=not args.no_quiet_waits))
