"""CLI cold start: `skillreel --help` and `skillreel list` against `python -c pass`, interleaved.

Goals (issue 6): `--help` within 250 ms and `list` within 400 ms. Heavy libraries (Playwright, rich,
the MCP SDK) are imported lazily so these stay fast. Prints medians and the ratio to the bare
interpreter start measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import report


def _time(cmd: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "SKILLREEL_HOME": home}
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "skillreel --help": [sys.executable, "-m", "skillreel", "--help"],
            "skillreel list": [sys.executable, "-m", "skillreel", "list"],
        }
        _time(commands["skillreel list"], env)  # creates the store once, warms the OS caches
        samples: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, cmd in commands.items():
                samples[name].append(_time(cmd, env))
    base = statistics.median(samples["python -c pass"])
    command = f"{Path(sys.executable).name} bench/cli_cold_start.py --runs {args.runs}"
    report(
        "interpreter start (`python -c pass`)",
        goal="baseline",
        measured=base,
        unit="ms",
        baseline="itself",
        ratio=1.0,
        command=command,
    )
    for name, goal in (("skillreel --help", 250.0), ("skillreel list", 400.0)):
        median = statistics.median(samples[name])
        report(
            f"cold start `{name}`",
            goal=f"<= {goal:.0f} ms",
            measured=median,
            unit="ms",
            baseline="python -c pass",
            ratio=median / base,
            command=command,
            met=median <= goal,
        )


if __name__ == "__main__":
    main()
