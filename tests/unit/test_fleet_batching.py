"""The fleet coordinator's bookkeeping on a fake broker (fast; the real one on Redis with real workers is
tests/integration/fleet/): every row's run is reserved before its task is submitted and ended from
what the broker says; a lost worker, a task Celery reports failed or a result that does not fit
its run end as ``interrupted``; no worker left gives the rows up as ``cancelled``.

And the worker's refusals before any browser or broker (``fleet.worker.run_row``)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from skillreel.errors import ReplayError
from skillreel.fleet.bundle import SignedBundles, bundle_text, open_bundle, sign_bundle
from skillreel.fleet.envelope import check_binding, open_envelope
from skillreel.fleet.worker import WorkerConfig, run_row, run_task
from skillreel.model.export import ExportDocument
from skillreel.model.fleet import FleetEnvelope, FleetResult, FleetRow, FleetStep
from skillreel.model.lifecycle import parse_timestamp
from skillreel.model.runs import BatchSlot
from skillreel.services.batching import BatchRequest, plan_batch
from skillreel.services.fleet_batching import TaskTerms, WorkerVault, fleet_batch, seal_task
from skillreel.services.preflight import ReplayRequest
from skillreel.store import Store
from skillreel.store.signing import (
    BUNDLE,
    TASK,
    load_signing_key,
    load_trusted_keys,
    sign_digest,
    sign_export,
)
from skillreel.store.transfer import export_document
from tests.support import factory

NAME = "search-invoices"
SLOT = BatchSlot("0123456789abcdef", 1)
SOON = datetime(2026, 1, 3, 0, 1, tzinfo=UTC)  # a minute after factory.T1, when the tasks are sealed


class FakeBroker:
    """Each submitted row behaves as ``behaviours`` says, in submission order: ``ok`` (a worker ran
    it), ``partial`` (it ran, the last step on a path not taken), ``stranger`` (its report names a
    step the skill does not have), ``refused`` (a worker refused it), ``lost`` (claimed, its worker
    gone), ``broken`` (Celery says the task failed), ``garbage`` (a result that is no fleet
    result), ``unclaimed`` (nobody takes it)."""

    def __init__(self, store: Store, behaviours: list[str], workers: int = 1) -> None:
        self.store = store
        self.entry = store.get(NAME)  # results and claims are read on another thread: no store there
        self.behaviours = list(behaviours)
        self.live_workers = workers
        self.submitted: dict[str, tuple[str, dict[str, Any]]] = {}
        self.given_up: list[str] = []
        self.forgotten: list[str] = []
        self.envelopes: dict[str, tuple[str, dict[str, Any]]] = {}

    def workers(self) -> int:
        return self.live_workers

    def submit(self, run_id: str, bundle: str, row: Mapping[str, Any], envelope: Mapping[str, Any]) -> None:
        assert self.store.run(run_id) is not None  # reserved before it was submitted
        self.submitted[run_id] = (self.behaviours.pop(0), dict(row))
        self.envelopes[run_id] = (bundle, dict(envelope))

    def _meta(self, run_id: str, behaviour: str) -> dict[str, Any] | None:
        if behaviour in ("ok", "partial", "stranger", "masked"):
            report = factory.report_for(self.entry)
            if behaviour == "partial":  # a branch's other arm, a loop over no items: not run
                report = report.evolve(steps=report.steps[:3])
            elif behaviour == "stranger":  # a step the skill does not have
                report = report.evolve(
                    steps=(*report.steps[:3], report.steps[3].model_copy(update={"action_id": "a99"}))
                )
            steps = tuple(
                FleetStep(
                    action_id=s.action_id,
                    kind="type",
                    status="done",
                    healed=False,
                    side_effects=True,
                    evidence_digest=s.evidence_digest,
                )
                for s in report.steps
            )
            result = FleetResult(
                run_id=run_id,
                status="succeeded",
                steps=steps,
                steps_run=len(steps),
                steps_acted=min(3, len(steps)),
                report=report,
                worker="w1",
                masked=("secret",) if behaviour == "masked" else (),  # an output the row did not return
            )
            return {"status": "SUCCESS", "result": result.to_wire()}
        if behaviour == "refused":
            result = FleetResult(
                run_id=run_id,
                status="failed",
                refused=True,
                code="SR_REPLAY_FLEET_SIGNER_UNTRUSTED",
                message="not trusted",
                worker="w1",
            )
            return {"status": "SUCCESS", "result": result.to_wire()}
        if behaviour == "broken":
            return {"status": "FAILURE", "result": {"exc_type": "WorkerLostError"}}
        if behaviour == "garbage":
            return {"status": "SUCCESS", "result": {"runId": run_id, "surprise": True}}
        return None

    def results(self, run_ids: list[str], wait_s: float) -> Iterator[tuple[str, Mapping[str, Any]]]:
        for run_id in run_ids:
            meta = self._meta(run_id, self.submitted[run_id][0])
            if meta is not None:
                yield run_id, meta

    def claims(self, run_ids: list[str]) -> Mapping[str, tuple[bool, bool]]:
        return {r: (r in self.submitted and self.submitted[r][0] == "lost", False) for r in run_ids}

    def give_up(self, run_id: str) -> bool:
        self.given_up.append(run_id)
        return True

    def forget(self, run_id: str) -> None:
        self.forgotten.append(run_id)

    def close(self) -> None:
        pass


@pytest.fixture
def skill(tmp_path: Path) -> tuple[Path, Path]:
    """A validated skill on a URL target, a signing key and a batch file of four rows."""
    entry = factory.entry(environment=factory.url_environment("http://127.0.0.1:8000/app"))
    with Store.open() as store:
        factory.store_entry(store, entry, "validated")
    rows = tmp_path / "rows.csv"
    rows.write_text("query\nr1\nr2\nr3\nr4\n", encoding="utf-8")
    private, _ = factory.write_keys(tmp_path)
    return rows, private


async def run(rows: Path, key: Path, behaviours: list[str], **options: Any) -> tuple[Any, FakeBroker]:
    vault = WorkerVault()
    with Store.open(actor="fleet") as store:
        plan = plan_batch(store, BatchRequest(ReplayRequest(name=NAME), rows, workers=4), vault, vault)
        broker = FakeBroker(store, behaviours, options.pop("workers", 1))
        outcome = await fleet_batch(store, plan, broker, bundles=SignedBundles(), sign_key=key, **options)
    return outcome, broker


async def test_every_row_is_recorded_from_what_its_worker_returned(skill: tuple[Path, Path]) -> None:
    rows, key = skill
    outcome, broker = await run(rows, key, ["ok", "refused", "lost", "broken"])
    assert [(r.status, r.code) for r in outcome.results] == [
        ("succeeded", None),
        ("failed", "SR_REPLAY_FLEET_SIGNER_UNTRUSTED"),
        ("interrupted", "SR_REPLAY_INTERRUPTED"),
        ("interrupted", "SR_REPLAY_INTERRUPTED"),
    ]
    assert [row["inputs"] for _, row in broker.submitted.values()] == [
        {"query": f"r{i}"} for i in range(1, 5)
    ]
    with Store.open() as store:
        runs = {v.record.row: v.record for v in store.runs(NAME)}
        kinds = [e.kind for e in store.audit_events(NAME)]
    assert {row: (r.outcome, r.actor, r.runset) for row, r in runs.items()} == {
        1: ("succeeded", "fleet", outcome.runset),
        2: ("failed", "fleet", outcome.runset),
        3: ("interrupted", "fleet", outcome.runset),
        4: ("interrupted", "fleet", outcome.runset),
    }
    assert runs[1].report_digest is not None
    assert (runs[3].side_effects, runs[3].steps_run) == (True, 0)  # it may have acted: unknown
    assert kinds.count("export") == 1
    assert (kinds.count("run-start"), kinds.count("run-end")) == (4, 4)
    assert sorted(broker.forgotten) == sorted(r for r, (b, _) in broker.submitted.items() if b != "lost")


async def test_every_task_carries_its_own_envelope_signed_by_the_coordinator(
    skill: tuple[Path, Path],
) -> None:
    """F3: each task is bound to the coordinator: its bundle (signed in the bundle's domain), run,
    runset and row, inputs and options, a fresh nonce, minutes of life and the liveness timeout."""
    rows, key = skill
    public = key.with_suffix(".pub")
    outcome, broker = await run(rows, key, ["ok"] * 4, terms=TaskTerms(expires_min=5, heartbeat_s=7.0))
    trusted = load_trusted_keys([public])
    nonces = set()
    for number, (run_id, (bundle, raw)) in enumerate(broker.envelopes.items(), start=1):
        envelope, left = open_envelope(raw, trusted, parse_timestamp(raw["issuedAt"]))
        document, _ = open_bundle(bundle, trusted)
        row = FleetRow.parse(broker.submitted[run_id][1])
        check_binding(envelope, row, document.export_digest)
        assert (envelope.run_id, envelope.runset_id, envelope.row) == (run_id, outcome.runset, number)
        assert (left, envelope.heartbeat_ms) == (timedelta(minutes=5), 7000)
        nonces.add(envelope.nonce)
    assert len(nonces) == 4


async def test_a_result_that_does_not_fit_its_run_is_recorded_interrupted(skill: tuple[Path, Path]) -> None:
    rows, key = skill
    outcome, _ = await run(rows, key, ["garbage", "ok", "ok", "ok"])
    first = outcome.results[0]
    assert (first.status, first.code) == ("interrupted", "SR_REPLAY_FLEET_RESULT_INVALID")
    assert [r.status for r in outcome.results[1:]] == ["succeeded"] * 3


async def test_a_result_naming_masked_outputs_it_did_not_return_is_recorded_interrupted(
    skill: tuple[Path, Path],
) -> None:
    """The names of masked outputs a worker sends become the caller's SR_REPLAY_OUTPUT_MASKED
    warning only when they are outputs of the row (tests/integration/replay/test_hostile_outputs.py
    shows a real worker's names)."""
    rows, key = skill
    outcome, _ = await run(rows, key, ["masked", "ok", "ok", "ok"])
    first = outcome.results[0]
    assert (first.status, first.code, first.masked) == ("interrupted", "SR_REPLAY_FLEET_RESULT_INVALID", None)
    assert [(r.status, r.masked) for r in outcome.results[1:]] == [("succeeded", None)] * 3


async def test_a_report_may_leave_out_steps_not_taken_but_never_names_a_step_the_skill_lacks(
    skill: tuple[Path, Path],
) -> None:
    rows, key = skill
    outcome, _ = await run(rows, key, ["partial", "stranger", "ok", "ok"])
    assert [(r.status, r.code) for r in outcome.results[:2]] == [
        ("succeeded", None),
        ("interrupted", "SR_REPLAY_FLEET_RESULT_INVALID"),
    ]
    with Store.open() as store:
        first = next(v.record for v in store.runs(NAME) if v.record.row == 1)
    assert (first.outcome, first.steps_total, first.steps_run) == ("succeeded", 4, 3)


async def test_no_worker_left_gives_the_rows_up_and_submits_no_more(skill: tuple[Path, Path]) -> None:
    rows, key = skill
    with Store.open(actor="fleet") as store:
        vault = WorkerVault()
        plan = plan_batch(store, BatchRequest(ReplayRequest(name=NAME), rows, workers=2), vault, vault)
        broker = FakeBroker(store, ["unclaimed"] * 4)
        original = broker.workers
        calls = iter([1])  # one worker answers at the start, none afterwards
        broker.workers = lambda: next(calls, 0)  # type: ignore[method-assign]
        outcome = await fleet_batch(store, plan, broker, bundles=SignedBundles(), sign_key=key, stall_s=0.0)
        assert original() == 1
    assert [(r.status, r.code) for r in outcome.results] == [
        ("cancelled", "SR_REPLAY_FLEET_NO_WORKERS"),
        ("cancelled", "SR_REPLAY_FLEET_NO_WORKERS"),
        ("not-run", "SR_REPLAY_FLEET_NO_WORKERS"),
        ("not-run", "SR_REPLAY_FLEET_NO_WORKERS"),
    ]
    assert len(broker.submitted) == 2
    assert sorted(broker.given_up) == sorted(broker.submitted)
    with Store.open() as store:
        assert sorted(v.outcome for v in store.runs(NAME)) == ["cancelled", "cancelled"]


async def test_nothing_is_reserved_or_signed_when_no_worker_answers(skill: tuple[Path, Path]) -> None:
    rows, key = skill
    with pytest.raises(Exception, match="SR_REPLAY_FLEET_NO_WORKERS"):
        await run(rows, key, ["ok"] * 4, workers=0)
    with Store.open() as store:
        assert store.runs(NAME) == []
        assert "export" not in [e.kind for e in store.audit_events(NAME)]


# --- the worker's refusals, before any browser and any claim ---------------------------------------


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("unsigned", "SR_REPLAY_FLEET_BUNDLE_UNSIGNED"),
        ("untrusted", "SR_REPLAY_FLEET_SIGNER_UNTRUSTED"),
        ("tampered", "SR_REPLAY_FLEET_BUNDLE_TAMPERED"),
        ("approved", "SR_REPLAY_FLEET_NOT_VALIDATED"),
        ("fixture", "SR_REPLAY_FLEET_TARGET_UNSUPPORTED"),
        ("bad-row", "SR_REPLAY_FLEET_BUNDLE_INVALID"),
        ("unknown-input", "SR_REPLAY_PARAMETER_UNKNOWN"),
    ],
)
def test_the_worker_refuses_before_anything_runs(tmp_path: Path, case: str, code: str) -> None:
    private, public = factory.write_keys(tmp_path, "trusted")
    stranger, _ = factory.write_keys(tmp_path, "stranger")
    url = factory.url_environment("http://127.0.0.1:8000/app")
    status = "approved" if case == "approved" else "validated"
    entry = factory.advance(factory.entry(environment=None if case == "fixture" else url), status)
    key = load_signing_key(stranger if case == "untrusted" else private)
    document = sign_bundle(entry, factory.T1, key)
    if case == "unsigned":
        document = export_document(entry, factory.T1)
    bundle = bundle_text(document)
    if case == "tampered":
        bundle = bundle.replace("Search invoices by customer.", "Search invoices by supplier.")
    run_id = secrets.token_hex(16)
    task = FleetRow(run_id=run_id, inputs={"query": "x"})
    row: dict[str, Any] = task.to_json()
    if case == "bad-row":
        row["surprise"] = 1
    if case == "unknown-input":
        row["inputs"] = {"querry": "x"}
        task = FleetRow(run_id=run_id, inputs={"querry": "x"})
    envelope = seal_task(task, SLOT, document.export_digest, load_signing_key(private), factory.T1)
    config = WorkerConfig("redis://127.0.0.1:1/0", load_trusted_keys([public]), "w1")  # never contacted
    result = run_row(config, run_id, bundle, row, envelope.to_json(), now=SOON)
    assert (result.status, result.refused, result.code, result.steps) == ("failed", True, code, ())


# --- the task's envelope (issue 30, F3): each of these ran on main (no envelope existed) ---------


@dataclass
class Task:
    """A task as the coordinator sends it: a validated skill's bundle, a row and its envelope."""

    config: WorkerConfig
    run_id: str
    bundle: str
    row: dict[str, Any]
    envelope: dict[str, Any]
    key: Ed25519PrivateKey
    digest: str

    def run(self, now: datetime = SOON) -> FleetResult:
        return run_row(self.config, self.run_id, self.bundle, self.row, self.envelope, now=now)


@pytest.fixture
def task(tmp_path: Path) -> Task:
    private, public = factory.write_keys(tmp_path, "trusted")
    url = factory.url_environment("http://127.0.0.1:8000/app")
    entry = factory.advance(factory.entry(environment=url), "validated")
    key = load_signing_key(private)
    document = sign_bundle(entry, factory.T1, key)
    run_id = secrets.token_hex(16)
    row = FleetRow(run_id=run_id, inputs={"query": "x"})
    envelope = seal_task(row, SLOT, document.export_digest, key, factory.T1)
    config = WorkerConfig("redis://127.0.0.1:1/0", load_trusted_keys([public]), "w1")  # never contacted
    return Task(
        config, run_id, bundle_text(document), row.to_json(), envelope.to_json(), key, document.export_digest
    )


def refused(result: FleetResult) -> str | None:
    assert (result.status, result.refused, result.steps) == ("failed", True, ())
    return result.code


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("no envelope", "no readable envelope"),
        ("unsigned", "not signed"),
        ("signed as a bundle", "does not verify"),
        ("inputs", "its inputs"),
        ("environment", "its environment"),
        ("heal", "its options"),
        ("timeout", "its options"),
        ("another run", "its run"),
        ("another bundle", "its bundle"),
        ("envelope edited", "no readable envelope"),  # its digest no longer matches
        ("a year long", "longer than a day"),
    ],
)
def test_a_task_its_envelope_does_not_vouch_for_is_refused(
    tmp_path: Path, task: Task, change: str, why: str
) -> None:
    """What anyone who can write to Redis did with a captured task: other inputs, environment,
    options, run or bundle under a genuine envelope, or an envelope of their own."""
    if change == "no envelope":
        task.envelope = {}
    elif change == "unsigned":
        task.envelope.pop("signature")
    elif change == "signed as a bundle":  # the right key, the wrong domain
        task.envelope = resigned(task.envelope, task.key, domain=BUNDLE)
    elif change == "inputs":
        task.row["inputs"] = {"query": "attacker"}
    elif change == "environment":
        task.row["environment"] = "attacker"
    elif change == "heal":
        task.row["heal"] = False
    elif change == "timeout":
        task.row["timeoutMs"] = 30_000
    elif change == "another run":
        other = secrets.token_hex(16)
        task.row["runId"], task.run_id = other, other
    elif change == "another bundle":  # the same skill exported again: another digest
        entry = ExportDocument.parse(task.bundle).entry
        task.bundle = bundle_text(sign_bundle(entry, "2026-01-03T00:00:01Z", task.key))
    elif change == "envelope edited":
        task.envelope["notAfter"] = "2036-01-03T00:00:00Z"
    elif change == "a year long":  # signed by the right key, but no coordinator makes such a task
        task.envelope = resigned(task.envelope, task.key, not_after="2027-01-03T00:00:00Z")
    result = task.run()
    assert (refused(result), why in (result.message or "")) == ("SR_REPLAY_FLEET_TASK_INVALID", True), result


def resigned(
    envelope: dict[str, Any], key: Ed25519PrivateKey, domain: bytes = TASK, **change: Any
) -> dict[str, Any]:
    """``envelope`` with ``change``, its digest recomputed and signed by ``key`` in ``domain``."""
    changed = FleetEnvelope.parse(envelope).evolve(**change)
    return {**changed.to_json(), "signature": sign_digest(domain, changed.envelope_digest, key).to_json()}


def test_the_coordinators_terms_are_in_the_envelope(task: Task) -> None:
    row = FleetRow.parse(task.row)
    sealed = seal_task(
        row, SLOT, task.digest, task.key, factory.T1, TaskTerms(expires_min=2, heartbeat_s=2.5)
    )
    assert (sealed.issued_at, sealed.not_after, sealed.heartbeat_ms) == (
        factory.T1,
        "2026-01-03T00:02:00Z",
        2500,
    )
    assert sealed.nonce != seal_task(row, SLOT, task.digest, task.key, factory.T1).nonce
    assert resigned(task.envelope, task.key) == task.envelope  # the same bytes signed again: unchanged


def test_a_task_signed_by_a_stranger_is_refused(tmp_path: Path, task: Task) -> None:
    stranger, _ = factory.write_keys(tmp_path, "stranger")
    task.envelope = resigned(task.envelope, load_signing_key(stranger))
    assert refused(task.run()) == "SR_REPLAY_FLEET_SIGNER_UNTRUSTED"


def test_a_task_past_its_envelope_is_refused(task: Task) -> None:
    late = datetime(2026, 1, 3, 0, 15, tzinfo=UTC)  # sealed at T1 for the default 15 minutes
    assert refused(task.run(now=late)) == "SR_REPLAY_FLEET_TASK_EXPIRED"


def test_an_export_is_not_a_bundle(task: Task) -> None:
    """F7: an export signed with the coordinator's key (``export --sign``) is not a bundle."""
    entry = ExportDocument.parse(task.bundle).entry
    export = sign_export(export_document(entry, factory.T1), task.key)
    assert export.export_digest == task.digest  # the very document the envelope names
    task.bundle = bundle_text(export)
    assert refused(task.run()) == "SR_REPLAY_FLEET_BUNDLE_TAMPERED"


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((), {}),
        (("bundle", {}), {}),
        (("bundle", {}, {}, "extra"), {}),
        (("bundle", {}), {"envelope": {}}),
        ((["not", "text"], {}, {}), {}),
        (("bundle", "not an object", {}), {}),
        (("bundle", {}, ["not", "an", "object"]), {}),
        (("x" * (3 * 1024 * 1024), {}, {}), {}),
    ],
)
def test_malformed_task_arguments_are_a_refusal_not_a_failure(
    task: Task, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    result = run_task(task.config, "not-a-run-id", args, kwargs)
    assert (refused(result), result.run_id) == ("SR_REPLAY_FLEET_BUNDLE_INVALID", "0" * 32)


class StillRunning(FakeBroker):
    """The rows of an earlier batch are still claimed by a live worker (its liveness key fresh)."""

    def claims(self, run_ids: list[str]) -> Mapping[str, tuple[bool, bool]]:
        return {r: (True, True) if r not in self.submitted else (False, False) for r in run_ids}


async def test_a_resume_never_runs_again_a_row_a_live_worker_is_still_running(
    skill: tuple[Path, Path],
) -> None:
    """The earlier batch stopped while a worker ran row 3 (its run never ended here): resuming then
    would run row 3 twice at once. Refused until that worker is done; then only row 3 runs."""
    rows, key = skill
    first, _ = await run(rows, key, ["ok", "ok", "lost", "ok"])
    assert [r.status for r in first.results] == ["succeeded", "succeeded", "interrupted", "succeeded"]
    vault = WorkerVault()
    request = BatchRequest(ReplayRequest(name=NAME), rows, workers=4, resume=first.runset)
    with Store.open(actor="fleet") as store:
        runs_before = len(store.runs(NAME))
        busy = StillRunning(store, [])
        with pytest.raises(ReplayError) as caught:
            await fleet_batch(
                store, plan_batch(store, request, vault, vault), busy, bundles=SignedBundles(), sign_key=key
            )
        assert (caught.value.code, caught.value.details["rows"]) == ("SR_REPLAY_RUNSET_BUSY", [3])
        assert busy.submitted == {}
        assert len(store.runs(NAME)) == runs_before
        done = FakeBroker(store, ["ok"])  # the worker is gone now: the row may run again
        again = await fleet_batch(
            store, plan_batch(store, request, vault, vault), done, bundles=SignedBundles(), sign_key=key
        )
    assert [r.status for r in again.results] == ["skipped", "skipped", "succeeded", "skipped"]


async def test_a_row_the_broker_cannot_be_asked_about_is_not_reported_as_taken(
    skill: tuple[Path, Path],
) -> None:
    """The batch stops (no worker left) and giving its rows up fails too (the broker went away):
    whether a worker took them is unknown, and the result says so, not 'a worker had taken it'."""
    rows, key = skill
    with Store.open(actor="fleet") as store:
        vault = WorkerVault()
        plan = plan_batch(store, BatchRequest(ReplayRequest(name=NAME), rows, workers=2), vault, vault)
        broker = FakeBroker(store, ["unclaimed"] * 4)
        calls = iter([1])
        broker.workers = lambda: next(calls, 0)  # type: ignore[method-assign]

        def unreachable(run_id: str) -> bool:
            raise ReplayError("SR_REPLAY_FLEET_BROKER_UNREACHABLE", "the broker did not answer")

        broker.give_up = unreachable  # type: ignore[method-assign]
        outcome = await fleet_batch(store, plan, broker, bundles=SignedBundles(), sign_key=key, stall_s=0.0)
    ran = [r for r in outcome.results if r.status != "not-run"]
    assert [(r.status, r.code) for r in ran] == [("interrupted", "SR_REPLAY_FLEET_BROKER_UNREACHABLE")] * 2
    assert all("unknown" in (r.message or "") for r in ran)


def test_a_result_left_in_redis_expires_in_minutes() -> None:
    """F7: a result (it may hold a row's outputs) nobody collected stayed in Redis 7 days on main."""
    from skillreel.fleet.app import settings

    assert settings("redis://127.0.0.1:1/0")["result_expires"] <= 3600
