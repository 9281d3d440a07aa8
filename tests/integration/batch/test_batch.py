"""Batch replay on one machine (issue 14, item 3): rows of inputs on N contexts of one Chromium,
every row a run of the replay use case with its own audit events, on a page that counts what the
replays really did (tests/integration/runs/counting.py: each order placed is a POST to ``/act``).

Every wait is for a signal from the code under test (the server holding ``/act`` after k orders),
never for the clock."""

from __future__ import annotations

import asyncio
import csv
import json
import os
import re
import shlex
import signal
import subprocess
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree

import pytest

from skillreel.errors import ReplayError
from skillreel.sandbox.warm import WarmBrowser
from skillreel.services.batching import BatchOutcome, BatchRequest, RowResult, plan_batch, replay_batch
from skillreel.services.preflight import ReplayRequest
from skillreel.store import Store
from tests.integration.runs.counting import NAME, PAGE, acted, cli_env, counting_skill
from tests.support.cli import cli_command, run_cli
from tests.support.readback import sql
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIGNAL_WAIT_S = 180  # a bound on waiting for a signal on a loaded machine, never a guess at timing
# The same page, except that the quantity "fail" places no order: the click asks a host off the
# allowlist instead, so that row fails at once (SR_REPLAY_UI_NETWORK_DENIED; an assertion that
# does not hold would wait out the whole step timeout first).
REFUSING_PAGE = PAGE.replace(
    "const response = await fetch(",
    'if (document.getElementById("qty").value === "fail") {'
    ' await fetch("http://refused.invalid/order").catch(() => null); return; }\n'
    "    const response = await fetch(",
)


def rows_file(tmp_path: Path, quantities: list[str], name: str = "rows.csv") -> Path:
    path = tmp_path / name
    path.write_text("qty\n" + "".join(f"{q}\n" for q in quantities), encoding="utf-8")
    return path


async def run_batch(
    path: Path,
    *,
    workers: int,
    resume: str | None = None,
    stop: bool = False,
    warm: WarmBrowser | None = None,
) -> tuple[BatchOutcome, list[RowResult]]:
    seen: list[RowResult] = []
    request = BatchRequest(
        ReplayRequest(name=NAME, timeout_ms=30_000),
        path,
        workers=workers,
        stop_on_failure=stop,
        resume=resume,
    )
    with Store.open(actor="batch") as store:
        plan = plan_batch(store, request)
        outcome = await replay_batch(
            store, plan, on_row=seen.append, session_factory=warm.session if warm is not None else None
        )
    return outcome, seen


def cancelled_run_recorded(home: Path) -> bool:
    """Wait until the store holds a cancelled run (at most SIGNAL_WAIT_S)."""
    for _ in range(SIGNAL_WAIT_S * 20):
        if sql(home, "SELECT count(*) FROM runs WHERE outcome = 'cancelled'")[0][0]:
            return True
        time.sleep(0.05)
    return False


def events_by_run(store: Store) -> Counter[tuple[str | None, str]]:
    return Counter((e.run, e.kind) for e in store.audit_events(NAME) if e.kind in ("run-start", "run-end"))


async def test_twelve_rows_on_three_workers_act_twelve_times_each_a_run_with_its_events(
    server: LocalServer, tmp_path: Path
) -> None:
    await counting_skill(server)
    warm = WarmBrowser(idle_s=600)
    try:
        outcome, seen = await run_batch(
            rows_file(tmp_path, [str(i) for i in range(1, 13)]), workers=3, warm=warm
        )
    finally:
        await warm.close()
    assert warm.launches == 1  # one Chromium for the whole batch
    assert acted(server) == 12
    assert server.bodies.count(b"7") == 1  # each row typed its own quantity
    assert (outcome.error, outcome.exit_status, outcome.count("succeeded")) == (None, 0, 12)
    assert sorted(r.row for r in seen) == list(range(1, 13))  # every row reported as it ended
    with Store.open() as store:
        runs = store.runs(NAME, limit=50)
        events = events_by_run(store)
        assert store.verify_audit().ok
        assert store.runset_successes(outcome.runset) == {r.row: r.run_id for r in outcome.results}
    assert len(runs) == 12
    assert {(v.outcome, v.record.actor, v.record.runset) for v in runs} == {
        ("succeeded", "batch", outcome.runset)
    }
    assert sorted(v.record.row or 0 for v in runs) == list(range(1, 13))
    for view in runs:
        assert (events[(view.record.run_id, "run-start")], events[(view.record.run_id, "run-end")]) == (1, 1)
    assert sum(events.values()) == 24


async def test_a_failed_row_does_not_stop_the_others_and_resume_replays_only_it(
    server: LocalServer, tmp_path: Path
) -> None:
    await counting_skill(server)
    server.set_page("/orders", REFUSING_PAGE)
    path = rows_file(tmp_path, ["1", "2", "fail", "4", "5", "6"])
    outcome, _ = await run_batch(path, workers=2)
    assert acted(server) == 5
    statuses = [(r.row, r.status, r.code) for r in outcome.results]
    assert statuses[2] == (3, "failed", "SR_REPLAY_UI_NETWORK_DENIED")
    assert [s for _, s, _ in statuses] == ["succeeded"] * 2 + ["failed"] + ["succeeded"] * 3
    error = outcome.error
    assert error is not None
    assert (error.code, outcome.exit_status, error.details["rows"]) == ("SR_REPLAY_BATCH_FAILED", 1, [3])

    server.set_page("/orders", PAGE)  # the cause is fixed; the same file is resumed
    again, _ = await run_batch(path, workers=2, resume=outcome.runset)
    assert acted(server) == 6  # only row 3 ran again
    assert [r.status for r in again.results] == ["skipped"] * 2 + ["succeeded"] + ["skipped"] * 3
    assert [r.run_id for r in again.results if r.status == "skipped"] == [
        r.run_id for r in outcome.results if r.status == "succeeded"
    ]
    assert (again.runset, again.resumed, again.error) == (outcome.runset, True, None)
    with Store.open() as store:
        row3 = [(v.record.row, v.outcome) for v in store.runs(NAME, limit=50) if v.record.row == 3]
        assert store.verify_audit().ok
    assert row3 == [(3, "succeeded"), (3, "failed")]  # newest first: the failed run is kept


async def test_stop_on_failure_starts_no_further_row(server: LocalServer, tmp_path: Path) -> None:
    await counting_skill(server)
    server.set_page("/orders", REFUSING_PAGE)
    outcome, _ = await run_batch(rows_file(tmp_path, ["1", "2", "fail", "4", "5"]), workers=1, stop=True)
    assert [r.status for r in outcome.results] == ["succeeded", "succeeded", "failed", "not-run", "not-run"]
    assert acted(server) == 2
    assert outcome.stopped
    error = outcome.error
    assert error is not None
    assert error.code == "SR_REPLAY_BATCH_FAILED"
    assert "--stop-on-failure" in error.message
    with Store.open() as store:
        assert store.run_count(NAME) == 3


async def test_the_cli_prints_one_envelope_with_one_result_per_row_and_exits_1(
    server: LocalServer, skillreel_home: Path, tmp_path: Path
) -> None:
    await counting_skill(server)
    server.set_page("/orders", REFUSING_PAGE)
    path = rows_file(tmp_path, ["1", "fail", "3"], name="rows.jsonl")
    path.write_text('{"qty": 1}\n{"qty": "fail"}\n{"qty": 3}\n', encoding="utf-8")
    args = ("replay", NAME, "--batch", str(path), "--workers", "2", "--timeout", "30000")
    env = {"SKILLREEL_HOME": str(skillreel_home)}
    result = await asyncio.to_thread(run_cli, *args, "--json", env=env)
    assert "Traceback" not in result.stderr, result.stderr
    document = result.json()
    assert (result.exit_code, document["command"], document["ok"]) == (1, "replay", False)
    assert document["error"]["code"] == "SR_REPLAY_BATCH_FAILED"
    data = document["data"]
    assert (data["name"], data["rows"], data["workers"], data["resumed"]) == (NAME, 3, 2, False)
    assert data["counts"] == {
        "succeeded": 2,
        "failed": 1,
        "cancelled": 0,
        "interrupted": 0,
        "skipped": 0,
        "notRun": 0,
    }
    assert [set(r) for r in data["results"]] == [
        {"row", "line", "status", "code", "message", "runId", "sideEffects", "outputs"}
    ] * 3
    assert [(r["row"], r["line"], r["status"], r["code"]) for r in data["results"]] == [
        (1, 1, "succeeded", None),
        (2, 2, "failed", "SR_REPLAY_UI_NETWORK_DENIED"),
        (3, 3, "succeeded", None),
    ]
    with Store.open() as store:
        runs = {v.record.run_id: v for v in store.runs(NAME, limit=10)}
    assert {r["runId"] for r in data["results"]} == set(runs)
    assert all(runs[r["runId"]].record.runset == data["runset"] for r in data["results"])

    human = await asyncio.to_thread(run_cli, *args, "--resume", data["runset"], env=env)
    assert human.exit_code == 1  # the page still refuses row 2
    assert f"batch of {NAME}: 3 row(s), runset {data['runset']}: 1 failed, 2 skipped" in human.stdout
    assert "row 2 (line 2): failed SR_REPLAY_UI_NETWORK_DENIED" in human.stdout
    assert f"--resume {data['runset']}" in human.stdout
    assert "error SR_REPLAY_BATCH_FAILED" in human.stderr
    assert "row 1 (line 1)" not in human.stderr  # no terminal progress when stderr is not a terminal
    assert "row 1/3 skipped (succeeded before)" in human.stderr  # a plain line per row instead
    assert f"--batch {path} --timeout 30000 --workers 2 --resume {data['runset']}" in human.stdout
    assert acted(server) == 2


@pytest.mark.usefixtures("ctrl_c_reaches_children")  # a background `make test` ignores SIGINT
@pytest.mark.parametrize(
    ("presses", "stop"),
    [(1, signal.SIGINT), (2, signal.SIGINT), (1, signal.SIGTERM)],
    ids=["once", "twice", "sigterm"],
)
async def test_ctrl_c_cancels_the_running_rows_and_starts_no_other(
    server: LocalServer, skillreel_home: Path, tmp_path: Path, presses: int, stop: signal.Signals
) -> None:
    """Pressed twice, the second press comes while the first one's cancellation runs: it is ignored,
    so the result (the runset id that --resume needs) is not lost. SIGTERM (and SIGHUP) cancel the
    same way: killed outright, a batch left its runs started (and a fleet its queued rows)."""
    await counting_skill(server)
    gate = server.hold("/act", after=3)  # three orders go through; the fourth is held
    path = rows_file(tmp_path, [str(i) for i in range(1, 13)])
    proc = subprocess.Popen(
        # fresh: the test sends Ctrl-C to this very process, and kills it if it fails (a fork
        # would outlive the kill of a stand-in)
        cli_command(
            "replay", NAME, "--batch", str(path), "--workers", "2", "--timeout", "30000", "--json", fresh=True
        ),
        env=cli_env(skillreel_home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert await asyncio.to_thread(gate.reached.wait, SIGNAL_WAIT_S), "no fourth order was placed"
        os.kill(proc.pid, stop)  # Ctrl-C (or a stop) reaches the skillreel process
        if presses == 2:  # again, once the first press is being acted on: a run ended cancelled
            assert await asyncio.to_thread(cancelled_run_recorded, skillreel_home), "no run was cancelled"
            os.kill(proc.pid, signal.SIGINT)
        out, err = await asyncio.to_thread(proc.communicate, None, SIGNAL_WAIT_S)
    finally:
        gate.release()
        if proc.poll() is None:  # the test failed: its batch must not outlive it
            proc.kill()
            proc.communicate()
    assert "Traceback" not in err, err
    document = json.loads(out)
    assert (proc.returncode, document["ok"], document["error"]["code"]) == (1, False, "SR_REPLAY_CANCELLED")
    assert document["data"]["runset"]
    results = document["data"]["results"]
    statuses = Counter(r["status"] for r in results)
    assert document["data"]["cancelled"] is True
    assert statuses["cancelled"] >= 1  # the row held at its order, at least
    assert statuses["not-run"] >= 1
    assert statuses["succeeded"] <= 3
    assert sum(statuses.values()) == 12
    assert set(statuses) <= {"succeeded", "cancelled", "not-run"}
    with Store.open() as store:
        runs = {v.record.run_id: v for v in store.runs(NAME, limit=50)}
        events = events_by_run(store)
        assert store.verify_audit().ok
    ran = [r for r in results if r["status"] != "not-run"]
    assert {r["runId"] for r in ran} == set(runs)  # every run started is reported, none left started
    for r in ran:
        view = runs[r["runId"]]
        assert (view.outcome, view.record.row) == (r["status"], r["row"])
        assert (events[(r["runId"], "run-start")], events[(r["runId"], "run-end")]) == (1, 1)
    assert all(r["runId"] is None for r in results if r["status"] == "not-run")


async def test_a_resume_of_a_runset_its_batch_is_still_running_is_refused_and_acts_on_nothing(
    server: LocalServer, tmp_path: Path
) -> None:
    await counting_skill(server)
    gate = server.hold("/act", after=1)  # row 1's order goes through; row 2's is held
    path = rows_file(tmp_path, ["1", "2", "3"])
    request = BatchRequest(ReplayRequest(name=NAME, timeout_ms=30_000), path, workers=1)
    with Store.open(actor="batch") as store:
        plan = plan_batch(store, request)
        first = asyncio.ensure_future(replay_batch(store, plan))
        try:
            assert await asyncio.to_thread(gate.reached.wait, SIGNAL_WAIT_S), "row 2 placed no order"
            resume = replace(request, resume=plan.runset.runset_id)
            with Store.open(actor="batch") as other:
                runs = other.run_count(NAME)
                with pytest.raises(ReplayError) as caught:
                    await replay_batch(other, plan_batch(other, resume))
                assert other.run_count(NAME) == runs  # nothing reserved, nothing ran
        finally:
            gate.release()
        outcome = await first
    assert caught.value.code == "SR_REPLAY_RUNSET_BUSY"
    assert f"process {os.getpid()}" in caught.value.message
    assert (outcome.error, acted(server)) == (None, 3)  # each row acted once
    again, _ = await run_batch(path, workers=1, resume=plan.runset.runset_id)
    assert [r.status for r in again.results] == ["skipped"] * 3
    assert acted(server) == 3


# ---- a batch as CI sees it (issue 31.4): stderr is a file, not a terminal -------------------------
# Each row's plain line is in the file as soon as the row ends (read while a later row is held at the
# page's server, so nothing is timed); --results and --junit hold one line / one testcase per row; the
# resume hint is the real command; --artifacts DIR writes DIR/row-N for the failed rows.

RUN = r"run [0-9a-f]{32}"


async def test_a_batch_logged_to_a_file_prints_each_row_as_it_ends_and_writes_results_and_junit(
    server: LocalServer, skillreel_home: Path, tmp_path: Path
) -> None:
    await counting_skill(server)
    server.set_page("/orders", REFUSING_PAGE)
    gate = server.hold("/act", after=2)  # rows 1 and 2 place their order, row 3 fails, row 4 is held
    rows = rows_file(tmp_path, ["1", "2", "fail", "4"], name="my rows.csv")
    results, junit, log = tmp_path / "results.csv", tmp_path / "junit.xml", tmp_path / "stderr.log"
    args = ["replay", NAME, "--batch", str(rows), "--workers", "1", "--timeout", "30000"]
    args += ["--results", str(results), "--junit", str(junit)]
    with log.open("w") as stderr:
        proc = subprocess.Popen(
            cli_command(*args),
            env=cli_env(skillreel_home),
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
        try:
            assert await asyncio.to_thread(gate.reached.wait, SIGNAL_WAIT_S), "row 4 placed no order"
            while_running = log.read_text().splitlines()  # row 4 is held: rows 1 to 3 have ended
        finally:
            gate.release()
            out, _ = await asyncio.to_thread(proc.communicate, None, SIGNAL_WAIT_S)
    lines = log.read_text().splitlines()
    assert proc.returncode == 1, lines
    assert len(while_running) == 3, while_running
    assert re.fullmatch(rf"row 1/4 succeeded {RUN} \d+\.\ds", while_running[0])
    assert re.fullmatch(rf"row 3/4 failed SR_REPLAY_UI_NETWORK_DENIED {RUN}( \d+\.\ds)?", while_running[2])
    row_lines = [line for line in lines if line.startswith("row ")]
    assert [line.split()[1:3] for line in row_lines] == [
        ["1/4", "succeeded"],
        ["2/4", "succeeded"],
        ["3/4", "failed"],
        ["4/4", "succeeded"],
    ]
    assert not any("fail" in re.sub(r"\bfailed\b", "", line) for line in row_lines)  # no input value
    assert "\x1b" not in log.read_text()  # no colour, no bar

    with results.open(newline="") as f:
        written = list(csv.DictReader(f))
    assert [(r["row"], r["status"], r["code"]) for r in written] == [
        ("1", "succeeded", ""),
        ("2", "succeeded", ""),
        ("3", "failed", "SR_REPLAY_UI_NETWORK_DENIED"),
        ("4", "succeeded", ""),
    ]
    assert all(re.fullmatch("[0-9a-f]{32}", r["runId"]) for r in written)
    assert results.stat().st_mode & 0o777 == 0o600
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("4", "1")
    failures = [c for c in suite.findall("testcase") if c.find("failure") is not None]
    assert [c.get("name") for c in failures] == ["row 3 (line 4)"]

    hint = next(
        line for line in out.splitlines() if line.startswith("replay the rows that did not succeed: ")
    )
    command = shlex.split(hint.split(": ", 1)[1])
    assert command[:5] == ["skillreel", "replay", NAME, "--batch", str(rows)]
    assert command[-2] == "--resume"
    assert ["--results", str(results)] == command[command.index("--results") :][:2]
    assert command[command.index("--workers") :][:2] == ["--workers", "1"]
    assert acted(server) == 3


async def test_artifacts_with_a_batch_are_written_for_the_failed_rows_only(
    server: LocalServer, skillreel_home: Path, tmp_path: Path
) -> None:
    """``--artifacts DIR --batch`` was refused; now each failed row leaves ``DIR/row-N`` (the single
    replay's trace, screenshot and failure.json, mode 0600) and a row that succeeded leaves nothing."""
    await counting_skill(server)
    server.set_page("/orders", REFUSING_PAGE)
    rows = rows_file(tmp_path, ["1", "fail", "3"])
    artifacts = tmp_path / "artifacts"
    args = ["replay", NAME, "--batch", str(rows), "--workers", "2", "--timeout", "30000"]
    result = await asyncio.to_thread(
        run_cli, *args, "--artifacts", str(artifacts), "--json", env=cli_env(skillreel_home)
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert (result.exit_code, result.json()["error"]["code"]) == (1, "SR_REPLAY_BATCH_FAILED")
    assert [p.name for p in artifacts.iterdir()] == ["row-2"]
    written = {p.name: p.stat().st_mode & 0o777 for p in (artifacts / "row-2").iterdir()}
    assert "failure.json" in written
    assert "trace.zip" in written
    assert set(written.values()) == {0o600}
    failure = json.loads((artifacts / "row-2" / "failure.json").read_text())
    assert (failure["outcome"], failure["code"]) == ("failed", "SR_REPLAY_UI_NETWORK_DENIED")
    assert artifacts.stat().st_mode & 0o777 == 0o700
    assert acted(server) == 2
