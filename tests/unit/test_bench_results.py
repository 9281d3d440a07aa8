"""bench/run_all.py writes bench/RESULTS.md: the table from the figures, the notes kept."""

from __future__ import annotations

from bench import run_all

OLD = """# Benchmark results

Written by `bench/run_all.py` on 2026-12-01 13:24 UTC.

| figure | goal | measured | ratio to baseline | goal met | command | load |
| --- | --- | --- | --- | --- | --- | --- |
| page load | <= 1.25x bare | 817.2 ms | 0.52x bare | yes | `python bench/proxy_overhead.py` |  |
| cold start | <= 250 ms | 40.24 ms | 4.33x python -c pass | yes | `python bench/cli_cold_start.py` |  |

Scripts that failed: fleet.py

Notes (written by hand):

1. A note
   | with a table row inside it |

| a table of the notes' own | `python bench/x.py` |
"""

ROW: dict[str, object] = {
    "figure": "page load",
    "goal": "<= 1.25x bare Chromium",
    "measured": 867.18,
    "unit": "ms",
    "ratio": 0.55,
    "baseline": "bare Chromium",
    "met": True,
    "command": "python bench/proxy_overhead.py",
    "load": 1.2,
}


def test_the_notes_after_the_table_are_kept_and_the_old_failure_line_is_not() -> None:
    notes = run_all.kept_notes(OLD)
    assert notes == [
        "Notes (written by hand):",
        "",
        "1. A note",
        "   | with a table row inside it |",
        "",
        "| a table of the notes' own | `python bench/x.py` |",
    ]
    written = run_all.table([ROW], [], ["| cold start | ... |"], notes)
    assert written.endswith("\n".join(notes) + "\n")
    assert "817.2 ms" not in written
    assert "867.18 ms" in written
    assert "Scripts that failed" not in written
    assert written.index("| cold start") < written.index("| page load") < written.index("Notes")


def test_a_file_without_a_table_keeps_nothing() -> None:
    assert run_all.kept_notes("# Benchmark results\n\nnothing yet\n") == []
