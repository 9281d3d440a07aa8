"""The fleet coordinator's bookkeeping on a fake broker (fast; the real one on Redis with real workers is
tests/integration/fleet/): every row's run is reserved before its task is submitted and ended from
what the broker says; a lost worker, a task Celery reports failed or a result that does not fit
its run end as ``interrupted``; no worker left gives the rows up as ``cancelled``.

And the worker's refusals before any browser or broker (``fleet.worker.run_row``)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from skillreel.errors import ReplayError
from skillreel.fleet.bundle import SignedBundles, bundle_text, sign_bundle
from skillreel.fleet.worker import WorkerConfig, run_row
from skillreel.model.fleet import FleetResult, FleetRow, FleetStep
from skillreel.services.batching import BatchRequest, plan_batch
from skillreel.services.fleet_batching import WorkerVault, fleet_batch
from skillreel.services.preflight import ReplayRequest
from skillreel.store import Store
from skillreel.store.signing import load_signing_key, load_trusted_keys
from skillreel.store.transfer import export_document
from tests.support import factory

NAME = "search-invoices"


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

    def workers(self) -> int:
        return self.live_workers

    def submit(self, run_id: str, bundle: str, row: Mapping[str, Any]) -> None:
        assert self.store.run(run_id) is not None  # reserved before it was submitted
        self.submitted[run_id] = (self.behaviours.pop(0), dict(row))

    def _meta(self, run_id: str, behaviour: str) -> dict[str, Any] | None:
        if behaviour in ("ok", "partial", "stranger"):
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


async def test_a_result_that_does_not_fit_its_run_is_recorded_interrupted(skill: tuple[Path, Path]) -> None:
    rows, key = skill
    outcome, _ = await run(rows, key, ["garbage", "ok", "ok", "ok"])
    first = outcome.results[0]
    assert (first.status, first.code) == ("interrupted", "SR_REPLAY_FLEET_RESULT_INVALID")
    assert [r.status for r in outcome.results[1:]] == ["succeeded"] * 3


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
    row: dict[str, Any] = FleetRow(run_id=run_id, inputs={"query": "x"}).to_json()
    if case == "bad-row":
        row["surprise"] = 1
    if case == "unknown-input":
        row["inputs"] = {"querry": "x"}
    config = WorkerConfig("redis://127.0.0.1:1/0", load_trusted_keys([public]), "w1")  # never contacted
    result = run_row(config, run_id, bundle, row)
    assert (result.status, result.refused, result.code, result.steps) == ("failed", True, code, ())


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
