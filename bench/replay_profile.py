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

With ``--protocol`` (issue 29), instead of times: the protocol traffic of one replay and of one run of
the hand-written script, step by step (``bench/_protocol.py``: the Playwright calls the Python client
sends, exact, and the Chromium protocol commands Playwright's process sends to the browser, exact,
read from its ``DEBUG=pw:protocol`` log), as a table per step and per step kind, skillreel against
the script, then the CDP methods each side used most. Both on the headless shell; the replay as
``services.replaying.replay_skill`` runs it (a cold session: its set-up launches Chromium). Under
a minute on local pages:

    .venv/bin/python bench/replay_profile.py --protocol

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
from _protocol import SETUP, ProtocolCount

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


# the hand-written script's calls as the step kinds of the skill's actions (bench/_flow.py: same order)
SCRIPT_KINDS = {
    "goto": "navigate",
    "fill": "type",
    "click": "click",
    "check": "click",
    "select_option": "select",
    "press": "press",
    "wait_for_selector": "observe",
    "text_content": "assert",
}
END = "end"


class MarkedPage:
    """A Playwright page each of whose calls starts a segment of the count: the script's steps."""

    def __init__(self, page: Any, count: ProtocolCount) -> None:
        self._page = page
        self._count = count
        self._steps = 0

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._page, name)

        async def marked(*args: Any, **kwargs: Any) -> Any:
            self._steps += 1
            self._count.mark(f"{self._steps:02d} {SCRIPT_KINDS.get(name, name)}")
            return await method(*args, **kwargs)

        return marked


async def replay_protocol(store: Store, run: int) -> ProtocolCount:
    """One replay's traffic: each step from its start to the next one's, the end from the last step
    to the browser closed (``replay_skill``'s own cold session, wrapped to mark where it ends)."""
    count = ProtocolCount()

    def progress(step: Any) -> None:
        if step.phase == "start":
            count.mark(f"{step.index + 1:02d} {step.kind}")

    @asynccontextmanager
    async def session(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        async with cold_session.browser_session(*args, **kwargs) as opened:
            yield opened
            count.mark(END)

    with count.counting():
        outcome = await replay_skill(
            store, ReplayRequest(name=NAME, inputs=inputs(run)), progress=progress, session_factory=session
        )
    if outcome.error is not None:
        raise RuntimeError(f"the replay failed: {outcome.error.code}")
    return count


async def script_protocol(base: str, run: int) -> ProtocolCount:
    """One run of the hand-written script (launch, a page, the 18 calls, close), counted."""
    from playwright.async_api import async_playwright

    count = ProtocolCount()
    with count.counting():
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=str(find_chromium(headless=True)), args=chromium_args()
            )
            page = await browser.new_page()
            await baseline_steps(MarkedPage(page, count), base, inputs(run), PASSWORD)
            count.mark(END)
            await browser.close()
    return count


def print_protocol(ours: ProtocolCount, theirs: ProtocolCount) -> None:
    def row(label: str, segments: list[str], other: list[str]) -> str:
        cells = [
            sum(ours.calls[s] for s in segments),
            sum(ours.commands[s] for s in segments),
            sum(theirs.calls[s] for s in other),
            sum(theirs.commands[s] for s in other),
        ]
        return f"    {label:18s} {cells[0]:5d} {cells[1]:6d}   {cells[2]:5d} {cells[3]:6d}\n"

    head = f"    {'':18s} {'calls':>5s} {'CDP':>6s}   {'calls':>5s} {'CDP':>6s}\n"
    steps = [s for s in ours.segments if s not in (SETUP, END)]
    their_steps = [s for s in theirs.segments if s not in (SETUP, END)]
    sys.stdout.write("  Playwright calls and Chromium protocol (CDP) commands: skillreel | the script\n")
    sys.stdout.write("  per step:\n" + head)
    for index, segment in enumerate(steps):
        other = [their_steps[index]] if index < len(their_steps) else []
        mismatch = "" if other and other[0] == segment else f"  (the script: {', '.join(other) or '-'})"
        sys.stdout.write(row(segment, [segment], other).rstrip("\n") + mismatch + "\n")
    sys.stdout.write("  per step kind (every step of the kind):\n" + head)
    for kind in sorted({s.split(" ", 1)[1] for s in steps}):
        mine = [s for s in steps if s.endswith(" " + kind)]
        other = [s for s in their_steps if s.endswith(" " + kind)]
        sys.stdout.write(row(f"{kind} ({len(mine)})", mine, other))
    sys.stdout.write(row("all steps", steps, their_steps))
    sys.stdout.write(row(SETUP, [SETUP], [SETUP]))
    sys.stdout.write(row(END, [END], [END]))
    for name, count in (("skillreel", ours), ("the script", theirs)):
        common = ", ".join(f"{method} {n}" for method, n in count.methods.most_common(8))
        sys.stdout.write(f"  CDP methods in {name}'s steps and end: {common}\n")


async def protocol_main() -> None:
    server = start_server()
    try:
        with tempfile.TemporaryDirectory() as home:
            os.environ["SKILLREEL_HOME"] = home
            os.environ[PASSWORD_ENV] = PASSWORD
            await store_skill(server, Path(home))
            with Store.open(Path(home)) as store:
                ours = await replay_protocol(store, 1)
            theirs = await script_protocol(server.origin, 1)
    finally:
        server.stop()
    print_protocol(ours, theirs)


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
        "--protocol",
        action="store_true",
        help="count Playwright calls and CDP commands per step instead (one replay, one script run)",
    )
    parser.add_argument(
        "--no-quiet-waits",
        action="store_true",
        help="a what-if: no DOM-quiet window and no frame wait after the actions",
    )
    args = parser.parse_args()
    if args.protocol:
        asyncio.run(protocol_main())
    else:
        asyncio.run(main(args.runs, quiet_waits=not args.no_quiet_waits))
