"""The batch use case (``skillreel replay NAME --batch FILE``): many rows of inputs, one browser.

    plan = plan_batch(store, BatchRequest(ReplayRequest(name="search"), Path("rows.csv"), workers=4))
    outcome = await replay_batch(store, plan, on_row=print_row)     # BatchCancelled on Ctrl-C
    outcome.to_json()   # the `data` of the `replay --batch --json` envelope

In order:

1. **Plan** (:func:`plan_batch`, no browser, nothing written): the file is read with the one reader
   of user files (regular, no symlink, at most 64 MiB), parsed and held against the skill's
   parameters (``model.batch``: every bad line refused, naming it), the replay's pre-flight runs once
   with the first row (approval, target, capabilities, the vault's sensitive values), and a
   ``--resume RUNSET`` is matched to the runset the store keeps (same skill, same rows) to find the
   rows that already succeeded.
2. **Rows** (:func:`run_rows`): the scheduling seam. ``workers`` tasks take the rows in order and hand
   each to a :data:`RowExecutor`; a failed row never stops the others unless ``stop_on_failure``
   (then no further row starts; rows already running finish). Cancelling it cancels the rows that
   are running (each reports itself ``cancelled`` through :class:`RowCancelled`) and starts no other
   (``not-run``). Another executor (a fleet of workers) plugs in here unchanged.
3. **The local executor** (:func:`replay_batch`): every row is one run of the replay use case
   (``services.replaying.replay_skill``, the same pre-flight, reservation, engine and run end as a
   single replay) with the row's inputs, tagged with the runset and row number; each gets a fresh,
   isolated context and enforcing proxy of ONE Chromium (``sandbox.warm.WarmBrowser``), closed at
   the end. The store is opened with ``actor="batch"`` by the caller.
"""

from __future__ import annotations

import asyncio
import secrets as tokens
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence, Set
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..errors import InputError, ReplayError, SkillreelError
from ..model.batch import (
    BatchFile,
    BatchRow,
    RowProblem,
    Runset,
    RunsetClaim,
    batch_format,
    check_columns,
    parse_rows,
    refuse_rows,
    row_problems,
    rows_digest,
)
from ..model.draft import Draft
from ..model.envelope import ResultWarning
from ..model.limits import DEFAULT_WORKERS, MAX_BATCH_BYTES, WORKERS_RANGE
from ..model.runs import BatchSlot
from ..sandbox.artifacts import prepare_directory
from ..store import Store
from ..store.lease import current_lease
from ..user_files import read_user_file
from ..vault import EnvKeyringSecrets, SecretSource
from ..vault.logins import LoginSource, LoginVault
from .preflight import (
    InputValue,
    ReplayRequest,
    check_options,
    run_preflight,
    typed_values,
    value_limits,
)
from .replaying import ReplayCancelled, ReplayOutcome, SessionFactory, replay_skill

RowStatus = Literal["succeeded", "failed", "cancelled", "interrupted", "skipped", "not-run"]
"""How a row ended: its run ``succeeded``, ``failed`` or was ``cancelled`` (Ctrl-C while it ran);
``interrupted`` (its worker went away: what it did is unknown); ``skipped`` (it had succeeded in the
runset resumed); ``not-run`` (cancelled or stopped before it started: nothing was done for it)."""

_NOT_OK: frozenset[RowStatus] = frozenset({"failed", "cancelled", "interrupted", "not-run"})


@dataclass(frozen=True)
class BatchRequest:
    """A batch as a caller asks for it: the options every row shares (``replay.inputs``: values given
    to every row with ``--input``), the file of rows, and how to run them."""

    replay: ReplayRequest
    batch_file: Path
    workers: int = DEFAULT_WORKERS
    stop_on_failure: bool = False
    resume: str | None = None


@dataclass(frozen=True)
class BatchPlan:
    """A batch that may start: its runset (new, or the one resumed), every row, and the rows that
    already succeeded in the resumed runset (row number -> run id)."""

    request: BatchRequest
    runset: Runset
    rows: tuple[BatchRow, ...] = field(repr=False)
    done: Mapping[int, str] = field(default_factory=dict)
    resumed: bool = False

    @property
    def pending(self) -> tuple[BatchRow, ...]:
        return tuple(r for r in self.rows if r.number not in self.done)

    def inputs(self, row: BatchRow) -> dict[str, InputValue]:
        """A row's inputs: the values every row shares, then the row's own."""
        return {**self.request.replay.inputs, **row.inputs}


@dataclass(frozen=True)
class RowResult:
    """One row's outcome: content-free (codes, ids, counts) except ``outputs``, which belong to the
    caller (whatever the single replay's result carries under ``outputs``, passed through)."""

    row: int
    line: int
    status: RowStatus
    code: str | None = None
    message: str | None = None
    run_id: str | None = None
    side_effects: bool = False
    seconds: float | None = None  # how long the row ran here (progress lines, result files)
    outputs: Any = None
    masked: ResultWarning | None = None  # the row's SR_REPLAY_OUTPUT_MASKED (the batch's warnings)

    def to_json(self) -> dict[str, Any]:
        return {
            "row": self.row,
            "line": self.line,
            "status": self.status,
            "code": self.code,
            "message": self.message,
            "runId": self.run_id,
            "sideEffects": self.side_effects,
            "outputs": self.outputs,
        }


class RowCancelled(asyncio.CancelledError):
    """Raised by a :data:`RowExecutor` whose row was cancelled while it ran, carrying its result."""

    def __init__(self, result: RowResult) -> None:
        super().__init__("row cancelled")
        self.result = result


RowExecutor = Callable[[BatchRow], Awaitable[RowResult]]
"""Runs one row to its end and says how it went (``succeeded`` or ``failed``, never raising a
:class:`SkillreelError`); cancelled while it runs, it raises :class:`RowCancelled` (or a plain
``CancelledError`` if nothing started for the row)."""
RowListener = Callable[[RowResult], None]


@dataclass(frozen=True)
class RowsRun:
    """What :func:`run_rows` came to: one result per row given, in row order."""

    results: tuple[RowResult, ...]
    cancelled: bool = False
    stopped: bool = False  # --stop-on-failure: a row failed and no further row was started


async def run_rows(
    rows: Sequence[BatchRow],
    execute: RowExecutor,
    *,
    workers: int,
    stop_on_failure: bool = False,
    on_row: RowListener | None = None,
) -> RowsRun:
    """Run ``rows`` on ``workers`` concurrent tasks (see the module docstring, step 2). Cancelled,
    it waits for the running rows to end as cancelled and returns (``cancelled=True``)."""
    results: dict[int, RowResult] = {}
    queue = list(reversed(rows))
    stop = asyncio.Event()

    def record(result: RowResult) -> None:
        results[result.row] = result
        if on_row is not None:
            on_row(result)

    async def worker() -> None:
        while queue and not stop.is_set():
            row = queue.pop()
            try:
                result = await execute(row)
            except RowCancelled as cancelled:
                record(cancelled.result)
                raise
            record(result)
            if stop_on_failure and result.status in _NOT_OK:
                stop.set()

    tasks = [asyncio.ensure_future(worker()) for _ in range(max(1, min(workers, len(rows))))]
    cancelled = False
    try:
        await asyncio.gather(*tasks)
    except asyncio.CancelledError:
        cancelled = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        current = asyncio.current_task()
        if current is not None:
            current.uncancel()  # reported by the result, not raised again
    for row in rows:
        if row.number not in results:
            results[row.number] = RowResult(row.number, row.line, "not-run")
    ordered = tuple(results[row.number] for row in rows)
    return RowsRun(ordered, cancelled=cancelled, stopped=stop.is_set() and not cancelled)


@dataclass(frozen=True)
class BatchOutcome:
    """A whole batch: its runset, one result per row of the file (in row order), and whether it was
    cancelled or stopped early."""

    name: str
    runset: str
    resumed: bool
    workers: int
    results: tuple[RowResult, ...]
    cancelled: bool = False
    stopped: bool = False

    def count(self, status: RowStatus) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def error(self) -> SkillreelError | None:
        """None when every row succeeded (or had before); otherwise why the batch is not a success."""
        if self.cancelled:  # every row counted once, by how it ended (a given-up fleet row never ran)
            ended = ", ".join(
                f"{self.count(status)} {status.replace('-', ' ')}"
                for status in ("succeeded", "failed", "cancelled", "interrupted", "skipped", "not-run")
                if self.count(status)
            )
            return ReplayError(
                "SR_REPLAY_CANCELLED", f"the batch was cancelled ({ended}); every run it started is recorded"
            )
        bad = [r for r in self.results if r.status in _NOT_OK]
        if not bad:
            return None
        failed = sum(1 for r in bad if r.status != "not-run")
        not_run = len(bad) - failed
        stopped = f"; --stop-on-failure started no further row ({not_run} not run)" if self.stopped else ""
        return ReplayError(
            "SR_REPLAY_BATCH_FAILED",
            f"{failed} of {len(self.results)} row(s) did not succeed{stopped}",
            details={"rows": [r.row for r in bad if r.status != "not-run"][:100]},
        )

    @property
    def exit_status(self) -> int:
        return 0 if self.error is None else self.error.exit_status

    @property
    def warnings(self) -> tuple[ResultWarning, ...]:
        """One ``SR_REPLAY_OUTPUT_MASKED`` per distinct message, naming the rows it was given for."""
        rows: dict[str, list[int]] = {}
        for r in self.results:
            if r.masked is not None:
                rows.setdefault(r.masked.message, []).append(r.row)
        return tuple(
            ResultWarning(code="SR_REPLAY_OUTPUT_MASKED", message=f"row(s) {_rows_text(numbers)}: {message}")
            for message, numbers in rows.items()
        )

    def to_json(self) -> dict[str, Any]:
        statuses: tuple[RowStatus, ...] = (
            "succeeded",
            "failed",
            "cancelled",
            "interrupted",
            "skipped",
            "not-run",
        )
        return {
            "name": self.name,
            "runset": self.runset,
            "resumed": self.resumed,
            "workers": self.workers,
            "rows": len(self.results),
            "counts": {_camel(s): self.count(s) for s in statuses},
            "cancelled": self.cancelled,
            "stopped": self.stopped,
            "results": [r.to_json() for r in self.results],
        }


def _camel(status: str) -> str:
    head, *rest = status.split("-")
    return head + "".join(part.title() for part in rest)


class BatchCancelled(asyncio.CancelledError):
    """The batch was cancelled (Ctrl-C); :attr:`outcome` says which rows ran and how."""

    def __init__(self, outcome: BatchOutcome) -> None:
        super().__init__("batch cancelled")
        self.outcome = outcome


def plan_batch(
    store: Store,
    request: BatchRequest,
    secrets: SecretSource | None = None,
    logins: LoginSource | None = None,
) -> BatchPlan:
    """Every check of step 1 of the module docstring; raises ``SR_*`` and writes nothing. ``logins``
    replaces this store's vault logins (a fleet's live in each worker's vault)."""
    replay = request.replay
    check_options(replay)
    if not WORKERS_RANGE[0] <= request.workers <= WORKERS_RANGE[1]:
        raise InputError("SR_RECORD_USAGE", f"--workers must be {WORKERS_RANGE[0]} to {WORKERS_RANGE[1]}")
    debug = replay.debug
    if debug.headed or debug.slow_mo_ms:
        raise InputError("SR_RECORD_USAGE", "--headed and --slow-mo watch one row: use them without --batch")
    data = read_user_file(request.batch_file, what="batch file", limit=MAX_BATCH_BYTES)
    parsed: BatchFile = parse_rows(data, batch_format(request.batch_file.name))
    entry = store.get(replay.name)
    draft = entry.draft
    check_columns(parsed, draft, replay.inputs)
    problems = row_problems(parsed, draft, replay.inputs, value_limits(draft))
    problems += row_type_problems(parsed.rows, draft, replay.inputs, skip={p.row for p in problems})
    if problems:
        raise refuse_rows(problems)
    first = replace(replay, inputs={**replay.inputs, **parsed.rows[0].inputs})
    checked = run_preflight(
        entry, store.policy(), first, secrets or EnvKeyringSecrets(), logins or LoginVault(store.home)
    )
    checked.require_secrets("batch")
    digest = rows_digest(parsed.rows)
    if debug.artifacts is not None:
        prepare_directory(debug.artifacts)  # the last check: its rows' directories go in it
    if request.resume is None:
        runset = Runset(
            runset_id=tokens.token_hex(8),
            name=entry.name,
            rows=len(parsed.rows),
            rows_digest=digest,
            created_at=store.now(),
        )
        return BatchPlan(request, runset, parsed.rows)
    kept = store.runset(request.resume) if _runset_shaped(request.resume) else None
    if kept is None or kept.name != entry.name:
        raise ReplayError(
            "SR_REPLAY_RUNSET_UNKNOWN", f"skill {entry.name!r} has no runset {_shown_runset(request.resume)}"
        )
    if (kept.rows, kept.rows_digest) != (len(parsed.rows), digest):
        raise ReplayError(
            "SR_REPLAY_RUNSET_MISMATCH",
            f"the rows differ from the ones runset {kept.runset_id} started with "
            f"({len(parsed.rows)} row(s) now, {kept.rows} then)",
        )
    return BatchPlan(request, kept, parsed.rows, store.runset_successes(kept.runset_id), resumed=True)


def row_type_problems(
    rows: Sequence[BatchRow],
    draft: Draft,
    shared: Mapping[str, InputValue],
    *,
    skip: Set[int] = frozenset(),
) -> list[RowProblem]:
    """Every row's values against their parameters' types (an integer, a number, true/false, one
    of an enum's values, a loop's limit in range), as a single replay's pre-flight checks them, but
    for every row before any runs: the first bad value of each row not in ``skip`` (rows already
    refused for another reason), named by its line, never by its value."""
    problems: list[RowProblem] = []
    for row in rows:
        if row.number in skip:
            continue
        try:
            typed_values(draft, {**shared, **row.inputs})
        except ReplayError as exc:
            why = exc.message.removesuffix("; nothing was replayed")
            problems.append(RowProblem(row.line, row.number, "SR_REPLAY_BATCH_VALUE_INVALID", why))
    return problems


def _runset_shaped(value: str) -> bool:
    return len(value) == 16 and all(c in "0123456789abcdef" for c in value)


def _shown_runset(value: str) -> str:
    return repr(value) if _runset_shaped(value) else "(not a runset id: 16 hex digits)"


class _Remembered:
    """A secret source asked once per parameter for the whole batch (a keyring may be slow)."""

    def __init__(self, source: SecretSource) -> None:
        self._source = source
        self._seen: dict[tuple[str, str], str | None] = {}

    def get(self, skill: str, param: str) -> str | None:
        key = (skill, param)
        if key not in self._seen:
            self._seen[key] = self._source.get(skill, param)
        return self._seen[key]


def row_result(row: BatchRow, outcome: ReplayOutcome) -> RowResult:
    """A row's result from the single replay's outcome (``outputs`` passed through when it has them)."""
    document = outcome.to_json()
    error = outcome.error
    return RowResult(
        row.number,
        row.line,
        outcome.status,
        code=error.code if error is not None else None,
        message=error.message if error is not None else None,
        run_id=outcome.run_id,
        side_effects=outcome.side_effects,
        outputs=document.get("outputs"),
        masked=next((w for w in outcome.warnings if w.code == "SR_REPLAY_OUTPUT_MASKED"), None),
    )


def _rows_text(rows: Sequence[int], shown: int = 10) -> str:
    more = f" and {len(rows) - shown} more" if len(rows) > shown else ""
    return ", ".join(str(r) for r in rows[:shown]) + more


def replay_executor(
    store: Store, plan: BatchPlan, secrets: SecretSource, session_factory: SessionFactory
) -> RowExecutor:
    """The local executor: each row is one run of the replay use case on ``session_factory``."""
    runset = plan.runset.runset_id

    async def execute(row: BatchRow) -> RowResult:
        request = replace(plan.request.replay, inputs=plan.inputs(row))
        artifacts = row_artifacts(request, row)
        started = time.monotonic()
        try:
            with artifacts_kept_if_written(artifacts):
                outcome = await replay_skill(
                    store,
                    replace(request, debug=replace(request.debug, artifacts=artifacts)),
                    secrets=secrets,
                    session_factory=session_factory,
                    batch=BatchSlot(runset, row.number),
                )
        except ReplayCancelled as cancelled:
            raise RowCancelled(row_result(row, cancelled.outcome)) from None
        return replace(row_result(row, outcome), seconds=time.monotonic() - started)

    return execute


def row_artifacts(request: ReplayRequest, row: BatchRow) -> Path | None:
    """``--artifacts DIR`` with a batch: each row writes into ``DIR/row-N`` (by the single replay's
    own artifacts, ``sandbox.artifacts``: on failure, or always with ``--artifacts-on always``)."""
    base = request.debug.artifacts
    return base / f"row-{row.number}" if base is not None else None


@contextmanager
def artifacts_kept_if_written(directory: Path | None) -> Iterator[None]:
    """The replay creates a row's artifacts directory before it runs; one it created and left
    empty (the row succeeded) is removed, so ``DIR`` holds the rows that failed."""
    existed = directory is None or directory.exists()
    try:
        yield
    finally:
        if not existed and directory is not None:
            with suppress(OSError):  # not empty (artifacts written), or already gone
                directory.rmdir()


async def replay_batch(
    store: Store,
    plan: BatchPlan,
    *,
    secrets: SecretSource | None = None,
    on_row: RowListener | None = None,
    session_factory: SessionFactory | None = None,
) -> BatchOutcome:
    """Run a planned batch on one Chromium (step 3 of the module docstring). ``session_factory``
    replaces the warm browser's sessions (tests and benchmarks). Raises :class:`BatchCancelled`
    when cancelled, after the running rows ended as cancelled."""
    from ..sandbox.cold import browser_session
    from ..sandbox.warm import WarmBrowser

    with holding_runset(store, plan, on_row) as (plan, skipped):
        warm = WarmBrowser(idle_s=3600.0)
        if session_factory is None:
            # a trace streams into its replay's own private scratch, named when Chromium starts:
            # with --artifacts each row gets a Chromium of its own, as a single replay does
            session_factory = browser_session if plan.request.replay.debug.artifacts else warm.session
        execute = replay_executor(store, plan, _Remembered(secrets or EnvKeyringSecrets()), session_factory)
        try:
            ran = await run_pending(plan, execute, on_row)
        finally:
            await warm.close()
    return end_batch(plan, skipped, ran)


@contextmanager
def holding_runset(
    store: Store, plan: BatchPlan, on_row: RowListener | None
) -> Iterator[tuple[BatchPlan, list[RowResult]]]:
    """Hold the batch's runset while the block runs (a new one is kept): a resume of a runset that
    another live batch holds is refused (``SR_REPLAY_RUNSET_BUSY``), so no row runs twice at once.
    Yields the plan with the rows that succeeded re-read as the runset was taken (a batch that ended
    meanwhile counts), and the results of the rows a resumed batch skips (reported first)."""
    claim = RunsetClaim(lease=current_lease(), token=tokens.token_hex(16))
    runset = plan.runset.runset_id
    holding = store.claim_runset(plan.runset, claim, new=not plan.resumed)
    if not holding.held:
        if holding.held_by is None:
            raise ReplayError(
                "SR_REPLAY_RUNSET_UNKNOWN", f"runset {runset} was pruned before the batch began; nothing ran"
            )
        raise ReplayError(
            "SR_REPLAY_RUNSET_BUSY",
            f"runset {runset} is being run by another batch (process {holding.held_by.lease.pid}); "
            "nothing ran",
            details={"pid": holding.held_by.lease.pid},
        )
    try:
        if plan.resumed:
            plan = replace(plan, done=holding.done)
        skipped = [
            RowResult(r.number, r.line, "skipped", run_id=plan.done[r.number])
            for r in plan.rows
            if r.number in plan.done
        ]
        for result in skipped:
            if on_row is not None:
                on_row(result)
        yield plan, skipped
    finally:
        store.release_runset(runset, claim)


async def run_pending(plan: BatchPlan, execute: RowExecutor, on_row: RowListener | None) -> RowsRun:
    """:func:`run_rows` over the plan's rows still to run, with the request's workers and stop rule."""
    request = plan.request
    return await run_rows(
        plan.pending,
        execute,
        workers=request.workers,
        stop_on_failure=request.stop_on_failure,
        on_row=on_row,
    )


def end_batch(plan: BatchPlan, skipped: Sequence[RowResult], ran: RowsRun) -> BatchOutcome:
    """The batch's outcome, one result per row in file order; raises :class:`BatchCancelled` with
    it when the batch was cancelled."""
    by_row = {r.row: r for r in (*skipped, *ran.results)}
    outcome = BatchOutcome(
        plan.runset.name,
        plan.runset.runset_id,
        plan.resumed,
        plan.request.workers,
        tuple(by_row[r.number] for r in plan.rows),
        cancelled=ran.cancelled,
        stopped=ran.stopped,
    )
    if ran.cancelled:
        raise BatchCancelled(outcome)
    return outcome
