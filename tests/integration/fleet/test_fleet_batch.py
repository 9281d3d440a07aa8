"""A fleet batch end to end (issue 14, item 4): ``skillreel replay NAME --batch FILE --broker URL
--sign KEY`` as a user runs it, a private redis-server, real ``skillreel worker`` processes with
their own homes (no store), and the counting page (tests/integration/runs/counting.py: each order
placed is a POST of the row's quantity to ``/act``), so a test knows exactly which rows ran.

Every wait is for a signal (a worker's "ready" line, the server holding ``/act``, the coordinator
exiting), never for the clock."""

from __future__ import annotations

import asyncio
import json
import secrets
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillreel.fleet.app import QUEUE
from skillreel.store import Store
from tests.integration.runs.counting import NAME, acted, cli_env, counting_skill, fleet_args
from tests.support import factory
from tests.support.cli import cli_command, run_cli
from tests.support.fleet_rig import fleet_worker, redis_server, serve_reading_page
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIGNAL_WAIT_S = 300  # a bound on waiting for a signal on a loaded machine, never a guess at timing


@pytest.fixture
def keys(tmp_path: Path) -> tuple[Path, Path]:
    directory = tmp_path / "keys"
    directory.mkdir()
    return factory.write_keys(directory, "coordinator")


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[str]:
    with redis_server(tmp_path / "redis") as url:
        yield url


def rows_file(tmp_path: Path, quantities: list[str]) -> Path:
    path = tmp_path / "rows.csv"
    path.write_text("qty\n" + "".join(f"{q}\n" for q in quantities), encoding="utf-8")
    return path


def placed(server: LocalServer) -> Counter[str]:
    """The quantity of every order placed, counted: which rows really acted, and how often."""
    return Counter(
        body.decode()
        for (method, path), body in zip(server.requests, server.bodies, strict=True)
        if (method, path) == ("POST", "/act")
    )


async def test_twenty_rows_on_two_workers_run_once_each_and_every_run_is_recorded(
    server: LocalServer, skillreel_home: Path, tmp_path: Path, broker: str, keys: tuple[Path, Path]
) -> None:
    await counting_skill(server)
    serve_reading_page(server)
    quantities = [f"q{i:02d}" for i in range(1, 21)]
    rows = rows_file(tmp_path, quantities)
    private, public = keys
    with (
        fleet_worker(broker, trust=[public], home=tmp_path / "w1") as first,
        fleet_worker(broker, trust=[public], home=tmp_path / "w2") as second,
    ):
        result = await asyncio.to_thread(
            run_cli,
            *fleet_args(rows, broker, private),
            "--json",
            env={"SKILLREEL_HOME": str(skillreel_home)},
            timeout=SIGNAL_WAIT_S,
        )
        assert result.exit_code == 0, result.stdout + result.stderr
        data = result.data()
        workers_used = {
            line.split(":")[0] for w in (first, second) for line in w.output.lines if ": succeeded" in line
        }
    assert acted(server) == 20
    assert placed(server) == Counter(quantities)  # each row exactly once
    assert data["counts"]["succeeded"] == 20
    assert [r["row"] for r in data["results"]] == list(range(1, 21))
    with Store.open() as store:
        runs = store.runs(NAME, limit=100)
        events = store.audit_events(NAME)
        assert store.verify_audit().ok
    assert len(runs) == 20
    assert {(v.outcome, v.record.actor, v.record.runset) for v in runs} == {
        ("succeeded", "fleet", data["runset"])
    }
    assert sorted(v.record.row or 0 for v in runs) == list(range(1, 21))
    assert {r["runId"] for r in data["results"]} == {v.record.run_id for v in runs}
    kinds = Counter(e.kind for e in events)
    assert (kinds["run-start"], kinds["run-end"], kinds["export"]) == (20, 20, 1)
    assert workers_used  # the rows were spread over the workers that were up


async def test_a_worker_killed_mid_row_leaves_the_row_interrupted_and_never_runs_it_again(
    server: LocalServer, skillreel_home: Path, tmp_path: Path, broker: str, keys: tuple[Path, Path]
) -> None:
    import redis

    await counting_skill(server)
    serve_reading_page(server)
    rows = rows_file(tmp_path, ["k1"])
    private, public = keys
    gate = server.hold("/act")
    with fleet_worker(broker, trust=[public], home=tmp_path / "w1") as worker:
        coordinator = subprocess.Popen(
            cli_command(*fleet_args(rows, broker, private), "--heartbeat", "2", "--json"),
            env=cli_env(skillreel_home),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert await asyncio.to_thread(gate.reached.wait, SIGNAL_WAIT_S), "the row never placed its order"
            worker.kill()  # kill -9 of the worker, its pool and its Chromium, mid-row
            out, err = await asyncio.to_thread(coordinator.communicate, None, SIGNAL_WAIT_S)
        finally:
            gate.release()
            if coordinator.poll() is None:
                coordinator.kill()
    document = json.loads(out)
    assert (coordinator.returncode, document["error"]["code"]) == (1, "SR_REPLAY_BATCH_FAILED"), err
    (row,) = document["data"]["results"]
    assert (row["status"], row["code"], row["sideEffects"]) == ("interrupted", "SR_REPLAY_INTERRUPTED", True)
    with Store.open() as store:
        (view,) = store.runs(NAME)
    assert (view.record.run_id, view.record.outcome, view.record.code) == (
        row["runId"],
        "interrupted",
        "SR_REPLAY_INTERRUPTED",
    )
    # Acknowledged before it ran: the broker holds no copy to hand out again after the visibility
    # timeout (nothing in the queue, nothing among the unacknowledged messages)...
    client = redis.Redis.from_url(broker)
    unacked = [json.loads(raw)[0] for raw in client.hgetall("unacked").values()]
    assert all(message["headers"]["id"] != row["runId"] for message in unacked)
    assert client.llen(QUEUE) == 0
    # ... and a fresh worker with the same trust runs the next batch, never the killed row
    server.gates.pop("/act")
    with fleet_worker(broker, trust=[public], home=tmp_path / "w2"):
        again = await asyncio.to_thread(
            run_cli,
            *fleet_args(rows_file(tmp_path, ["k2"]), broker, private),
            "--json",
            env={"SKILLREEL_HOME": str(skillreel_home)},
            timeout=SIGNAL_WAIT_S,
        )
    assert again.exit_code == 0, again.stdout + again.stderr
    assert placed(server) == Counter({"k1": 1, "k2": 1})


async def test_a_worker_that_does_not_trust_the_signer_runs_nothing(
    server: LocalServer, skillreel_home: Path, tmp_path: Path, broker: str, keys: tuple[Path, Path]
) -> None:
    await counting_skill(server)
    serve_reading_page(server)
    private, _ = keys
    _, other = factory.write_keys(tmp_path, "someone-else")
    with fleet_worker(broker, trust=[other], home=tmp_path / "w1"):
        result = await asyncio.to_thread(
            run_cli,
            *fleet_args(rows_file(tmp_path, ["u1", "u2"]), broker, private),
            "--json",
            env={"SKILLREEL_HOME": str(skillreel_home)},
            timeout=SIGNAL_WAIT_S,
        )
    assert result.exit_code == 1
    data: dict[str, Any] = result.json()["data"]
    assert [(r["status"], r["code"]) for r in data["results"]] == [
        ("failed", "SR_REPLAY_FLEET_SIGNER_UNTRUSTED")
    ] * 2
    assert acted(server) == 0
    with Store.open() as store:
        views = store.runs(NAME)
    assert [(v.outcome, v.record.code, v.record.steps_run) for v in views] == [
        ("failed", "SR_REPLAY_FLEET_SIGNER_UNTRUSTED", 0)
    ] * 2


async def test_a_broker_with_a_password_never_on_any_command_line(
    server: LocalServer, skillreel_home: Path, tmp_path: Path, keys: tuple[Path, Path]
) -> None:
    """F7 (issue 30): on main the password could only be given on argv (``ps`` shows it to every
    user). Now the worker takes the URL from SKILLREEL_BROKER_URL, the coordinator from an
    owner-only file; neither process's command line holds the password, and the row runs."""
    password = "fleet-pw-" + secrets.token_hex(8)
    await counting_skill(server)
    serve_reading_page(server)
    private, public = keys
    with redis_server(tmp_path / "redis", password=password) as url:
        url_file = tmp_path / "broker-url"
        url_file.write_text(url + "\n", encoding="utf-8")
        url_file.chmod(0o600)
        env = {"SKILLREEL_BROKER_URL": url}
        with fleet_worker(None, trust=[public], home=tmp_path / "w1", env=env) as worker:
            args = fleet_args(rows_file(tmp_path, ["p1"]), "unused", private)
            at = args.index("--broker")
            args[at : at + 2] = ["--broker-url-file", str(url_file)]
            coordinator = subprocess.Popen(
                cli_command(*args, "--json"),
                env=cli_env(skillreel_home),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            command_lines = [Path(f"/proc/{p.pid}/cmdline").read_bytes() for p in (worker.proc, coordinator)]
            out, err = await asyncio.to_thread(coordinator.communicate, None, SIGNAL_WAIT_S)
    assert coordinator.returncode == 0, out + err
    assert json.loads(out)["data"]["counts"]["succeeded"] == 1
    assert placed(server) == Counter({"p1": 1})
    assert all(password.encode() not in line for line in command_lines)
    assert password not in out + err + worker.output.text()
