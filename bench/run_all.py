"""Run every benchmark in bench/ and write bench/RESULTS.md (one table).

Each script prints ``BENCH-RESULT {json}`` lines through ``bench/_results.report``; this runner
shows the scripts' output as it comes, collects those lines and writes the table: figure, goal,
measured, ratio to its baseline (measured in the same run), command to reproduce. Benchmarks are
never part of the test suite (no timed assertions in tests).

    .venv/bin/python bench/run_all.py            # all scripts
    .venv/bin/python bench/run_all.py store_scale cli_cold_start

With scripts named, only their figures are replaced; the other rows of bench/RESULTS.md stay. The
notes after the table (written by hand) always stay.
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
    rows = [line for line in table_lines(path.read_text(encoding="utf-8")) if "`python bench/" in line]
    kept = [line for line in rows if not any(f"`python {name}" in line for name in names)]
    return [line if line.count(" | ") >= 6 else line[:-1] + "|  |" for line in kept]


def _table_span(lines: list[str]) -> tuple[int, int]:
    """Where the figures' table is: the first run of lines that begin with ``| `` (a table inside
    the notes is theirs)."""
    start = next((i for i, line in enumerate(lines) if line.startswith("| ")), len(lines))
    end = start
    while end < len(lines) and lines[end].startswith("| "):
        end += 1
    return start, end


def table_lines(text: str) -> list[str]:
    lines = text.splitlines()
    start, end = _table_span(lines)
    return lines[start:end]


def kept_notes(text: str) -> list[str]:
    """What bench/RESULTS.md says after its table (the notes, written by hand): every line after
    the table, but the line a run writes itself (the scripts that failed)."""
    lines = text.splitlines()
    start, end = _table_span(lines)
    if start == end:
        return []
    after = lines[end:]
    notes = [line for line in after if not line.startswith("Scripts that failed: ")]
    while notes and not notes[0].strip():
        notes.pop(0)
    return notes


def table(
    rows: list[dict[str, object]],
    failures: list[str],
    kept: Sequence[str] = (),
    notes: Sequence[str] = (),
) -> str:
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
    if notes:
        lines += ["", *notes]
    return "\n".join(lines).rstrip("\n") + "\n"


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
    path = BENCH / "RESULTS.md"
    notes = kept_notes(path.read_text(encoding="utf-8")) if path.exists() else []
    path.write_text(table(rows, failures, kept, notes), encoding="utf-8")
    sys.stdout.write(f"wrote bench/RESULTS.md ({len(rows)} figures)\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
