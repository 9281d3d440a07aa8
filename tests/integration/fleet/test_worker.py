"""The fleet worker refuses what it cannot trust before any browser starts (issue 14, item 4; issue
30, F3 and F7: the task's envelope, malformed arguments): a real ``skillreel worker`` on a private
redis-server, tasks sent to it directly with Celery as anyone who can write to Redis could, and the
counting page's ``/act`` requests as the proof of what ran."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from skillreel.fleet.app import QUEUE, TASK_NAME, fleet_app
from skillreel.fleet.bundle import bundle_text, sign_bundle
from skillreel.fleet.claims import CLAIM_PREFIX
from skillreel.model.export import ExportDocument
from skillreel.model.fleet import FleetResult, FleetRow
from skillreel.model.lifecycle import parse_timestamp, timestamp
from skillreel.model.runs import BatchSlot
from skillreel.services.fleet_batching import seal_task
from skillreel.store import Store, utc_now
from skillreel.store.signing import load_signing_key
from skillreel.store.transfer import export_document
from tests.integration.runs.counting import NAME, acted, counting_skill
from tests.support import factory
from tests.support.fleet_rig import Worker, fleet_worker, redis_server, serve_reading_page
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RESULT_WAIT_S = 180.0  # a bound on a loaded machine, never a guess at timing
TYPED = "zq-typed-4821"


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One redis-server and one worker for the module; the worker trusts ``trusted.pub``."""
    base = tmp_path_factory.mktemp("fleet")
    keys = base / "keys"
    keys.mkdir()
    signing, public = factory.write_keys(keys, "trusted")
    stranger, _ = factory.write_keys(keys, "stranger")
    with (
        redis_server(base / "redis") as broker,
        fleet_worker(broker, trust=[public], home=base / "worker") as worker,
    ):
        app = fleet_app(broker)
        yield {"broker": broker, "app": app, "signing": signing, "stranger": stranger, "worker": worker}
        app.close()


def task(key: Path, bundle: str, run_id: str, sealed_at: str | None = None, **row: Any) -> list[Any]:
    """The arguments the coordinator sends: ``(bundle, row, envelope)``, the envelope signed with
    ``key`` for this row at ``sealed_at`` (now by default)."""
    fleet_row = FleetRow(run_id=run_id, inputs={"qty": TYPED}, **row)
    try:
        digest = ExportDocument.parse(bundle).export_digest
    except Exception:  # a bundle the test made unreadable: the envelope names some digest
        digest = "sha256:" + "0" * 64
    slot = BatchSlot("0123456789abcdef", 1)
    envelope = seal_task(fleet_row, slot, digest, load_signing_key(key), sealed_at or utc_now())
    return [bundle, fleet_row.to_json(), envelope.to_json()]


def send(app: Any, bundle: str, run_id: str | None = None, *, key: Path, **row: Any) -> dict[str, Any]:
    run_id = run_id or secrets.token_hex(16)
    return deliver(app, task(key, bundle, run_id, **row), run_id)


def deliver(app: Any, args: list[Any], run_id: str | None = None, **kwargs: Any) -> dict[str, Any]:
    result = app.send_task(TASK_NAME, args=args, kwargs=kwargs, task_id=run_id, queue=QUEUE)
    value: dict[str, Any] = result.get(timeout=RESULT_WAIT_S)
    return value


def bundle_of(status: str, key: Path) -> str:
    with Store.open() as store:
        entry = store.get(NAME)
        assert entry.status == status
        return bundle_text(sign_bundle(entry, store.now(), load_signing_key(key)))


async def test_a_signed_bundle_runs_once_and_returns_the_content_free_report(
    server: LocalServer, rig: dict[str, Any]
) -> None:
    await counting_skill(server)
    serve_reading_page(server)
    value = send(rig["app"], bundle_of("validated", rig["signing"]), key=rig["signing"])
    result = FleetResult.parse(value)
    assert (result.status, result.code, result.refused) == ("succeeded", None, False), value
    assert acted(server) == 1
    assert result.report is not None
    assert result.report.name == NAME
    assert [s.action_id for s in result.steps] == ["a1", "a2", "a3", "a4"]
    assert (result.steps_run, result.steps_acted) == (4, 2)
    assert TYPED not in json.dumps(value)  # no typed value travels back


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("unsigned", "SR_REPLAY_FLEET_BUNDLE_UNSIGNED"),
        ("untrusted", "SR_REPLAY_FLEET_SIGNER_UNTRUSTED"),
        ("edited", "SR_REPLAY_FLEET_BUNDLE_TAMPERED"),
        ("re-digested", "SR_REPLAY_FLEET_BUNDLE_TAMPERED"),
        ("garbage", "SR_REPLAY_FLEET_BUNDLE_INVALID"),
    ],
)
async def test_a_bundle_the_worker_cannot_trust_is_refused_and_nothing_runs(
    server: LocalServer, rig: dict[str, Any], case: str, code: str
) -> None:
    await counting_skill(server)
    serve_reading_page(server)
    visits = server.count("GET", "/orders")  # the test's own description of the page
    with Store.open() as store:
        entry = store.get(NAME)
        signed = sign_bundle(entry, store.now(), load_signing_key(rig["signing"]))
        if case == "unsigned":
            bundle = bundle_text(export_document(entry, store.now()))
        elif case == "untrusted":
            bundle = bundle_text(sign_bundle(entry, store.now(), load_signing_key(rig["stranger"])))
        elif case == "edited":  # a value changed, digests left as they were
            document = json.loads(bundle_text(signed))
            document["entry"]["draft"]["description"] = "Place an order. Use when someone else says so."
            bundle = json.dumps(document)
        elif case == "re-digested":  # changed and every digest recomputed: only the signature tells
            forged = type(signed).build(  # a later export time: a new digest, the old signature
                entry=entry, exported_at="2031-01-01T00:00:00Z", signature=signed.signature
            )
            bundle = bundle_text(forged)
        else:
            bundle = "{not json"
    value = send(rig["app"], bundle, key=rig["signing"])
    result = FleetResult.parse(value)
    assert (result.status, result.refused, result.code) == ("failed", True, code), value
    assert result.steps == ()
    assert acted(server) == 0
    assert server.count("GET", "/orders") == visits  # no browser of the worker reached the page


async def test_a_skill_not_validated_is_refused(server: LocalServer, rig: dict[str, Any]) -> None:
    await counting_skill(server, status="approved")
    serve_reading_page(server)
    visits = server.count("GET", "/orders")
    value = send(rig["app"], bundle_of("approved", rig["signing"]), key=rig["signing"])
    assert (value["refused"], value["code"]) == (True, "SR_REPLAY_FLEET_NOT_VALIDATED")
    assert server.count("GET", "/orders") == visits


@pytest.mark.parametrize("claim", ["kept", "deleted"])
async def test_a_task_delivered_again_is_dropped_without_running(
    server: LocalServer, rig: dict[str, Any], claim: str
) -> None:
    """What a redelivery after the visibility timeout (or a duplicate publish) would do, and what
    anyone who can write to Redis did with a captured task (F3), its run's claim deleted first: the
    envelope's nonce was used, so the worker drops the task; the first result stays, nothing acts
    twice. (On main the captured task, its claim deleted, ran again.)"""
    import redis

    await counting_skill(server)
    serve_reading_page(server)
    bundle = bundle_of("validated", rig["signing"])
    run_id = secrets.token_hex(16)
    captured = task(rig["signing"], bundle, run_id)
    first = deliver(rig["app"], captured, run_id)
    assert first["status"] == "succeeded"
    if claim == "deleted":
        assert redis.Redis.from_url(rig["broker"]).delete(CLAIM_PREFIX + run_id) == 1
    worker: Worker = rig["worker"]
    rig["app"].send_task(TASK_NAME, args=captured, task_id=run_id, queue=QUEUE)  # the very same task
    assert worker.output.wait_for(f"row {run_id[:12]}: refused SR_REPLAY_FLEET_TASK_REPLAYED", RESULT_WAIT_S)
    assert acted(server) == 1
    assert rig["app"].AsyncResult(run_id).get(timeout=RESULT_WAIT_S) == first


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ("inputs", "SR_REPLAY_FLEET_TASK_INVALID"),
        ("heal", "SR_REPLAY_FLEET_TASK_INVALID"),
        ("environment", "SR_REPLAY_FLEET_TASK_INVALID"),
        ("no envelope", "SR_REPLAY_FLEET_BUNDLE_INVALID"),  # main's (bundle, row): no longer a task
        ("expired", "SR_REPLAY_FLEET_TASK_EXPIRED"),
    ],
)
async def test_a_captured_task_changed_or_late_runs_nothing(
    server: LocalServer, rig: dict[str, Any], change: str, code: str
) -> None:
    """F3: with a captured signed bundle, someone who can write to Redis but has no key chose the
    inputs, heal or environment (the worker typed its vault password into their page), or sent it
    long after (a skill deleted in the coordinator since). Each ran on main; now nothing starts."""
    await counting_skill(server)
    serve_reading_page(server)
    visits = server.count("GET", "/orders")
    bundle = bundle_of("validated", rig["signing"])
    run_id = secrets.token_hex(16)
    sealed_at = timestamp(parse_timestamp(utc_now()) - timedelta(minutes=16)) if change == "expired" else None
    bundle, row, envelope = task(rig["signing"], bundle, run_id, sealed_at)
    if change == "inputs":
        row["inputs"] = {"qty": "chosen-by-attacker"}
    elif change == "heal":
        row["heal"] = False
    elif change == "environment":
        row["environment"] = "attacker"
    args = [bundle, row] if change == "no envelope" else [bundle, row, envelope]
    value = deliver(rig["app"], args, run_id)
    assert (value["status"], value["refused"], value["code"]) == ("failed", True, code), value
    assert acted(server) == 0
    assert server.count("GET", "/orders") == visits  # no browser of the worker reached the page


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ([], {}),
        (["one"], {}),
        ([1, 2, 3, 4], {}),
        (["bundle", {}], {"envelope": {}}),
        ([None, None, None], {}),
    ],
)
def test_a_forged_task_with_malformed_arguments_is_refused_without_a_traceback(
    rig: dict[str, Any], args: list[Any], kwargs: dict[str, Any]
) -> None:
    """F3: on main a task with the wrong number of arguments crashed into a Celery failure (a
    TypeError raised by ``get``) with a traceback in the worker's log."""
    worker: Worker = rig["worker"]
    value = deliver(rig["app"], args, **kwargs)
    assert (value["status"], value["refused"], value["code"]) == (
        "failed",
        True,
        "SR_REPLAY_FLEET_BUNDLE_INVALID",
    )
    assert "Traceback" not in worker.output.text()
