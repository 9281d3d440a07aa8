"""Concurrent replays of one skill report what really happened (issue 11, item 1): 8 replays started
together, from the command line and over MCP, against a page that counts the orders placed: 8 orders,
8 ``succeeded``, 8 runs recorded with their actors, no new revision, and the audit chain verifies.
(Before runs existed, each success wrote a revision with a compare-and-set: all of them acted and
most reported ``SR_RECORD_REVISION_CONFLICT``.)"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from skillreel.store import Store
from tests.integration.mcp.client import envelope, mcp_session
from tests.integration.runs.counting import NAME, STEPS, acted, cli_env, counting_skill
from tests.support.cli import cli_command
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CLI_REPLAYS = 4
MCP_SESSIONS = 2
PLAYS_PER_SESSION = 2


async def cli_replay(home: Path, qty: int) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        *cli_command("replay", NAME, "--input", f"qty={qty}", "--timeout", "30000", "--json"),
        env=cli_env(home),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    assert b"Traceback" not in err, err.decode()
    document: dict[str, Any] = json.loads(out)
    return document


async def mcp_plays(home: Path, log: Path, first: int) -> list[dict[str, Any]]:
    async with mcp_session(home, log) as session:
        results = await asyncio.gather(
            *(
                session.call("skills_play", {"name": NAME, "inputs": {"qty": str(first + i)}})
                for i in range(PLAYS_PER_SESSION)
            )
        )
    return [envelope(r) for r in results]


async def test_eight_concurrent_replays_act_eight_times_and_say_so(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    await counting_skill(server, project_dir=project_dir)  # enabled: MCP may play it
    with Store.open() as store:
        before = store.get(NAME)
    server.requests.clear()

    jobs = [cli_replay(skillreel_home, qty) for qty in range(CLI_REPLAYS)]
    sessions = [
        mcp_plays(skillreel_home, tmp_path / f"mcp-{n}.log", 100 + n * PLAYS_PER_SESSION)
        for n in range(MCP_SESSIONS)
    ]
    cli_results, *mcp_results = await asyncio.gather(asyncio.gather(*jobs), *sessions)
    results = [*cli_results, *(e for session in mcp_results for e in session)]

    total = CLI_REPLAYS + MCP_SESSIONS * PLAYS_PER_SESSION
    assert total == 8
    assert acted(server) == total  # what the site saw
    assert [(r["ok"], r["data"]["status"]) for r in results] == [(True, "succeeded")] * total, [
        r["error"] for r in results
    ]
    assert all(r["warnings"] == [] and r["data"]["recorded"] for r in results)
    assert all([s["actionId"] for s in r["data"]["steps"]] == STEPS for r in results)
    assert len({r["data"]["runId"] for r in results}) == total
    assert {r["data"]["revision"] for r in results} == {before.revision}

    with Store.open() as store:
        after = store.get(NAME)
        runs = store.runs(NAME, limit=100)
        verification = store.verify_audit().to_json()
        events = store.audit_events(NAME)
    assert after == before  # runs are records, not revisions
    assert sorted(v.record.run_id for v in runs) == sorted(r["data"]["runId"] for r in results)
    assert [v.outcome for v in runs] == ["succeeded"] * total
    assert sorted(v.record.actor for v in runs) == ["cli"] * CLI_REPLAYS + ["mcp"] * (total - CLI_REPLAYS)
    assert all(v.record.report_digest is not None and v.record.steps_acted == 2 for v in runs)
    run_events = [(e.kind, e.outcome, e.actor) for e in events if e.kind in ("run-start", "run-end")]
    assert sorted(run_events) == sorted(
        [("run-start", "ok", a) for a in ("cli",) * CLI_REPLAYS + ("mcp",) * (total - CLI_REPLAYS)]
        + [("run-end", "ok", a) for a in ("cli",) * CLI_REPLAYS + ("mcp",) * (total - CLI_REPLAYS)]
    )
    assert verification == {"ok": True, "events": verification["events"], "brokenAt": None}
