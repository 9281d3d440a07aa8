"""Run every benchmark in bench/ and write bench/RESULTS.md (one table).

Each script prints ``BENCH-RESULT {json}`` lines through ``bench/_results.report``; this runner
shows the scripts' output as it comes, collects those lines and writes the table: figure, goal,
measured, ratio to its baseline (measured in the same run), command to reproduce. Benchmarks are
never part of the test suite (no timed assertions in tests).

    .venv/bin/python bench/run_all.py            # all scripts
    .venv/bin/python bench/run_all.py store_scale cli_cold_start

With scripts named, only their figures are replaced; the other rows of bench/RESULTS.md stay.
Each row says the machine's 1-minute load average when it was measured (2 cores: above 2, both
sides of a ratio are slowed, and the ratio is what to compare).
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

BENCH = Path(__file__).resolve().parent
MARK = "BENCH-RESULT "


def scripts(selected: list[str]) -> list[Path]:
    found = sorted(p for p in BENCH.glob("*.py") if not p.name.startswith("_") and p.name != "run_all.py")
    if selected:
        found = [p for p in found if p.stem in selected]
    return found


def run(script: Path) -> tuple[list[dict[str, object]], int, float]:
    rows: list[dict[str, object]] = []
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=BENCH.parent
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith(MARK):
            rows.append(json.loads(line[len(MARK) :]))
        else:
            sys.stdout.write("  " + line)
    return rows, proc.wait(), time.monotonic() - started


def kept_rows(rerun: list[Path]) -> list[str]:
    """The table lines of bench/RESULTS.md whose script is not being run again."""
    path = BENCH / "RESULTS.md"
    if not path.exists():
        return []
    names = {f"bench/{p.name}" for p in rerun}
    lines = path.read_text(encoding="utf-8").splitlines()
    rows = [line for line in lines if line.startswith("| ") and "`python bench/" in line]
    kept = [line for line in rows if not any(f"`python {name}" in line for name in names)]
    return [line if line.count(" | ") >= 6 else line[:-1] + "|  |" for line in kept]


def table(rows: list[dict[str, object]], failures: list[str], kept: Sequence[str] = ()) -> str:
    lines = [
        "# Benchmark results",
        "",
        f"Written by `bench/run_all.py` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
        f"Python {platform.python_version()}, {platform.machine()}, {platform.system()}. "
        "Ratios compare with a baseline measured in the same run. Figures vary with machine load.",
        "",
        "| figure | goal | measured | ratio to baseline | goal met | command | load |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *kept,
    ]
    for r in rows:
        ratio = "" if r["ratio"] is None else f"{r['ratio']}x {r['baseline']}"
        met = {True: "yes", False: "**no**", None: ""}[r["met"]]  # type: ignore[index]
        lines.append(
            f"| {r['figure']} | {r['goal']} | {r['measured']} {r['unit']} | {ratio} | {met} "
            f"| `{r['command']}` | {r.get('load', '')} |"
        )
    if failures:
        lines += ["", "Scripts that failed: " + ", ".join(failures)]
    return "\n".join(lines) + "\n"


def main() -> int:
    rows: list[dict[str, object]] = []
    failures: list[str] = []
    selected = scripts(sys.argv[1:])
    kept = kept_rows(selected) if sys.argv[1:] else []
    for script in selected:
        sys.stdout.write(f"== {script.name}\n")
        sys.stdout.flush()
        found, status, seconds = run(script)
        rows += found
        if status != 0:
            failures.append(script.name)
        sys.stdout.write(f"== {script.name}: exit {status}, {len(found)} figure(s), {seconds:.0f} s\n")
    (BENCH / "RESULTS.md").write_text(table(rows, failures, kept), encoding="utf-8")
    sys.stdout.write(f"wrote bench/RESULTS.md ({len(rows)} figures)\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
