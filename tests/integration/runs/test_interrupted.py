"""Runs that do not end normally are never lost (issue 11, item 2): a replay killed while it acts
shows as ``interrupted`` (its process is gone) and the next replay records it so; Ctrl-C on the
command line and a cancelled MCP call end the run as ``cancelled``, audited, with the steps that ran.

Every test waits for signals, never for the clock: the page's ``/act`` request is held by the
server until the test has done what it does to the replay (the replay is then acting for sure)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from skillreel.store import RunView, Store
from tests.integration.mcp.client import mcp_session
from tests.integration.runs.counting import NAME, acted, cli_env, counting_skill
from tests.support.cli import cli_command, run_cli
from tests.support.server import Gate, LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIGNAL_WAIT_S = 180  # a bound on waiting for a signal on a loaded machine, never a guess at timing


async def reached(gate: Gate) -> None:
    assert await asyncio.to_thread(gate.reached.wait, SIGNAL_WAIT_S), "the replay never placed the order"


def start_replay(home: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        # fresh: the test signals this process and its group (a fork is in the server's group)
        cli_command("replay", NAME, "--input", "qty=1", "--timeout", "30000", "--json", fresh=True),
        env=cli_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: Chromium goes down with it
    )


async def test_a_killed_replay_shows_as_interrupted_and_the_next_one_records_it(
    server: LocalServer, skillreel_home: Path
) -> None:
    await counting_skill(server)
    gate = server.hold("/act")
    proc = start_replay(skillreel_home)
    try:
        await reached(gate)
        os.killpg(proc.pid, signal.SIGKILL)  # kill -9, mid-run, after it acted
        proc.communicate()
    finally:
        gate.release()
    assert acted(server) == 1
    page = run_cli("runs", NAME, "--json", env={"SKILLREEL_HOME": str(skillreel_home)}).data()
    (run,) = page["runs"]
    assert (run["outcome"], run["code"], run["sideEffects"], run["actor"], run["finishedAt"]) == (
        "interrupted",
        "SR_REPLAY_INTERRUPTED",
        True,
        "cli",
        None,
    )
    with Store.open() as store:
        assert store.runs(NAME)[0].record.outcome == "started"  # nobody has recorded it yet

    server.gates.pop("/act")
    again = run_cli(
        "replay",
        NAME,
        "--input",
        "qty=2",
        "--timeout",
        "30000",
        "--json",
        env={"SKILLREEL_HOME": str(skillreel_home)},
    )
    assert again.exit_code == 0, again.stdout + again.stderr
    with Store.open() as store:
        newest, killed = store.runs(NAME)
        events = [(e.kind, e.outcome, e.run) for e in store.audit_events(NAME) if e.kind == "run-end"]
        assert store.verify_audit().ok
    assert (killed.record.run_id, killed.record.outcome, killed.record.code) == (
        run["runId"],
        "interrupted",
        "SR_REPLAY_INTERRUPTED",
    )
    assert killed.record.finished_at is not None
    assert newest.outcome == "succeeded"
    assert events == [("run-end", "interrupted", run["runId"]), ("run-end", "ok", newest.record.run_id)]


@pytest.mark.usefixtures("ctrl_c_reaches_children")
async def test_ctrl_c_ends_the_run_as_cancelled_with_the_steps_that_ran(
    server: LocalServer, skillreel_home: Path
) -> None:
    await counting_skill(server)
    gate = server.hold("/act")
    proc = start_replay(skillreel_home)
    try:
        await reached(gate)
        os.kill(proc.pid, signal.SIGINT)  # Ctrl-C reaches the skillreel process
        out, err = await asyncio.to_thread(proc.communicate, None, SIGNAL_WAIT_S)
    finally:
        gate.release()
    assert "Traceback" not in err, err
    document = json.loads(out)
    assert (proc.returncode, document["ok"], document["error"]["code"]) == (1, False, "SR_REPLAY_CANCELLED")
    data = document["data"]
    assert (data["status"], data["sideEffects"], data["recorded"]) == ("cancelled", True, True)
    steps = [(s["actionId"], s["status"]) for s in data["steps"]]
    assert steps[:2] == [("a1", "done"), ("a2", "done")]
    assert steps[-1][1] == "failed"  # the step it stopped at (the click, or the check after it)
    with Store.open() as store:
        (view,) = store.runs(NAME)
        end = [e for e in store.audit_events(NAME) if e.kind == "run-end"]
        assert store.verify_audit().ok
    assert (view.record.run_id, view.outcome, view.record.code) == (
        data["runId"],
        "cancelled",
        "SR_REPLAY_CANCELLED",
    )
    assert [(e.outcome, e.code, e.run) for e in end] == [("cancelled", "SR_REPLAY_CANCELLED", data["runId"])]
    assert acted(server) == 1


async def test_a_cancelled_mcp_call_ends_the_run_as_cancelled(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    await counting_skill(server, project_dir=project_dir)
    gate = server.hold("/act")
    try:
        async with mcp_session(skillreel_home, tmp_path / "mcp.log") as session:
            call = asyncio.create_task(session.call("skills_play", {"name": NAME, "inputs": {"qty": "5"}}))
            await reached(gate)
            call.cancel()  # the client gives up: the SDK tells the server the request is cancelled
            with contextlib.suppress(asyncio.CancelledError):
                await call
            view = await asyncio.to_thread(ended, skillreel_home)
    finally:
        gate.release()
    assert (view.outcome, view.record.code, view.record.actor, view.record.side_effects) == (
        "cancelled",
        "SR_REPLAY_CANCELLED",
        "mcp",
        True,
    )
    with Store.open() as store:
        end = [(e.kind, e.outcome, e.actor) for e in store.audit_events(NAME) if e.kind == "run-end"]
        assert store.verify_audit().ok
    assert end == [("run-end", "cancelled", "mcp")]
    assert acted(server) == 1


def ended(home: Path) -> RunView:
    """The run once the server has ended it: polled from the store (the signal is the row changing)."""
    deadline = time.monotonic() + SIGNAL_WAIT_S
    while time.monotonic() < deadline:
        with Store.open(home) as store:
            views = store.runs(NAME)
        if views and views[0].record.outcome != "started":
            return views[0]
        time.sleep(0.1)
    raise AssertionError("the server never ended the cancelled run")
