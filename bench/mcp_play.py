"""Warm MCP play: one `skills_play` call to a running `skillreel mcp` against the steps of the
hand-written Playwright script, runs interleaved.

    .venv/bin/python bench/mcp_play.py             # 9 interleaved pairs
    .venv/bin/python bench/mcp_play.py --pairs 5

The flow is the issue's reference flow (``bench/_flow.py``: 18 actions over 4 pages). The server is
started once with the official SDK's stdio client, as an agent would; a first play starts its warm
Chromium (not measured). Each measured play is the whole tool call as the client sees it: the
request check, pre-flight, a fresh isolated context behind a fresh enforcing proxy, every step
with resolution, verification, evidence and network checks, the report and the store update, the
result envelope. The baseline is the hand-written script's 18 actions (``bench/_flow_baseline.py``)
in a fresh context of a Chromium already running in this process: the steps only.

Printed: the medians and their ratio. Goal (issue 14): at most 1.2x. The load average is printed
too: on a loaded machine both sides slow down, the ratio is what to compare. Not a test.
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
from _results import report
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from playwright.async_api import Browser, async_playwright

from skillreel.sandbox.chromium import find_chromium
from skillreel.services.agent_access import confirm_enabled_skill
from skillreel.services.packaging import enable_skill
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import Store

GOAL = 1.2


async def prepare(server: Any, home: Path) -> None:
    """The reference skill, validated by one replay and enabled (what `skills_play` serves)."""
    await store_skill(server, home)
    with Store.open(home) as store:
        outcome = await replay_skill(store, ReplayRequest(name=NAME, inputs=inputs(0)))
        if outcome.error is not None:
            raise RuntimeError(f"the validating replay failed: {outcome.error.code}")
        enable_skill(
            store, NAME, "project", home / "project", approve=True, expected_revision=store.get(NAME).revision
        )
        confirm_enabled_skill(store, NAME, approve=True)  # a person confirmed agent plays


async def play(client: Client, run: int) -> float:
    started = time.perf_counter()
    result = await client.call_tool("skills_play", {"name": NAME, "inputs": inputs(run)})
    elapsed = time.perf_counter() - started
    if result.is_error:
        raise RuntimeError(f"skills_play failed: {result.structured_content}")
    return elapsed


async def hand_written(browser: Browser, base: str, run: int) -> float:
    context = await browser.new_context()
    try:
        page = await context.new_page()
        started = time.perf_counter()
        await baseline_steps(page, base, inputs(run), PASSWORD)
        return time.perf_counter() - started
    finally:
        await context.close()


async def main(pairs: int) -> None:
    server = start_server()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir(mode=0o700)  # the store refuses a home other users can open
        (home / "project").mkdir()
        os.environ["SKILLREEL_HOME"] = str(home)
        os.environ[PASSWORD_ENV] = PASSWORD
        await prepare(server, home)
        params = StdioServerParameters(
            # the password again: the validating replay above sealed it out of this environment
            command=sys.executable,
            args=["-m", "skillreel", "mcp"],
            env={**os.environ, PASSWORD_ENV: PASSWORD},
            cwd=str(home),
        )
        ours: list[float] = []
        theirs: list[float] = []
        with open(os.devnull, "w") as errlog:
            async with (
                Client(stdio_client(params, errlog=errlog)) as client,
                async_playwright() as pw,
            ):
                browser = await pw.chromium.launch(
                    executable_path=str(find_chromium(headless=True)), args=chromium_args()
                )
                await play(client, 0)  # starts the warm Chromium
                await hand_written(browser, server.origin, 0)
                load_before = os.getloadavg()[0]
                for run in range(1, pairs + 1):
                    if run % 2:
                        ours.append(await play(client, run))
                        theirs.append(await hand_written(browser, server.origin, run))
                    else:
                        theirs.append(await hand_written(browser, server.origin, run))
                        ours.append(await play(client, run))
                    sys.stdout.write(
                        f"  pair {run}: skills_play {ours[-1]:.2f} s, playwright steps {theirs[-1]:.2f} s\n"
                    )
                load_after = os.getloadavg()[0]
                await browser.close()
    server.stop()
    a, b = statistics.median(ours), statistics.median(theirs)
    sys.stdout.write(f"  load average (1 min) {load_before:.1f} before, {load_after:.1f} after\n")
    report(
        "warm MCP `skills_play`, 18 actions / 4 pages",
        goal=f"<= {GOAL}x the hand-written script's steps",
        measured=a * 1000,
        unit="ms",
        baseline=f"Playwright steps {b * 1000:.0f} ms",
        ratio=a / b,
        command=f"python bench/mcp_play.py --pairs {pairs}",
        met=a / b <= GOAL,
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=9)
    args = parser.parse_args()
    asyncio.run(main(args.pairs))
