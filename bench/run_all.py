"""Run every benchmark in bench/ and write bench/RESULTS.md (one table).

Each script prints ``BENCH-RESULT {json}`` lines through ``bench/_results.report``; this runner
shows the scripts' output as it comes, collects those lines and writes the table: figure, goal,
measured, ratio to its baseline (measured in the same run), command to reproduce. Benchmarks are
never part of the test suite (no timed assertions in tests).

    .venv/bin/python bench/run_all.py            # all scripts
    .venv/bin/python bench/run_all.py store_scale cli_cold_start
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
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


def table(rows: list[dict[str, object]], failures: list[str]) -> str:
    lines = [
        "# Benchmark results",
        "",
        f"Written by `bench/run_all.py` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
        f"Python {platform.python_version()}, {platform.machine()}, {platform.system()}. "
        "Ratios compare with a baseline measured in the same run. Figures vary with machine load.",
        "",
        "| figure | goal | measured | ratio to baseline | goal met | command |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        ratio = "" if r["ratio"] is None else f"{r['ratio']}x {r['baseline']}"
        met = {True: "yes", False: "**no**", None: ""}[r["met"]]  # type: ignore[index]
        lines.append(
            f"| {r['figure']} | {r['goal']} | {r['measured']} {r['unit']} | {ratio} | {met} "
            f"| `{r['command']}` |"
        )
    if failures:
        lines += ["", "Scripts that failed: " + ", ".join(failures)]
    return "\n".join(lines) + "\n"


def main() -> int:
    rows: list[dict[str, object]] = []
    failures: list[str] = []
    for script in scripts(sys.argv[1:]):
        sys.stdout.write(f"== {script.name}\n")
        sys.stdout.flush()
        found, status, seconds = run(script)
        rows += found
        if status != 0:
            failures.append(script.name)
        sys.stdout.write(f"== {script.name}: exit {status}, {len(found)} figure(s), {seconds:.0f} s\n")
    (BENCH / "RESULTS.md").write_text(table(rows, failures), encoding="utf-8")
    sys.stdout.write(f"wrote bench/RESULTS.md ({len(rows)} figures)\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
