"""How a benchmark reports a figure to `bench/run_all.py` (and to a person reading its output).

    from _results import report
    report("list 10,000 entries", goal="<= 150 ms", measured=82.1, unit="ms",
           baseline="1,000 entries", ratio=9.6, command="python bench/store_scale.py")

Each call prints one human line and one machine line (``BENCH-RESULT {json}``) that the runner
collects into bench/RESULTS.md. Benchmarks are never run by the test suite.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def report(
    figure: str,
    *,
    goal: str,
    measured: float,
    unit: str,
    baseline: str,
    ratio: float | None,
    command: str,
    met: bool | None = None,
) -> None:
    row: dict[str, Any] = {
        "figure": figure,
        "goal": goal,
        "measured": round(measured, 2),
        "unit": unit,
        "baseline": baseline,
        "ratio": None if ratio is None else round(ratio, 2),
        "command": command,
        "met": met,
        "load": round(os.getloadavg()[0], 1),  # the machine's 1-minute load average when measured
    }
    shown_ratio = "" if ratio is None else f", {ratio:.2f}x {baseline}"
    verdict = "" if met is None else (" [goal met]" if met else " [goal NOT met]")
    sys.stdout.write(f"{figure}: {measured:.2f} {unit} (goal {goal}{shown_ratio}){verdict}\n")
    sys.stdout.write("BENCH-RESULT " + json.dumps(row) + "\n")
    sys.stdout.flush()
