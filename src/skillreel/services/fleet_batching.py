"""The coordinator of a fleet batch (``skillreel replay NAME --batch FILE --broker URL --sign KEY``).

    outcome = await fleet_batch(store, plan, CeleryBroker(url), bundles=SignedBundles(), sign_key=key)

The batch is planned exactly as a local one (``services.batching.plan_batch``: the file checked
whole, the pre-flight, ``--resume``), and its rows go through the same scheduling seam
(``services.batching.run_rows``) with a fleet executor instead of a local browser. The coordinating
store is the only writer: workers hold no store; each row's run is reserved and ended by
``services.runs``, as every run is. The transport is passed in: a :class:`Broker` (``fleet/broker.py``
is Celery's) and the :class:`Bundler` that checks and signs what a worker gets (``fleet/bundle.py``).
In order:

1. **Checks, nothing sent**: the skill is validated or enabled and on a URL target
   (:meth:`Bundler.check`, as a worker checks it), the broker answers and at least one worker does
   (``SR_REPLAY_FLEET_BROKER_UNREACHABLE``, ``SR_REPLAY_FLEET_NO_WORKERS``).
2. **The bundle**: the skill's export document, Ed25519-signed with ``--sign``, audited as one
   ``export`` event (actor ``fleet``).
3. **Rows**, ``--workers`` of them in flight: each row's run is reserved (``run-start``, actor
   ``fleet``, tagged with its runset and row) *before* its task is submitted with its envelope
   (:func:`seal_task`: signed with the same key in the fleet task's signature domain, binding the
   bundle, runset, row, run, inputs, environment and options, a nonce and a not-after time
   ``terms.expires_min`` minutes on, and the row's liveness timeout), and finished
   (``run-end``) from its result: the worker's outcome, counts and report, checked against the run
   here (a result that does not fit is recorded ``interrupted``: what the row did is unknown).
4. **A worker that dies** mid-row leaves its row claimed and its liveness key expired
   (``fleet/claims.py``): the row's run is recorded ``interrupted`` (it may have acted) and
   is never run again (``--resume`` leaves the choice to the caller). A task Celery reports failed
   (its pool process was lost) is recorded the same way.
5. **Stopping**: Ctrl-C gives up every row no worker claimed yet (its run ``cancelled``; a late
   delivery of it is refused by its claim) and reports the claimed ones ``interrupted``. When nothing
   was claimed for ``stall_s`` seconds and no worker answers a ping, the rows in flight are given up
   the same way and no further row is submitted (``not-run``, ``SR_REPLAY_FLEET_NO_WORKERS``).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

from pydantic import ValidationError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ..errors import ReplayError, SkillreelError
from ..errors.codes import CODES
from ..model.batch import BatchRow
from ..model.entry import StoreEntry
from ..model.export import ExportDocument
from ..model.fleet import FleetEnvelope, FleetResult, FleetRow, inputs_digest
from ..model.lifecycle import parse_timestamp, timestamp
from ..model.limits import DEFAULT_HEARTBEAT_S, DEFAULT_TASK_EXPIRES_MIN, MAX_OUTPUTS_BYTES
from ..model.login import LoginState
from ..model.outputs import masked_warnings
from ..model.runs import (
    CANCELLED_CODE,
    INTERRUPTED_CODE,
    BatchSlot,
    RunRecord,
    StepTally,
)
from ..model.values import outputs_size
from ..store import AuditNote, Store, signing
from ..store.signing import load_signing_key
from .batching import (
    BatchOutcome,
    BatchPlan,
    RowCancelled,
    RowExecutor,
    RowListener,
    RowResult,
    end_batch,
    holding_runset,
    run_pending,
)
from .runs import end_run, interrupt, reserve_run

STALL_S: Final = 60.0
COLLECT_S: Final = 0.5
NO_WORKERS: Final = "SR_REPLAY_FLEET_NO_WORKERS"


class Broker(Protocol):
    """What the coordinator needs from the broker (``Meta``: Celery's result ``{status, result, ...}``)."""

    def workers(self) -> int:
        """How many workers answer now (0: none)."""
        ...

    def submit(self, run_id: str, bundle: str, row: Mapping[str, Any], envelope: Mapping[str, Any]) -> None:
        """Queue the task ``(bundle, row, envelope)`` under the id ``run_id``."""
        ...

    def results(self, run_ids: list[str], wait_s: float) -> Iterator[tuple[str, Mapping[str, Any]]]:
        """The results that are ready among ``run_ids``, waiting at most about ``wait_s`` for one."""
        ...

    def claims(self, run_ids: list[str]) -> Mapping[str, tuple[bool, bool]]:
        """For each run id: (a worker claimed it, its liveness key is present)."""
        ...

    def give_up(self, run_id: str) -> bool:
        """Take a row no worker claimed, so none ever runs it; False when a worker claimed it first."""
        ...

    def forget(self, run_id: str) -> None: ...

    def close(self) -> None: ...


class Bundler(Protocol):
    """How a skill travels to the workers: the checks a worker makes on it (raising ``SR_*``), and
    the signed bundle (its export document, and the text a task carries)."""

    def check(self, entry: StoreEntry) -> None: ...

    def sign(self, entry: StoreEntry, now: str, key: Ed25519PrivateKey) -> tuple[ExportDocument, str]: ...


@dataclass(frozen=True)
class TaskTerms:
    """What every envelope of a batch says beyond its row: how many minutes a task may wait for a
    worker (``--task-expires``) and the row's liveness timeout (``--heartbeat``)."""

    expires_min: int = DEFAULT_TASK_EXPIRES_MIN
    heartbeat_s: float = DEFAULT_HEARTBEAT_S


def seal_task(
    task: FleetRow,
    slot: BatchSlot,
    bundle_digest: str,
    key: Ed25519PrivateKey,
    now: str,
    terms: TaskTerms = TaskTerms(),
) -> FleetEnvelope:
    """The signed envelope of one task (``model/fleet.py``): valid for this task only, once, until
    ``terms.expires_min`` minutes after ``now``."""
    envelope = FleetEnvelope.build(
        run_id=task.run_id,
        runset_id=slot.runset,
        row=slot.row,
        bundle_digest=bundle_digest,
        inputs_digest=inputs_digest(task.inputs),
        environment=task.environment,
        timeout_ms=task.timeout_ms,
        settle_ms=task.settle_ms,
        heal=task.heal,
        heartbeat_ms=round(terms.heartbeat_s * 1000),
        nonce=secrets.token_hex(16),
        issued_at=now,
        not_after=timestamp(parse_timestamp(now) + timedelta(minutes=terms.expires_min)),
    )
    signature = signing.sign_digest(signing.TASK, envelope.envelope_digest, key)
    return FleetEnvelope.parse({**envelope.to_json(), "signature": signature.to_json()})


class WorkerVault:
    """The coordinator's stand-in for the vault in the batch's pre-flight: sensitive values and
    logins live in each worker's vault, never here, so the coordinator checks only that the skill
    names them (nothing it returns reaches a browser or a task)."""

    def get(self, skill: str, param: str) -> str | None:
        return ""

    def read(self, name: str) -> LoginState | None:
        return LoginState({})


async def fleet_batch(
    store: Store,
    plan: BatchPlan,
    broker: Broker,
    *,
    bundles: Bundler,
    sign_key: Path,
    on_row: RowListener | None = None,
    stall_s: float = STALL_S,
    terms: TaskTerms = TaskTerms(),
) -> BatchOutcome:
    """Run a planned batch on the fleet (module docstring). Raises ``SR_*`` for a refusal before
    anything was recorded, :class:`~skillreel.services.batching.BatchCancelled` when cancelled."""
    request = plan.request
    entry = store.get(request.replay.name)
    bundles.check(entry)
    key = load_signing_key(sign_key)
    if await asyncio.to_thread(broker.workers) == 0:
        raise ReplayError(NO_WORKERS, "no worker answered on the broker; nothing was submitted")
    with holding_runset(store, plan, on_row) as (plan, skipped):
        if plan.resumed:
            await _none_still_running(store, plan, broker)
        document, bundle = bundles.sign(entry, store.now(), key)
        store.audit(
            AuditNote(
                kind="export",
                name=entry.name,
                revision=entry.revision,
                digests={"export": document.export_digest, "entry": entry.entry_digest},
                actor="fleet",
            )
        )
        watch = _Watch(broker, stall_s)
        sealed = _Sealer(document.export_digest, key, terms)
        execute = fleet_executor(store, plan, entry, bundle, broker, watch, sealed)
        watching = asyncio.ensure_future(watch.run())
        try:
            ran = await run_pending(plan, execute, on_row)
        finally:
            watching.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):  # a broken watch ended its rows
                await watching
    return end_batch(plan, skipped, ran)


async def _none_still_running(store: Store, plan: BatchPlan, broker: Broker) -> None:
    """A resumed runset whose earlier batch stopped (Ctrl-C, a signal, a crash) while a worker ran one
    of its rows: that row's run never ended in the store, but the worker may still be acting. Running
    it again now would act twice at once: refused (``SR_REPLAY_RUNSET_BUSY``) until it is over."""
    pending = {r.number for r in plan.pending}
    unfinished = {
        row: run for row, run in store.runset_unfinished(plan.runset.runset_id).items() if row in pending
    }
    if not unfinished:
        return
    states = await asyncio.to_thread(broker.claims, list(unfinished.values()))
    busy = sorted(row for row, run in unfinished.items() if states.get(run, (False, False)) == (True, True))
    if busy:
        raise ReplayError(
            "SR_REPLAY_RUNSET_BUSY",
            f"a fleet worker is still running row {busy[0]} of runset {plan.runset.runset_id} "
            f"({len(busy)} row(s) in all); nothing ran: resume once it is over",
            details={"rows": busy[:100]},
        )


# --- watching the broker: results, claims, workers --------------------------------------------------


@dataclass(frozen=True)
class _Ended:
    """How the watch saw a row end: its result (Celery's ``{status, result}``), or ``lost`` (claimed,
    its worker gone), or ``abandoned`` (no worker left: give it up)."""

    meta: Mapping[str, Any] | None = None
    lost: bool = False
    abandoned: bool = False


@dataclass
class _Watch:
    """One loop for every row in flight: it reads results and claims off the event loop (a thread),
    and resolves each row's future when the row ended."""

    broker: Broker
    stall_s: float
    rows: dict[str, asyncio.Future[_Ended]] = field(default_factory=dict)
    stopped: SkillreelError | None = None
    _last_sign: float = field(default_factory=time.monotonic)
    _wake: asyncio.Event = field(default_factory=asyncio.Event)

    def follow(self, run_id: str) -> asyncio.Future[_Ended]:
        future: asyncio.Future[_Ended] = asyncio.get_running_loop().create_future()
        if self.stopped is not None:
            future.set_result(_Ended(abandoned=True))
            return future
        if not self.rows:  # the first row in flight after none: the wait for a claim starts now
            self._last_sign = time.monotonic()
        self.rows[run_id] = future
        self._wake.set()
        return future

    def drop(self, run_id: str) -> None:
        self.rows.pop(run_id, None)

    async def run(self) -> None:
        """Watch until cancelled; if the broker fails (or the watch breaks), every row in flight is
        given up and no further row is submitted."""
        try:
            await self._watch()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the broker stopped answering, or a defect: never leave rows waiting
            self.stopped = (
                exc
                if isinstance(exc, SkillreelError)
                else ReplayError(
                    "SR_REPLAY_FLEET_BROKER_UNREACHABLE", f"watching the broker failed ({type(exc).__name__})"
                )
            )
            for run_id in list(self.rows):
                self._end(run_id, _Ended(abandoned=True))
            raise

    async def _watch(self) -> None:
        while True:
            if not self.rows:
                self._wake.clear()
                await self._wake.wait()
                continue
            ids = list(self.rows)
            ready = dict(await asyncio.to_thread(_results, self.broker, ids, COLLECT_S))
            for run_id, meta in ready.items():
                self._end(run_id, _Ended(meta=meta))
            await self._check_claims()

    async def _check_claims(self) -> None:
        ids = list(self.rows)
        if not ids:
            return
        states = await asyncio.to_thread(self.broker.claims, ids)
        if any(by_worker and alive for by_worker, alive in states.values()):
            self._last_sign = time.monotonic()
        lost = [r for r, (by_worker, alive) in states.items() if by_worker and not alive]
        if lost:  # a result stored just before its liveness key expired still counts
            ready = dict(await asyncio.to_thread(_results, self.broker, lost, 0.0))
            for run_id in lost:
                self._end(run_id, _Ended(meta=ready[run_id]) if run_id in ready else _Ended(lost=True))
        if self.rows and time.monotonic() - self._last_sign > self.stall_s:
            if await asyncio.to_thread(self.broker.workers) == 0:
                self.stopped = ReplayError(NO_WORKERS, "no worker answers on the broker any more")
                for run_id in list(self.rows):
                    self._end(run_id, _Ended(abandoned=True))
            self._last_sign = time.monotonic()

    def _end(self, run_id: str, ended: _Ended) -> None:
        future = self.rows.pop(run_id, None)
        if future is not None and not future.done():
            future.set_result(ended)


def _results(broker: Broker, ids: list[str], wait_s: float) -> list[tuple[str, Mapping[str, Any]]]:
    return list(broker.results(ids, wait_s))


# --- one row ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Sealer:
    """Seals each task of one batch (:func:`seal_task`) with the batch's key, bundle and terms."""

    bundle_digest: str
    key: Ed25519PrivateKey
    terms: TaskTerms

    def seal(self, task: FleetRow, slot: BatchSlot, now: str) -> FleetEnvelope:
        return seal_task(task, slot, self.bundle_digest, self.key, now, self.terms)


def fleet_executor(
    store: Store,
    plan: BatchPlan,
    entry: StoreEntry,
    bundle: str,
    broker: Broker,
    watch: _Watch,
    sealer: _Sealer,
) -> RowExecutor:
    """The fleet's :data:`~skillreel.services.batching.RowExecutor`: reserve, submit, wait, record."""
    replay = plan.request.replay
    heal = replay.heal and store.policy().heal_mode == "runtime"
    row_of = _RowRecorder(store, entry)

    async def execute(row: BatchRow) -> RowResult:
        if watch.stopped is not None:
            return RowResult(
                row.number, row.line, "not-run", code=watch.stopped.code, message=watch.stopped.message
            )
        slot = BatchSlot(plan.runset.runset_id, row.number)
        try:
            run = reserve_run(store, entry, slot, actor="fleet")
        except SkillreelError as exc:
            return RowResult(row.number, row.line, "failed", code=exc.code, message=exc.message)
        task = FleetRow(
            run_id=run.run_id,
            inputs=dict(plan.inputs(row)),
            environment=replay.environment,
            timeout_ms=replay.timeout_ms,
            settle_ms=replay.settle_ms,
            heal=heal,
        )
        try:
            envelope = sealer.seal(task, slot, store.now())
            broker.submit(run.run_id, bundle, task.to_json(), envelope.to_json())
        except SkillreelError as exc:
            return row_of.given_up(row, run, broker, exc)
        waiting = watch.follow(run.run_id)
        try:
            ended = await waiting
        except asyncio.CancelledError:
            watch.drop(run.run_id)
            cancelled = ReplayError(CANCELLED_CODE, "the batch was cancelled")
            raise RowCancelled(row_of.given_up(row, run, broker, cancelled)) from None
        if ended.abandoned:
            return row_of.given_up(row, run, broker, watch.stopped or ReplayError(NO_WORKERS, "no worker"))
        if ended.lost:
            return row_of.interrupted(row, run, INTERRUPTED_CODE, "the worker running the row is gone")
        with contextlib.suppress(SkillreelError):
            broker.forget(run.run_id)
        return row_of.from_result(row, run, ended.meta or {})

    return execute


@dataclass(frozen=True)
class _RowRecorder:
    """Ends a row's run in the store (the only writer) and says how the row went."""

    store: Store
    entry: StoreEntry

    @property
    def step_ids(self) -> set[str]:
        """Every step of the skill, those inside loops and branches too: a report names only these."""
        return {a.id for a in self.entry.draft.walk()}

    def from_result(self, row: BatchRow, run: RunRecord, meta: Mapping[str, Any]) -> RowResult:
        if meta.get("status") != "SUCCESS":  # the task's pool process was lost, or the task broke
            return self.interrupted(row, run, INTERRUPTED_CODE, "the worker's process ended during the row")
        try:
            result = FleetResult.parse(meta.get("result") or {})
            tally = self._tally(run, result)
        except (ValidationError, ValueError, TypeError):
            return self.interrupted(
                row, run, "SR_REPLAY_FLEET_RESULT_INVALID", "the worker's result does not fit the row's run"
            )
        try:
            ended = end_run(self.store, run, result.status, tally, code=result.code, report=result.report)
        except ValueError:  # counts the run's rules refuse (more steps than it has...)
            return self.interrupted(
                row, run, "SR_REPLAY_FLEET_RESULT_INVALID", "the worker's result does not fit the row's run"
            )
        return RowResult(
            row.number,
            row.line,
            result.status,
            code=result.code,
            message=_message(result.message, ended.recorded),
            run_id=run.run_id,
            side_effects=ended.run.side_effects,
            outputs=result.outputs,
            masked=next(iter(masked_warnings(result.masked)), None),
        )

    def _tally(self, run: RunRecord, result: FleetResult) -> StepTally:
        """The run's end counts from a worker's result, checked against the run (ValueError)."""
        if result.run_id != run.run_id or (result.code is not None and result.code not in CODES):
            raise ValueError("the result names another run or an unknown code")
        report = result.report
        approval = self.entry.approval
        if result.status == "succeeded" and (
            report is None
            or approval is None
            or (report.name, report.draft_digest, report.approval_digest, len(report.steps))
            != (run.name, run.draft_digest, approval.approval_digest, result.steps_run)
            or not {s.action_id for s in report.steps} <= self.step_ids
        ):
            raise ValueError("the report is not this run's")
        if result.outputs is not None and (
            result.status != "succeeded"
            or not set(result.outputs) <= {o.name for o in self.entry.draft.outputs}
            or outputs_size(result.outputs) > MAX_OUTPUTS_BYTES
        ):
            raise ValueError("the outputs are not the skill's")
        if result.masked and (result.outputs is None or not set(result.masked) <= set(result.outputs)):
            raise ValueError("the masked outputs are not the row's")
        return StepTally(
            steps_run=result.steps_run, steps_acted=result.steps_acted, healed_steps=result.healed_steps
        )

    def given_up(self, row: BatchRow, run: RunRecord, broker: Broker, cause: SkillreelError) -> RowResult:
        """Take the row back from the broker: cancelled when no worker had claimed it (it never
        runs), interrupted when one had (it may be running)."""
        try:
            taken = broker.give_up(run.run_id)
        except SkillreelError as exc:  # the broker does not answer: whether a worker took it is unknown
            return self.interrupted(
                row,
                run,
                exc.code,
                "the broker did not answer when the batch stopped: whether a worker took the row is unknown",
            )
        if not taken:
            return self.interrupted(
                row, run, INTERRUPTED_CODE, "a worker had taken the row when the batch stopped"
            )
        ended = end_run(self.store, run, "cancelled", StepTally(), code=CANCELLED_CODE)
        return RowResult(
            row.number,
            row.line,
            "cancelled",
            code=cause.code,
            message=_message(cause.message, ended.recorded),
            run_id=run.run_id,
        )

    def interrupted(self, row: BatchRow, run: RunRecord, code: str, message: str) -> RowResult:
        ended = interrupt(self.store, run)
        return RowResult(
            row.number,
            row.line,
            "interrupted",
            code=code,
            message=_message(message, ended.recorded),
            run_id=run.run_id,
            side_effects=ended.run.side_effects,
        )


def _message(message: str | None, recorded: bool) -> str | None:
    if recorded:
        return message
    note = "its run could not be recorded (`skillreel runs NAME` shows it as started or interrupted)"
    return f"{message}; {note}" if message else note
