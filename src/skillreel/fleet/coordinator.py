"""The coordinator of a fleet batch (``skillreel replay NAME --batch FILE --broker URL --sign KEY``).

The coordinating store is the only writer: workers hold no store. In order:

1. **Checks, nothing sent**: the skill is at the expected revision, validated or enabled, on a URL
   target (:mod:`skillreel.fleet.bundle`); every row passes the replay's pre-flight here (inputs,
   environment, policy), so a bad row refuses the batch naming it; the broker answers and at least
   one worker does (``SR_REPLAY_FLEET_BROKER_UNREACHABLE``, ``SR_REPLAY_FLEET_NO_WORKERS``).
2. **The bundle**: the skill's export document, Ed25519-signed with ``--sign``, audited as one
   ``export`` event (actor ``fleet``).
3. **Rows**, at most ``window`` in flight: each row's run is reserved (``run-start``, actor
   ``fleet``) *before* its task is submitted, and finished (``run-end``) from its result: the worker's
   outcome, counts and report, re-validated here (a result that does not fit its run is recorded as
   ``interrupted``: what it did is unknown). Progress is reported per row as results arrive.
4. **A worker that dies** mid-row leaves its row claimed and its liveness key expired
   (:mod:`skillreel.fleet.claims`): the row's run is recorded ``interrupted`` (it may have acted) and
   is never run again; ``--resume`` leaves it to the caller. A task Celery reports failed (its
   process was lost) is recorded the same way.
5. **Stopping**: Ctrl-C, a broker that stops answering, or no worker left (nothing claimed for
   ``stall_s`` and no worker answers a ping) give up every row no worker claimed (recorded
   ``cancelled``, never run afterwards) and report claimed rows as ``interrupted``; rows never
   submitted are reported ``cancelled`` without a run.
"""

from __future__ import annotations

import contextlib
import secrets as tokens
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import ValidationError

from ..errors import CODES, ReplayError, SkillreelError
from ..model.entry import StoreEntry
from ..model.lifecycle import check_revision
from ..model.report import ReplayReport
from ..model.runs import (
    CANCELLED_CODE,
    INTERRUPTED_CODE,
    RunRecord,
    StepTally,
    can_act,
    finish_run,
    start_run,
)
from ..model.runs import interrupt_run as interrupted_record
from ..model.session import SessionState
from ..services.preflight import ReplayRequest, run_preflight
from ..store import AuditNote, Store
from ..store.lease import current_lease
from ..store.signing import load_signing_key
from .broker import Broker
from .bundle import bundle_text, check_runnable, check_target, sign_bundle
from .protocol import FleetResult, FleetRow, FleetStep

RowStatus = Literal["succeeded", "failed", "cancelled", "interrupted"]
WINDOW: Final = 32
STALL_S: Final = 30.0
COLLECT_S: Final = 0.5


@dataclass(frozen=True)
class FleetRequest:
    """A batch to run on the fleet: the skill, its rows (non-sensitive inputs each), the options."""

    name: str
    rows: Sequence[Mapping[str, str]]
    sign_key: Path
    environment: str | None = None
    expected_revision: int | None = None
    heal: bool = True
    timeout_ms: int = 10_000
    settle_ms: int = 0
    window: int = WINDOW
    stall_s: float = STALL_S


@dataclass(frozen=True)
class RowResult:
    """One row's outcome. ``run_id`` is None for a row never submitted; ``recorded``: the store
    holds its run's end."""

    index: int
    status: RowStatus
    run_id: str | None = None
    code: str | None = None
    message: str | None = None
    steps: tuple[FleetStep, ...] = ()
    side_effects: bool = False
    recorded: bool = False
    worker: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "row": self.index + 1,
            "status": self.status,
            "runId": self.run_id,
            "code": self.code,
            "message": self.message,
            "steps": [s.to_json() for s in self.steps],
            "sideEffects": self.side_effects,
            "recorded": self.recorded,
            "worker": self.worker,
        }


@dataclass(frozen=True)
class FleetOutcome:
    """A whole batch: one :class:`RowResult` per row, in row order; ``error`` when the batch stopped
    early (cancelled, no worker left, the broker gone)."""

    name: str
    revision: int
    signer: str
    rows: tuple[RowResult, ...]
    error: SkillreelError | None = None

    def count(self, status: RowStatus) -> int:
        return sum(1 for r in self.rows if r.status == status)

    @property
    def ok(self) -> bool:
        return self.error is None and all(r.status == "succeeded" for r in self.rows)

    def to_json(self) -> dict[str, Any]:
        statuses: tuple[RowStatus, ...] = ("succeeded", "failed", "interrupted", "cancelled")
        return {
            "name": self.name,
            "revision": self.revision,
            "signer": self.signer,
            "rows": [r.to_json() for r in self.rows],
            "summary": {"rows": len(self.rows), **{s: self.count(s) for s in statuses}},
        }


Progress = Callable[[RowResult, int, int], None]  # (row, rows finished, rows in the batch)


class _Secrets:
    """The coordinator's pre-flight has no sensitive values: each worker reads its own vault."""

    def get(self, skill: str, param: str) -> str | None:
        return None


class _WorkerSessions:
    """A vault session lives in the worker's vault; the coordinator checks only that one is named."""

    def read(self, name: str) -> SessionState | None:
        return SessionState({})


def check_rows(store: Store, entry: StoreEntry, request: FleetRequest) -> list[FleetRow]:
    """Every row through the replay's pre-flight (nothing sent); a bad row refuses the batch."""
    policy = store.policy()
    rows = []
    for index, inputs in enumerate(request.rows):
        replay = ReplayRequest(
            name=entry.name,
            inputs=dict(inputs),
            environment=request.environment,
            expected_revision=request.expected_revision,
            heal=request.heal,
            timeout_ms=request.timeout_ms,
            settle_ms=request.settle_ms,
        )
        try:
            checked = run_preflight(entry, policy, replay, _Secrets(), _WorkerSessions())
        except SkillreelError as exc:
            raise type(exc)(
                exc.code, f"row {index + 1}: {exc.message}", action_id=exc.action_id, details=exc.details
            ) from exc
        rows.append(
            FleetRow(
                run_id="0" * 32,  # the run id is given when the row's run is reserved
                inputs=dict(inputs),
                environment=request.environment,
                timeout_ms=request.timeout_ms,
                settle_ms=request.settle_ms,
                heal=checked.heal,
            )
        )
    return rows


def run_fleet(
    store: Store, request: FleetRequest, broker: Broker, *, progress: Progress | None = None
) -> FleetOutcome:
    """Run a batch on the fleet (module docstring). Raises ``SR_*`` for a refusal before anything
    was recorded; afterwards every row's outcome is in the result."""
    entry = store.get(request.name)
    check_revision(entry, request.expected_revision)
    check_runnable(entry)
    check_target(entry)
    key = load_signing_key(request.sign_key)
    rows = check_rows(store, entry, request)
    if broker.workers() == 0:
        raise ReplayError(
            "SR_REPLAY_FLEET_NO_WORKERS", "no worker answered on the broker; nothing was submitted"
        )
    document = sign_bundle(entry, store.now(), key)
    signer = document.signature.key_id if document.signature is not None else ""
    store.audit(
        AuditNote(
            kind="export",
            name=entry.name,
            revision=entry.revision,
            digests={"export": document.export_digest, "entry": entry.entry_digest},
            actor="fleet",
        )
    )
    batch = _Batch(store, broker, entry, bundle_text(document), request, rows, progress)
    error = batch.run()
    return FleetOutcome(entry.name, entry.revision, signer, batch.ordered(), error)


@dataclass
class _Batch:
    store: Store
    broker: Broker
    entry: StoreEntry
    bundle: str
    request: FleetRequest
    rows: list[FleetRow]
    progress: Progress | None
    pending: deque[int] = field(default_factory=deque)
    flight: dict[str, tuple[int, RunRecord]] = field(default_factory=dict)
    done: dict[int, RowResult] = field(default_factory=dict)
    last_sign: float = field(default_factory=time.monotonic)

    def run(self) -> SkillreelError | None:
        """Submit and collect until every row has an outcome; the error that stopped it, if any."""
        self.pending.extend(range(len(self.rows)))
        try:
            while self.pending or self.flight:
                self._submit()
                self._collect()
                self._check_claims()
        except KeyboardInterrupt:
            return self._stop(
                ReplayError(CANCELLED_CODE, "the batch was cancelled; the rows that ran are listed")
            )
        except SkillreelError as exc:
            return self._stop(exc)
        return None

    def ordered(self) -> tuple[RowResult, ...]:
        return tuple(self.done[i] for i in sorted(self.done))

    # --- submitting ---------------------------------------------------------------------------

    def _submit(self) -> None:
        while self.pending and len(self.flight) < max(1, self.request.window):
            index = self.pending[0]
            run = self.store.reserve_run(self._started())  # refused: the batch stops (see run)
            self.pending.popleft()
            row = self.rows[index].model_copy(update={"run_id": run.run_id})
            try:
                self.broker.submit(run.run_id, self.bundle, row.to_json())
            except SkillreelError:
                self._unsent(index, run)
                raise
            self.flight[run.run_id] = (index, run)

    def _started(self) -> RunRecord:
        actions = self.entry.draft.actions
        return start_run(
            tokens.token_hex(16),
            self.entry.name,
            self.entry.revision,
            self.entry.draft.draft_digest,
            len(actions),
            sum(1 for a in actions if can_act(a)),
            "fleet",
            current_lease(),
            self.store.now(),
        )

    def _unsent(self, index: int, run: RunRecord) -> None:
        """A submit that failed: the message may or may not have reached Redis."""
        given_up = False
        with contextlib.suppress(SkillreelError):
            given_up = self.broker.give_up(run.run_id)
        if given_up:
            self._cancelled(
                index, run, "SR_REPLAY_FLEET_BROKER_UNREACHABLE", "the row could not be submitted"
            )
        else:
            self._interrupted(
                index, run, "SR_REPLAY_FLEET_BROKER_UNREACHABLE", "the row's submission is unknown"
            )

    # --- collecting ---------------------------------------------------------------------------

    def _collect(self) -> None:
        if not self.flight:
            return
        for run_id, meta in self.broker.results(list(self.flight), COLLECT_S):
            found = self.flight.pop(run_id, None)
            if found is None:
                continue
            self._record(*found, meta)
            with contextlib.suppress(SkillreelError):
                self.broker.forget(run_id)

    def _record(self, index: int, run: RunRecord, meta: Mapping[str, Any]) -> None:
        self.last_sign = time.monotonic()
        if meta.get("status") != "SUCCESS":  # the task's process was lost, or the task broke
            self._interrupted(index, run, INTERRUPTED_CODE, "the worker's process ended during the row")
            return
        try:
            result = FleetResult.parse(meta.get("result") or {})
            finished, report = self._finished(run, result)
        except (ValidationError, ValueError, TypeError, KeyError):
            self._interrupted(
                index, run, "SR_REPLAY_FLEET_RESULT_INVALID", "the worker's result does not fit the row's run"
            )
            return
        recorded = self._write(finished, report=report)
        self._done(
            RowResult(
                index,
                result.status,
                run.run_id,
                result.code,
                result.message,
                result.steps,
                finished.side_effects,
                recorded,
                result.worker,
            )
        )

    def _finished(self, run: RunRecord, result: FleetResult) -> tuple[RunRecord, ReplayReport | None]:
        """The run's finished record from a worker's result, checked against the run (ValueError)."""
        if result.run_id != run.run_id or (result.code is not None and result.code not in CODES):
            raise ValueError("the result names another run or an unknown code")
        report = result.report
        if result.status == "succeeded":
            approval = self.entry.approval
            if (
                report is None
                or report.name != run.name
                or report.draft_digest != run.draft_digest
                or approval is None
                or report.approval_digest != approval.approval_digest
                or len(report.steps) != run.steps_total
            ):
                raise ValueError("the report is not this run's")
        finished = finish_run(
            run,
            result.status,
            self.store.now(),
            tally=StepTally(
                steps_run=result.steps_run, steps_acted=result.steps_acted, healed_steps=result.healed_steps
            ),
            code=result.code,
            report_digest=report.report_digest if report is not None else None,
        )
        return finished, report

    # --- workers that are gone, stopping --------------------------------------------------------

    def _check_claims(self) -> None:
        if not self.flight:
            return
        states = self.broker.claims(list(self.flight))
        lost = [r for r, (by_worker, alive) in states.items() if by_worker and not alive]
        if any(by_worker and alive for by_worker, alive in states.values()):
            self.last_sign = time.monotonic()
        if lost:
            ready = dict(self.broker.results(lost, 0.0))  # a result stored just before the key expired
            for run_id in lost:
                index, run = self.flight.pop(run_id)
                if run_id in ready:
                    self._record(index, run, ready[run_id])
                else:
                    self._interrupted(index, run, INTERRUPTED_CODE, "the worker running the row is gone")
        if self.flight and time.monotonic() - self.last_sign > self.request.stall_s:
            if self.broker.workers() == 0:
                raise ReplayError(
                    "SR_REPLAY_FLEET_NO_WORKERS",
                    "no worker answers on the broker any more; the batch stopped",
                )
            self.last_sign = time.monotonic()

    def _stop(self, error: SkillreelError) -> SkillreelError:
        """Give up every row no worker claimed (cancelled), report claimed ones as interrupted, and
        the rows never submitted as cancelled without a run."""
        for run_id, (index, run) in list(self.flight.items()):
            given_up = False
            with contextlib.suppress(SkillreelError):
                given_up = self.broker.give_up(run_id)
            if given_up:
                self._cancelled(index, run, error.code, "the row was cancelled before a worker took it")
            else:
                self._interrupted(
                    index, run, INTERRUPTED_CODE, "the batch stopped while a worker ran the row"
                )
        self.flight.clear()
        while self.pending:
            index = self.pending.popleft()
            self._done(RowResult(index, "cancelled", code=error.code, message="the row was not submitted"))
        return error

    def _cancelled(self, index: int, run: RunRecord, code: str, message: str) -> None:
        finished = finish_run(run, "cancelled", self.store.now(), tally=StepTally(), code=CANCELLED_CODE)
        self._done(RowResult(index, "cancelled", run.run_id, code, message, (), False, self._write(finished)))

    def _interrupted(self, index: int, run: RunRecord, code: str, message: str) -> None:
        finished = interrupted_record(run, self.store.now())
        self._done(
            RowResult(
                index,
                "interrupted",
                run.run_id,
                code,
                message,
                (),
                finished.side_effects,
                self._write(finished),
            )
        )

    def _write(self, finished: RunRecord, *, report: ReplayReport | None = None) -> bool:
        try:
            self.store.finish_run(finished, report=report)
        except SkillreelError:
            return False
        return True

    def _done(self, row: RowResult) -> None:
        self.done[row.index] = row
        if self.progress is not None:
            self.progress(row, len(self.done), len(self.rows))
