"""MCP start-up: from spawning `skillreel mcp` (stdio) to the `initialize` result, as an agent sees it.

    .venv/bin/python bench/mcp_start.py                 # 5 starts of each, interleaved; medians
    .venv/bin/python bench/mcp_start.py --runs 9
    .venv/bin/python bench/mcp_start.py --before /work/main/.venv/bin/python   # and another checkout's

Each start spawns a new server process with the official SDK's stdio client (as `claude mcp add
skillreel -- skillreel mcp` does), sends `initialize` (``mode="legacy"``: the handshake of the
protocol generations up to 2025-11-25; ``--mode auto`` probes `server/discover` first, as the
SDK's client does by default) and stops the clock at its result; the server is then closed. The
store is an empty home made once; compiled bytecode is kept between starts (``bytecode_env``).
Interleaved with it, in the same loop:

- the floor: a bare server of the same SDK (``FLOOR``: no skillreel, one tool), what importing and
  running the SDK costs before any of skillreel's code;
- the bare interpreter (`python -c pass`);
- with ``--before PYTHON``, `PYTHON -m skillreel mcp` (another checkout's virtual environment:
  the before of a change, measured in the same run).

A loaded machine slows every row; compare them with each other. Goal (issue 29): at most 1 s.
Nothing starts Chromium, Playwright or the replay engine before the first `skills_play`
(tests/integration/mcp/test_start.py checks that through a seam, not a timing). Not a test.
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

from _results import report
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

GOAL_S = 1.0

# The SDK's own floor: a server with one tool and nothing of skillreel, run on stdio.
FLOOR = """
from mcp.server.mcpserver import MCPServer
server = MCPServer("floor", log_level="WARNING")
def ping() -> str:
    return "pong"
server.add_tool(ping, name="ping", description="Answer pong.")
server.run("stdio")
"""


def children_cpu_s() -> float:
    """CPU seconds (user and system) used so far by this process's running children (Linux /proc):
    the server's, read when its ``initialize`` has answered (a figure a loaded machine barely moves,
    unlike the wall time)."""
    ticks = os.sysconf("SC_CLK_TCK")
    used = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended meanwhile
        if int(fields[1]) == os.getpid():  # fields[1] is the parent's pid; [11], [12] utime, stime
            used += int(fields[11]) + int(fields[12])
    return used / ticks


async def initialize(command: list[str], home: Path, mode: str) -> tuple[float, float]:
    """Seconds from spawning the server to the result of its ``initialize`` (or discovery), and the
    CPU seconds the server used for it."""
    params = StdioServerParameters(
        command=command[0],
        args=command[1:],
        env={**bytecode_env(home.parent), "SKILLREEL_HOME": str(home)},
        cwd=str(home),
    )
    with open(os.devnull, "w") as errlog:
        started = time.perf_counter()
        async with Client(stdio_client(params, errlog=errlog), mode=mode) as client:
            elapsed = time.perf_counter() - started
            cpu = children_cpu_s()
            if client.server_capabilities is None:
                raise RuntimeError("the server answered without its capabilities")
    return elapsed, cpu


def bytecode_env(tmp: Path) -> dict[str, str]:
    """This environment with compiled bytecode kept, as a user's installation has it: with
    ``PYTHONDONTWRITEBYTECODE`` set (as in this project's shells) every start would compile each of
    skillreel's modules from source again (~0.3 CPU-s of a replay's imports). Kept under ``tmp``
    (``PYTHONPYCACHEPREFIX``), so no checkout is written to; the warm-up start fills it."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def bare_interpreter(tmp: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], env=bytecode_env(tmp), check=True)
    return time.perf_counter() - started


async def main(runs: int, mode: str, before: str | None) -> None:
    commands = {
        "skillreel mcp": [sys.executable, "-m", "skillreel", "mcp"],
        "bare SDK server": [sys.executable, "-c", FLOOR],
    }
    if before:
        commands["skillreel mcp (--before)"] = [before, "-m", "skillreel", "mcp"]
    samples: dict[str, list[float]] = {name: [] for name in [*commands, "python -c pass"]}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir(mode=0o700)  # the store refuses a home other users can open
        bare_interpreter(home.parent)
        for command in commands.values():  # compiles the bytecode once, warms the OS caches
            await initialize(command, home, mode)
        load_before = os.getloadavg()[0]
        for run in range(runs):
            order = list(commands.items())
            if run % 2:
                order.reverse()
            for name, command in order:
                wall, used = await initialize(command, home, mode)
                samples[name].append(wall)
                cpu[name].append(used)
            samples["python -c pass"].append(bare_interpreter(home.parent))
            shown = ", ".join(f"{name} {values[-1] * 1000:.0f} ms" for name, values in samples.items())
            sys.stdout.write(f"  run {run + 1}: {shown}\n")
        load_after = os.getloadavg()[0]
    medians = {name: statistics.median(values) for name, values in samples.items()}
    sys.stdout.write(f"  load average (1 min) {load_before:.1f} before, {load_after:.1f} after\n")
    for name, median in medians.items():
        used = f", {statistics.median(cpu[name]):.2f} CPU-s" if name in cpu else ""
        sys.stdout.write(f"  median {name}: {median * 1000:.0f} ms{used}\n")
    ours, floor = medians["skillreel mcp"], medians["bare SDK server"]
    report(
        f"MCP `initialize` from spawn (`skillreel mcp`, stdio, mode {mode})",
        goal=f"<= {GOAL_S * 1000:.0f} ms",
        measured=ours * 1000,
        unit="ms",
        baseline=f"a bare server of the same SDK {floor * 1000:.0f} ms",
        ratio=ours / floor,
        command=f"python bench/mcp_start.py --runs {runs} --mode {mode}",
        met=ours <= GOAL_S,
    )
    ours_cpu, floor_cpu = statistics.median(cpu["skillreel mcp"]), statistics.median(cpu["bare SDK server"])
    report(
        f"MCP `initialize`: the server's CPU until it answers (mode {mode})",
        goal="the bare SDK server's",
        measured=ours_cpu,
        unit="CPU-s",
        baseline=f"a bare server of the same SDK {floor_cpu:.2f} CPU-s",
        ratio=ours_cpu / floor_cpu,
        command=f"python bench/mcp_start.py --runs {runs} --mode {mode}",
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--mode", choices=("legacy", "auto"), default="legacy")
    parser.add_argument("--before", metavar="PYTHON", help="also start PYTHON -m skillreel mcp (interleaved)")
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.mode, args.before))
