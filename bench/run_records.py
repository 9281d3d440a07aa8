"""Run records (issue 11): what a replay costs the bounded store, and whether concurrent replays of
one skill report what really happened.

    .venv/bin/python bench/run_records.py            # 20 replays for the growth, 8 concurrent replays
    .venv/bin/python bench/run_records.py --quick    # 5 replays, 4 concurrent replays

Both figures use a real skill on a page served from 127.0.0.1 whose button posts the typed quantity to
``/act`` (tests/integration/runs/counting.py): the server's log is what the "business system" saw.

- **store bytes per run**: the store's used bytes (``Store.size()``: pages holding data) grow by this
  much per replay (run row, its audit events, nothing else), after one warm-up replay. Baseline, in
  the same store: the bytes one revision of the same skill takes (what the first version wrote for
  every successful replay). Goal: a run costs no more than that revision; the 32 MiB bound divided
  by it says how many runs fit before ``prune``.
- **concurrent replays: outcomes true**: N ``skillreel replay --json`` processes started together,
  each with its own quantity. A replay's outcome is true when what it reported (``succeeded`` or
  not) matches whether its quantity reached the server, and its run row in the store says the same.
  Goal: N of N (the first version reported ``SR_RECORD_REVISION_CONFLICT`` for most of the ones that
  had acted). Their wall time against one replay alone is printed for information.

Not a test: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import report
from tests.integration.runs.counting import NAME, cli_command, cli_env, counting_skill
from tests.support import factory
from tests.support.server import LocalServer

from skillreel.model import lifecycle
from skillreel.model.limits import MAX_STORE_BYTES
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import AuditNote, Store

COMMAND = "python bench/run_records.py"
TIMEOUT_MS = 30_000


def posted(server: LocalServer) -> list[str]:
    """The quantities that reached the business system, in order."""
    with server._lock:
        pairs = list(zip(server.requests, server.bodies, strict=True))
    return [body.decode() for (method, path), body in pairs if method == "POST" and path == "/act"]


async def one_replay(qty: int) -> str:
    with Store.open() as store:
        request = ReplayRequest(name=NAME, inputs={"qty": str(qty)}, timeout_ms=TIMEOUT_MS)
        outcome = await replay_skill(store, request)
    if outcome.error is not None:
        raise SystemExit(f"replay {qty} failed: {outcome.error.to_json()}")
    return outcome.status


def revision_bytes() -> int:
    """The bytes one more revision of the skill takes: the same skill's draft stored as a second
    skill at ``approved``, then moved to ``validated`` the way the first version did per replay."""
    with Store.open() as store:
        draft = store.get(NAME).draft.evolve(name="revision-baseline")
        entry = lifecycle.new_entry(draft, factory.events_log(), store.now())
        current = factory.store_entry(store, entry, "approved", now=store.now())
        before = store.size().used_bytes
        store.update(
            current.name,
            lambda e: factory.step_replay(e, store.now()),
            AuditNote(kind="validate"),
            expected_revision=current.revision,
        )
        return store.size().used_bytes - before


async def growth(runs: int) -> None:
    await one_replay(0)  # warm-up: the first run creates pages every later run shares
    with Store.open() as store:
        before = store.size().used_bytes
    for qty in range(1, runs + 1):
        await one_replay(qty)
    with Store.open() as store:
        after = store.size()
    per_run = (after.used_bytes - before) / runs
    per_revision = revision_bytes()
    fit = int(MAX_STORE_BYTES // per_run) if per_run > 0 else 0
    report(
        "store bytes per run",
        goal="<= one revision's bytes",
        measured=per_run,
        unit=f"bytes ({fit:,} runs fit in 32 MiB; mean of {runs} replays)",
        baseline=f"one revision ({per_revision:,} bytes)",
        ratio=per_run / per_revision if per_revision else None,
        command=COMMAND,
        met=per_run <= per_revision,
    )


async def cli_replay(home: Path, qty: int) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        *cli_command("replay", NAME, "--input", f"qty={qty}", "--timeout", str(TIMEOUT_MS), "--json"),
        env=cli_env(home),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    out, _ = await proc.communicate()
    try:
        document: dict[str, Any] = json.loads(out)
    except json.JSONDecodeError:
        return {"ok": False, "data": None, "error": {"code": "unreadable output"}}
    return document


async def concurrent(home: Path, server: LocalServer, replays: int) -> None:
    started = time.perf_counter()
    await cli_replay(home, 1000)  # one replay alone: the baseline
    alone = time.perf_counter() - started

    quantities = [2000 + n for n in range(replays)]
    seen_before = len(posted(server))
    started = time.perf_counter()
    results = await asyncio.gather(*(cli_replay(home, qty) for qty in quantities))
    together = time.perf_counter() - started
    reached = set(posted(server)[seen_before:])

    with Store.open() as store:
        runs = {v.record.run_id: v.outcome for v in store.runs(NAME, limit=replays + 50)}
    true = 0
    for qty, result in zip(quantities, results, strict=True):
        data = result.get("data") or {}
        reported = data.get("status")
        acted = str(qty) in reached
        recorded = runs.get(data.get("runId") or "")
        if (reported == "succeeded") == acted and recorded == reported:
            true += 1
        else:
            code = (result.get("error") or {}).get("code")
            sys.stdout.write(f"  qty {qty}: reported {reported} ({code}), acted {acted}, run {recorded}\n")
    report(
        "concurrent replays: outcomes true",
        goal=f"{replays} of {replays}",
        measured=true,
        unit=f"of {replays} replays started together (CLI)",
        baseline="",
        ratio=None,
        command=COMMAND,
        met=true == replays,
    )
    report(
        f"{replays} concurrent replays: wall time",
        goal="information",
        measured=together * 1000,
        unit="ms",
        baseline="one replay alone",
        ratio=together / alone,
        command=COMMAND,
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="5 replays for the growth, 4 concurrent")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="skillreel-bench-runs-") as tmp:
        home = Path(tmp) / "home"
        os.environ["SKILLREEL_HOME"] = str(home)
        os.environ.setdefault("SKILLREEL_STORE_TIMEOUT", "60")
        with LocalServer() as server:
            await counting_skill(server)
            await growth(5 if args.quick else 20)
            await concurrent(home, server, 4 if args.quick else 8)


if __name__ == "__main__":
    asyncio.run(main())
