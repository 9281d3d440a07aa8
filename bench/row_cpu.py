"""CPU-seconds per batch row, by process kind: `skillreel replay --batch` against a hand-written
Playwright batch (one Chromium, a fresh context per row, the same 18 actions), interleaved.

    .venv/bin/python bench/row_cpu.py                        # 8 rows, --workers 4, 3 interleaved pairs
    .venv/bin/python bench/row_cpu.py --rows 12 --pairs 5 --workers 2
    .venv/bin/python bench/row_cpu.py --sequential 3         # also 3 single `skillreel replay` processes

On a 2-core machine the batch is CPU-bound (a row keeps both cores busy), so its throughput is the
CPU it costs per row: this is the figure to cut. Each run is a whole process, from spawn to exit;
the CPU of every process of its tree is read from ``/proc/PID/stat`` (user + system time) every
50 ms while it runs, and the last reading per process is kept (a process that exits between two
readings loses at most 50 ms of its CPU: the figure is a slight underestimate). The kinds: our
``python`` process, the Playwright ``driver`` (Node.js), Chromium's ``browser`` process, its
``renderer``, ``gpu``, ``utility`` and ``zygote`` processes. (``getrusage(RUSAGE_CHILDREN)`` would
miss most of it: Chromium's processes are not all waited for by their parents.)

The flow and its pages are ``bench/_flow.py``'s (127.0.0.1). The load average is printed with every
pair: under load each figure is noisier, CPU-seconds far less than wall time. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
SAMPLE_S = 0.05
KINDS = ("python", "driver", "browser", "renderer", "gpu", "utility", "zygote", "crashpad", "other")


def _parents() -> dict[int, list[int]]:
    children: dict[int, list[int]] = collections.defaultdict(list)
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as stat:
                text = stat.read()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        children[int(fields[1])].append(int(name))
    return children


def _tree(root: int) -> list[int]:
    children = _parents()
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def _kind(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            argv = cmdline.read().split(b"\0")
    except OSError:
        return None
    line = b" ".join(argv)
    if not line.strip(b"\0 "):
        return None  # exiting (a zombie has no command line): keep the kind seen before
    for kind in ("renderer", "gpu-process", "utility", "zygote"):
        if f"--type={kind}".encode() in line:
            return kind.removesuffix("-process")
    if b"crashpad" in argv[0]:
        return "crashpad"
    if b"chrom" in argv[0]:
        return "browser"
    if b"node" in argv[0]:
        return "driver"
    if b"python" in argv[0] or b"skillreel" in line:
        return "python"
    return "other"


def _cpu(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            text = stat.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def measured(
    command: list[str], env: dict[str, str], *, sample_s: float = SAMPLE_S
) -> tuple[float, dict[str, float], str]:
    """Run ``command`` (it must succeed); its wall time, CPU-seconds by kind (sampled every
    ``sample_s``: one sample costs ~10 ms of CPU under load, so a throughput figure samples less
    often), its stdout."""
    started = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    last: dict[int, tuple[str, float]] = {}
    # Chromium's kinds do not change once seen, but for the zygote's: a process it forks shows the
    # zygote's command line until it takes its own
    stable: dict[int, str] = {}
    while proc.poll() is None:
        for pid in _tree(proc.pid):
            cpu = _cpu(pid)
            # the latest kind: a process forked to exec shows its parent's command line at first
            kind = stable.get(pid) or _kind(pid) or last.get(pid, ("other", 0.0))[0]
            if kind in ("browser", "renderer", "gpu", "utility"):
                stable[pid] = kind
            if cpu is not None:
                last[pid] = (kind, cpu)
        time.sleep(sample_s)
    out, err = proc.communicate()
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"{command[1:4]} failed ({proc.returncode}): {out[-2000:]!r}{err[-2000:]!r}")
    by_kind: dict[str, float] = collections.Counter()
    for kind, cpu in last.values():
        by_kind[kind] += cpu
    return wall, dict(by_kind), out.decode()


def skillreel() -> list[str]:
    script = Path(sys.executable).with_name("skillreel")
    return [str(script)] if script.exists() else [sys.executable, "-m", "skillreel"]


async def playwright_batch(base: str, rows: int, workers: int, chromium: str) -> None:
    """The hand-written batch: one Chromium, a fresh context per row, ``workers`` rows at a time."""
    from _flow_baseline import baseline_steps, chromium_args, inputs
    from playwright.async_api import async_playwright

    password = os.environ["SKILLREEL_SECRET_PAY_INVOICE_PASSWORD"]
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=chromium, args=chromium_args() + os.environ.get("SR_XARGS_EXPERIMENT", "").split()
        )
        queue = list(range(rows, 0, -1))

        async def worker() -> None:
            while queue:
                row = queue.pop()
                context = await browser.new_context()
                page = await context.new_page()
                await baseline_steps(page, base, inputs(row), password)
                await context.close()

        await asyncio.gather(*(worker() for _ in range(workers)))
        await browser.close()


def show(label: str, rows: int, wall: float, by_kind: dict[str, float]) -> float:
    total = sum(by_kind.values()) / rows
    parts = " ".join(f"{k} {by_kind[k] / rows:.2f}" for k in KINDS if by_kind.get(k))
    sys.stdout.write(
        f"  {label:22s} wall {wall:6.1f} s  CPU/row {total:.2f} s ({parts})  load {os.getloadavg()[0]:.1f}\n"
    )
    sys.stdout.flush()
    return total


def main(rows: int, workers: int, pairs: int, sequential: int) -> None:
    from _flow import NAME, PASSWORD, PASSWORD_ENV, inputs, start_server, store_skill

    from skillreel.sandbox.chromium import find_chromium

    chromium = str(find_chromium(headless=True))
    server = start_server()
    figures: dict[str, list[float]] = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as home:
        asyncio.run(store_skill(server, Path(home)))
        env = {**os.environ, "SKILLREEL_HOME": home, PASSWORD_ENV: PASSWORD}
        table = Path(home) / "rows.csv"
        with table.open("w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, fieldnames=list(inputs(1)))
            writer.writeheader()
            for row in range(1, rows + 1):
                writer.writerow(inputs(row))
        ours = [*skillreel(), "replay", NAME, "--batch", str(table), "--workers", str(workers), "--json"]
        theirs = [
            sys.executable,
            __file__,
            "--playwright-batch",
            server.origin,
            str(rows),
            str(workers),
            chromium,
        ]
        subprocess.run(ours, env=env, capture_output=True, check=False)  # warm-up: caches, validation
        sys.stdout.write(f"{rows} rows, --workers {workers}, load {os.getloadavg()[0]:.1f}\n")
        for _pair in range(pairs):
            for label, command in (("skillreel --batch", ours), ("playwright batch", theirs)):
                wall, by_kind, _ = measured(command, env)
                figures[label].append(show(label, rows, wall, by_kind))
        for run in range(sequential):
            args = [item for key, value in inputs(run + 1).items() for item in ("--input", f"{key}={value}")]
            wall, by_kind, _ = measured([*skillreel(), "replay", NAME, *args, "--json"], env)
            figures["skillreel replay (1)"].append(show("skillreel replay (1)", 1, wall, by_kind))
    server.stop()
    sys.stdout.write("medians, CPU-seconds per row:\n")
    for label, values in figures.items():
        sys.stdout.write(
            f"  {label:22s} {statistics.median(values):.2f} s  {json.dumps([round(v, 2) for v in values])}\n"
        )
    if "playwright batch" in figures:
        ratio = statistics.median(figures["skillreel --batch"]) / statistics.median(
            figures["playwright batch"]
        )
        sys.stdout.write(f"  skillreel --batch / playwright batch: {ratio:.2f}x\n")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--playwright-batch":
        base, count, concurrency, executable = sys.argv[2:6]
        asyncio.run(playwright_batch(base, int(count), int(concurrency), executable))
        sys.exit(0)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=8)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--sequential", type=int, default=0)
    args = parser.parse_args()
    main(args.rows, args.workers, args.pairs, args.sequential)
