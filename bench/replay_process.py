"""Whole-process replay: `skillreel replay` against a hand-written Playwright script, as processes.

    .venv/bin/python bench/replay_process.py             # 9 interleaved pairs
    .venv/bin/python bench/replay_process.py --pairs 5

The flow is the issue's reference flow (``bench/_flow.py``: 18 actions over 4 pages on 127.0.0.1).
Each pair starts both as fresh processes, in alternating order, and times them from spawn to exit:

- ``skillreel replay pay-invoice --input ... --json`` (the console script): imports, store, pre-flight,
  the enforcing proxy, Chromium, every step with isolated-world resolution, verification, evidence
  and network checks, the report and the store update; the password comes from the vault variable;
- ``python bench/_flow_baseline.py``: the same 18 actions in plain Playwright, the same Chromium,
  headless, no proxy and no request routing (see that file).

Printed: the medians and their ratio. Goal (issue 14): at most 1.10x. The machine's load average is
printed too: on a loaded machine both sides slow down, the ratio is what to compare. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _flow import NAME, PASSWORD, PASSWORD_ENV, inputs, start_server, store_skill
from _results import report

from skillreel.sandbox.browser import find_chromium

GOAL = 1.10
BENCH = Path(__file__).resolve().parent


def skillreel_command(run: int) -> list[str]:
    script = Path(sys.executable).with_name("skillreel")
    head = [str(script)] if script.exists() else [sys.executable, "-m", "skillreel"]
    args = [item for key, value in inputs(run).items() for item in ("--input", f"{key}={value}")]
    return [*head, "replay", NAME, *args, "--json"]


def baseline_command(base: str, run: int) -> list[str]:
    return [sys.executable, str(BENCH / "_flow_baseline.py"), base, str(run), str(find_chromium())]


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(
            f"{command[1]} failed ({done.returncode}): {done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    return elapsed


def main(pairs: int) -> None:
    server = start_server()
    base = server.origin
    with tempfile.TemporaryDirectory() as home:
        asyncio.run(store_skill(server, Path(home)))
        env = {**os.environ, "SKILLREEL_HOME": home, PASSWORD_ENV: PASSWORD}
        timed(skillreel_command(0), env)  # warm-up: OS caches, the first (validating) replay
        timed(baseline_command(base, 0), env)
        ours: list[float] = []
        theirs: list[float] = []
        load_before = os.getloadavg()[0]
        for run in range(1, pairs + 1):
            jobs = [("skillreel", skillreel_command(run)), ("playwright", baseline_command(base, run))]
            for label, command in jobs if run % 2 else reversed(jobs):
                (ours if label == "skillreel" else theirs).append(timed(command, env))
            sys.stdout.write(f"  pair {run}: skillreel {ours[-1]:.2f} s, playwright {theirs[-1]:.2f} s\n")
        load_after = os.getloadavg()[0]
    server.stop()
    a, b = statistics.median(ours), statistics.median(theirs)
    sys.stdout.write(f"  load average (1 min) {load_before:.1f} before, {load_after:.1f} after\n")
    report(
        "`skillreel replay` process, 18 actions / 4 pages",
        goal=f"<= {GOAL}x hand-written Playwright process",
        measured=a * 1000,
        unit="ms",
        baseline=f"Playwright script process {b * 1000:.0f} ms",
        ratio=a / b,
        command=f"python bench/replay_process.py --pairs {pairs}",
        met=a / b <= GOAL,
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=9)
    args = parser.parse_args()
    main(args.pairs)
