"""Store scale: time `list`, `show` and `audit --verify` in process at two sizes, and the 10x growth.

    .venv/bin/python bench/store_scale.py            # 1,000 / 10,000 entries, 10,000 / 100,000 events
    .venv/bin/python bench/store_scale.py --quick    # a tenth of that, for a smoke run

Goals (ARCHITECTURE section 8 / issue 2): list 10,000 entries <= 150 ms, verify 100,000 audit events
<= 2 s, growth close to linear. Each figure is the best of several runs of exactly what the verb does
(service call + JSON rendering), on a store seeded through the Store API. Not a test: nothing here
is asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import report
from tests.support import factory

from skillreel.model.policy import Policy, PolicySettings
from skillreel.services.auditing import verify_audit
from skillreel.services.listing import list_skills
from skillreel.services.showing import show_skill
from skillreel.store import AuditNote, Store

GOALS = {"list": 0.150, "verify": 2.0}


def best_of(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def open_store(home: Path) -> Store:
    store = Store.open(home)
    store.set_policy(Policy.from_settings(PolicySettings(max_records=10_000, max_audit_events=100_000)))
    return store


def entries_store(home: Path, count: int) -> Store:
    store = open_store(home)
    for i in range(count):
        store.insert(factory.entry(f"skill-{i:05d}"), AuditNote(kind="record"))
    return store


def events_store(home: Path, count: int) -> Store:
    store = open_store(home)  # the policy change is event 1
    notes = [
        AuditNote(
            kind="replay",
            name=f"skill-{i % 97:05d}",
            revision=1 + i % 5,
            outcome="failed" if i % 3 else "ok",
            code="SR_REPLAY_UI_TIMEOUT" if i % 3 else None,
        )
        for i in range(count - 1)
    ]
    for start in range(0, len(notes), 10_000):
        store.audit_many(notes[start : start + 10_000])
    return store


def measure_entries(root: Path, count: int) -> dict[str, float]:
    with entries_store(root / f"entries-{count}", count) as store:
        name = f"skill-{count // 2:05d}"
        return {
            "list": best_of(7, lambda: json.dumps(list_skills(store).to_json())),
            "show": best_of(7, lambda: json.dumps(show_skill(store, name).to_json())),
        }


def measure_events(root: Path, count: int) -> dict[str, float]:
    with events_store(root / f"events-{count}", count) as store:
        result = verify_audit(store)
        if not result.ok or result.events != count:
            raise SystemExit(f"the seeded chain does not verify: {result}")
        return {"verify": best_of(3, lambda: verify_audit(store))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    entries = (1_000 // scale, 10_000 // scale)
    events = (10_000 // scale, 100_000 // scale)
    with tempfile.TemporaryDirectory(prefix="skillreel-bench-") as tmp:
        root = Path(tmp)
        small_e, large_e = (measure_entries(root, n) for n in entries)
        small_a, large_a = (measure_events(root, n) for n in events)
    rows = [
        ("list", entries, small_e["list"], large_e["list"]),
        ("show", entries, small_e["show"], large_e["show"]),
        ("verify", events, small_a["verify"], large_a["verify"]),
    ]
    print(f"{'operation':<10}{'size':>16}{'small ms':>11}{'large ms':>11}{'10x growth':>12}{'goal':>10}")
    for op, (small_n, large_n), small_t, large_t in rows:
        goal = f"<={GOALS[op] * 1000:.0f} ms" if op in GOALS and not args.quick else ""
        met = "" if not goal else (" ok" if large_t <= GOALS[op] else " MISSED")
        print(
            f"{op:<10}{f'{small_n:,}->{large_n:,}':>16}{small_t * 1000:>11.1f}{large_t * 1000:>11.1f}"
            f"{large_t / small_t:>11.1f}x{goal:>10}{met}"
        )
    command = "python bench/store_scale.py" + (" --quick" if args.quick else "")
    for op, (small_n, large_n), small_t, large_t in rows:
        limit = GOALS.get(op)
        report(
            f"`{op}` at {large_n:,} {'events' if op == 'verify' else 'entries'}",
            goal=f"<= {limit * 1000:.0f} ms, linear" if limit else "flat (reads one entry)",
            measured=large_t * 1000,
            unit="ms",
            baseline=f"{small_n:,} (10x fewer)",
            ratio=large_t / small_t,
            command=command,
            met=None if args.quick or limit is None else large_t <= limit,
        )


if __name__ == "__main__":
    main()
