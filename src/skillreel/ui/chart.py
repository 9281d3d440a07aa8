"""The runs chart of the review page, laid out in Python (pure) and drawn by the template as SVG.

Each run is a mark on a time axis: successes on the upper line, failures on the lower one, spread by
their time (evenly when all share one second). Only times, outcomes and codes are used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

WIDTH = 640
HEIGHT = 120
PAD = 24


@dataclass(frozen=True)
class Mark:
    x: float
    y: float
    ok: bool
    title: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    marks: tuple[Mark, ...]
    ok_y: float
    failed_y: float
    first: str | None
    last: str | None
    succeeded: int
    failed: int


def _seconds(at: str) -> float:
    return datetime.strptime(at, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()


def run_chart(
    runs: Sequence[tuple[str, bool, str | None]], width: int = WIDTH, height: int = HEIGHT
) -> Chart:
    """``runs``: (time, succeeded, code) oldest first."""
    ok_y, failed_y = PAD, height - PAD
    span = width - 2 * PAD
    times = [_seconds(at) for at, _, _ in runs]
    lo, hi = (min(times), max(times)) if times else (0.0, 0.0)
    marks = []
    for i, (at, ok, code) in enumerate(runs):
        share = (times[i] - lo) / (hi - lo) if hi > lo else (i + 0.5) / len(runs)
        x = PAD + span * share
        title = f"{at} {'succeeded' if ok else 'failed'}" + (f" {code}" if code else "")
        marks.append(Mark(round(x, 1), ok_y if ok else failed_y, ok, title))
    return Chart(
        width=width,
        height=height,
        marks=tuple(marks),
        ok_y=ok_y,
        failed_y=failed_y,
        first=runs[0][0] if runs else None,
        last=runs[-1][0] if runs else None,
        succeeded=sum(1 for _, ok, _ in runs if ok),
        failed=sum(1 for _, ok, _ in runs if not ok),
    )
