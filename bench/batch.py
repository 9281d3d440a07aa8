"""Batch throughput: `skillreel replay --batch` with 1, 2 and 4 workers against sequential processes.

    .venv/bin/python bench/batch.py                 # 40 rows: 40 sequential processes, then batches
    .venv/bin/python bench/batch.py --rows 12       # a quicker look (the goal is stated for 40)

The flow is the issue's reference flow (``bench/_flow.py``: 18 actions over 4 pages on 127.0.0.1), the
password from the vault variable. Measured in the same run, each as whole processes from spawn to exit:

- the baseline: ``skillreel replay pay-invoice --input ... --json`` once per row, one after the other
  (a shell loop over the rows: imports, store, Chromium start and close for every row);
- ``skillreel replay pay-invoice --batch rows.csv --workers N --json`` for N = 4, 2, 1 (one process, one
  Chromium, a fresh context and enforcing proxy per row, N rows at a time).

Printed: each batch's wall time and its throughput ratio to the baseline (baseline time / batch time),
and the CPU-seconds per row of each (every process of the tree, read from ``/proc`` while it runs:
``bench/row_cpu.py``): on 2 cores the batch is CPU-bound, so CPU per row is what sets its throughput.
Goal (issue 14): at least 2.5x with 4 workers on a 2-core machine. The load average is printed too:
under load every figure slows, the ratio is what to compare. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _flow import NAME, PASSWORD, PASSWORD_ENV, inputs, start_server, store_skill
from _results import report
from row_cpu import KINDS, measured

GOAL = 2.5
SAMPLE_S = 0.2  # the CPU figure's sampling period: a sample costs CPU the runs compete for


def skillreel() -> list[str]:
    script = Path(sys.executable).with_name("skillreel")
    return [str(script)] if script.exists() else [sys.executable, "-m", "skillreel"]


def single_command(row: int) -> list[str]:
    args = [item for key, value in inputs(row).items() for item in ("--input", f"{key}={value}")]
    return [*skillreel(), "replay", NAME, *args, "--json"]


def write_rows(path: Path, rows: int) -> None:
    with path.open("w", newline="", encoding="utf-8") as out:
        names = list(inputs(1))
        writer = csv.DictWriter(out, fieldnames=names)
        writer.writeheader()
        for row in range(1, rows + 1):
            writer.writerow(inputs(row))


def timed(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(
            f"{command[1:4]} failed ({done.returncode}): {done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    return elapsed, done.stdout


def cpu_text(by_kind: dict[str, float], rows: int) -> str:
    """CPU-seconds per row, in all and by process kind."""
    parts = " ".join(f"{k} {by_kind[k] / rows:.2f}" for k in KINDS if by_kind.get(k, 0) >= 0.005 * rows)
    return f"CPU {sum(by_kind.values()) / rows:.2f} s/row ({parts})"


def main(rows: int, workers: list[int]) -> None:
    server = start_server()
    with tempfile.TemporaryDirectory() as home:
        asyncio.run(store_skill(server, Path(home)))
        env = {**os.environ, "SKILLREEL_HOME": home, PASSWORD_ENV: PASSWORD}
        timed(single_command(0), env)  # warm-up: OS caches, the first (validating) replay
        table = Path(home) / "rows.csv"
        write_rows(table, rows)
        load_before = os.getloadavg()[0]
        sequential = 0.0
        cpu: dict[str, float] = {}
        for row in range(1, rows + 1):
            elapsed, by_kind, _ = measured(single_command(row), env, sample_s=SAMPLE_S)
            sequential += elapsed
            cpu = {k: cpu.get(k, 0.0) + by_kind.get(k, 0.0) for k in {*cpu, *by_kind}}
        sys.stdout.write(
            f"  {rows} sequential processes: {sequential:.1f} s, {cpu_text(cpu, rows)} "
            f"(load {os.getloadavg()[0]:.1f})\n"
        )
        batches: dict[int, float] = {}
        for n in workers:
            elapsed, by_kind, out = measured(
                [*skillreel(), "replay", NAME, "--batch", str(table), "--workers", str(n), "--json"],
                env,
                sample_s=SAMPLE_S,
            )
            data = json.loads(out)["data"]
            assert data["counts"]["succeeded"] == rows, data["counts"]
            batches[n] = elapsed
            sys.stdout.write(
                f"  --workers {n}: {elapsed:.1f} s, {cpu_text(by_kind, rows)} "
                f"(load {os.getloadavg()[0]:.1f})\n"
            )
        load_after = os.getloadavg()[0]
    server.stop()
    sys.stdout.write(f"  load average (1 min) {load_before:.1f} before, {load_after:.1f} after\n")
    for n in workers:
        ratio = sequential / batches[n]
        report(
            f"batch of {rows} rows (18 actions / 4 pages each), --workers {n}",
            goal=f">= {GOAL}x the throughput of sequential processes" if n == 4 else "(figure)",
            measured=batches[n] * 1000,
            unit="ms",
            baseline=f"{rows} sequential `skillreel replay` processes {sequential * 1000:.0f} ms",
            ratio=ratio,
            command=f"python bench/batch.py --rows {rows}",
            met=ratio >= GOAL if n == 4 else None,
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--workers", type=int, nargs="+", default=[4, 2, 1])
    args = parser.parse_args()
    main(args.rows, args.workers)
