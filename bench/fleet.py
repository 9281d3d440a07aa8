"""Fleet throughput: `skillreel replay --batch --broker` on 2 local workers against sequential processes.

    .venv/bin/python bench/fleet.py                 # 20 rows: 20 sequential processes, then the fleet
    .venv/bin/python bench/fleet.py --rows 8        # a quicker look

The flow is the issue's reference flow (``bench/_flow.py``: 18 actions over 4 pages on 127.0.0.1).
The bench starts its own ``redis-server`` on a free 127.0.0.1 port (``make bench`` installs it) and
two ``skillreel worker --concurrency 1`` processes, each with its own home (no store) and the
password in its own vault variable, trusting the coordinator's public key. Measured in the same run,
each as whole processes from spawn to exit:

- the baseline: ``skillreel replay pay-invoice --input ... --json`` once per row, one after the other;
- the fleet: ``skillreel replay pay-invoice --batch rows.csv --broker URL --sign KEY --json`` (the
  coordinator signs the bundle, reserves and records every run; the workers were started and warmed
  up beforehand, as a fleet is: their start is not counted, their Chromium launch on the first row
  of each pool process is).

Printed: the fleet's wall time and its throughput ratio to the baseline (baseline time / fleet time).
Two local workers on a 2-core machine share the same cores as the coordinator: the figure shows what
the fleet's protocol costs (broker round trips, signing, verification, recording), not what more
machines add. No goal of its own in the issue; reported as a figure. The load average is printed
too. Not a test.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _flow import NAME, PASSWORD, PASSWORD_ENV, inputs, start_server, store_skill
from _results import report
from tests.support import factory
from tests.support.fleet_rig import fleet_worker, redis_server


def skillreel() -> list[str]:
    script = Path(sys.executable).with_name("skillreel")
    return [str(script)] if script.exists() else [sys.executable, "-m", "skillreel"]


def single_command(row: int) -> list[str]:
    args = [
        item
        for key, value in inputs(row).items()
        if key != "password"
        for item in ("--input", f"{key}={value}")
    ]
    return [*skillreel(), "replay", NAME, *args, "--json"]


def write_rows(path: Path, first: int, rows: int) -> None:
    with path.open("w", newline="", encoding="utf-8") as out:
        names = [k for k in inputs(1) if k != "password"]
        writer = csv.DictWriter(out, fieldnames=names)
        writer.writeheader()
        for row in range(first, first + rows):
            writer.writerow({k: v for k, v in inputs(row).items() if k != "password"})


def timed(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(
            f"{command[1:4]} failed ({done.returncode}): {done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    return elapsed, done.stdout


def main(rows: int) -> None:
    server = start_server()
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        home = base / "home"
        asyncio.run(store_skill(server, home))
        env = {**os.environ, "SKILLREEL_HOME": str(home), PASSWORD_ENV: PASSWORD}
        timed(single_command(0), env)  # warm-up: OS caches, the first (validating) replay
        private, public = factory.write_keys(base, "coordinator")
        load_before = os.getloadavg()[0]
        sequential = 0.0
        for row in range(1, rows + 1):
            sequential += timed(single_command(row), env)[0]
        sys.stdout.write(
            f"  {rows} sequential processes: {sequential:.1f} s (load {os.getloadavg()[0]:.1f})\n"
        )
        worker_env = {PASSWORD_ENV: PASSWORD}
        with (
            redis_server(base / "redis") as broker,
            fleet_worker(broker, trust=[public], home=base / "w1", env=worker_env),
            fleet_worker(broker, trust=[public], home=base / "w2", env=worker_env),
        ):
            fleet = [*skillreel(), "replay", NAME, "--broker", broker, "--sign", str(private), "--json"]
            warm = base / "warm.csv"
            write_rows(warm, 1000, 2)  # each worker's pool process launches its Chromium once
            timed([*fleet, "--batch", str(warm)], env)
            table = base / "rows.csv"
            write_rows(table, 1, rows)
            elapsed, out = timed([*fleet, "--batch", str(table)], env)
            data = json.loads(out)["data"]
            assert data["counts"]["succeeded"] == rows, data["counts"]
        sys.stdout.write(f"  fleet of 2 workers: {elapsed:.1f} s (load {os.getloadavg()[0]:.1f})\n")
        load_after = os.getloadavg()[0]
    server.stop()
    sys.stdout.write(f"  load average (1 min) {load_before:.1f} before, {load_after:.1f} after\n")
    report(
        f"fleet of 2 local workers (Celery + Redis), {rows} rows (18 actions / 4 pages each)",
        goal="(figure; no goal in the issue)",
        measured=elapsed * 1000,
        unit="ms",
        baseline=f"{rows} sequential `skillreel replay` processes {sequential * 1000:.0f} ms",
        ratio=sequential / elapsed,
        command=f"python bench/fleet.py --rows {rows}",
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20)
    args = parser.parse_args()
    main(args.rows)
