"""`skillreel replay NAME --batch FILE`: the batch half of the replay verb (``cli/replay.py``).

The file is checked whole before any browser starts (``services.batching.plan_batch``); then the
rows run on ``--workers`` contexts of one Chromium. On a terminal, stderr shows a progress bar with
the time left and one line per row as it ends; when stderr is not a terminal (CI, a log file) it
gets one plain line per row as it ends (:func:`plain_line`: codes, ids, a duration; never an input
or an output). stdout gets a summary at the end, or with ``--json`` one envelope whose ``data``
lists one result per row. Exit status 1 when any row did not succeed (``SR_REPLAY_BATCH_FAILED``) or
the batch was cancelled (Ctrl-C: ``SR_REPLAY_CANCELLED``; the rows that were running end as
``cancelled`` runs, the others never start).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import click

from ..errors import InputError, ReplayError, SkillreelError
from ..model.limits import (
    DEFAULT_HEARTBEAT_S,
    DEFAULT_TASK_EXPIRES_MIN,
    HEARTBEAT_S_RANGE,
    TASK_EXPIRES_MIN_RANGE,
)
from .batch_output import ResultFiles, check_result_files, resume_command, shown_broker, write_result_files
from .interrupt import run_cancellable
from .output import emit, emit_failure

if TYPE_CHECKING:
    from rich.console import Console

    from ..services.batching import BatchOutcome, BatchPlan, RowListener, RowResult
    from ..services.replaying import ReplayRequest

SHOWN_PROBLEMS = 20
FLEET_WORKERS: Final = 16  # rows in flight on a fleet when --workers is not given


@dataclass(frozen=True)
class FleetOptions:
    """The fleet's options beyond ``--broker`` and ``--sign`` (:func:`fleet_options`)."""

    url_file: Path | None = None
    heartbeat_s: float | None = None
    task_expires_min: int | None = None

    @property
    def given(self) -> bool:
        return self != FleetOptions()


def fleet_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--broker-url-file``, ``--heartbeat`` and ``--task-expires``, given to ``command`` as one
    ``fleet`` argument (:class:`FleetOptions`)."""

    @click.option(
        "--broker-url-file",
        type=click.Path(path_type=Path, dir_okay=False),
        metavar="FILE",
        help="With --batch: a file (readable by you only) holding the broker URL with its password "
        "(or set SKILLREEL_BROKER_URL).",
    )
    @click.option(
        "--heartbeat",
        "heartbeat_s",
        type=click.FloatRange(*HEARTBEAT_S_RANGE),
        metavar="SECONDS",
        help=f"With a broker: seconds after which a row whose worker stopped answering is reported "
        f"interrupted [default: {DEFAULT_HEARTBEAT_S:g}].",
    )
    @click.option(
        "--task-expires",
        "task_expires_min",
        type=click.IntRange(*TASK_EXPIRES_MIN_RANGE),
        metavar="MINUTES",
        help=f"With a broker: minutes a row's task stays valid for a worker to start it "
        f"[default: {DEFAULT_TASK_EXPIRES_MIN}].",
    )
    @functools.wraps(command)
    def with_fleet(
        *args: Any,
        broker_url_file: Path | None,
        heartbeat_s: float | None,
        task_expires_min: int | None,
        **kwargs: Any,
    ) -> Any:
        return command(*args, fleet=FleetOptions(broker_url_file, heartbeat_s, task_expires_min), **kwargs)

    return with_fleet


def replay_rows(
    request: ReplayRequest,
    batch_file: Path,
    workers: int,
    stop_on_failure: bool,
    resume: str | None,
    *,
    as_json: bool,
    result_files: ResultFiles | None = None,
) -> None:
    from ..services.batching import BatchRequest, plan_batch, replay_batch
    from ..store import Store
    from ..vault import EnvKeyringSecrets

    files = result_files or ResultFiles()
    check_result_files(files)
    secrets = EnvKeyringSecrets()
    batch = BatchRequest(request, batch_file, workers, stop_on_failure, resume)
    with Store.open(actor="batch") as store:
        plan = plan_batch(store, batch, secrets)
        outcome = run_cancellable(
            _run(
                plan,
                lambda on_row: replay_batch(store, plan, secrets=secrets, on_row=on_row),
                show=not as_json and sys.stderr.isatty(),
            )
        )
    resume_with = resume_command(batch, outcome.runset, files.options())
    _report(outcome, as_json=as_json, resume_with=resume_with, files=files)


def _report(
    outcome: BatchOutcome, *, as_json: bool, resume_with: str, files: ResultFiles | None = None
) -> None:
    doc = outcome.to_json()
    error = outcome.error
    for problem in write_result_files(outcome, files or ResultFiles()):
        _print_error(problem)  # the batch's outcome stays what happened

    def summary(out: Console) -> None:
        show_summary(out, doc, resume_with)

    if error is None:
        emit(doc, as_json=as_json, human=summary, warnings=outcome.warnings)
        return
    emit_failure(error, as_json=as_json, data=doc, human=summary, warnings=outcome.warnings)
    if not as_json:
        _print_error(error)
    sys.exit(outcome.exit_status)


def _print_error(error: SkillreelError) -> None:
    from rich.markup import escape

    from .output import console

    err = console(stderr=True)
    err.print(f"[bold red]error[/] {error.code}: {escape(error.message)}")
    err.print(f"[dim]fix:[/] {escape(error.fix)}")


def replay_rows_on_fleet(
    request: ReplayRequest,
    batch_file: Path,
    workers: int | None,
    stop_on_failure: bool,
    resume: str | None,
    broker: str | None,
    sign_key: Path | None,
    fleet: FleetOptions,
    *,
    as_json: bool,
    result_files: ResultFiles | None = None,
) -> None:
    """``--batch FILE --broker URL --sign KEY``: the same batch, its rows run by fleet workers
    (``services/fleet_batching.py``); this store records every run. The broker's URL may come from
    ``SKILLREEL_BROKER_URL`` or ``--broker-url-file`` instead (``fleet.app.broker_url``)."""
    from ..fleet.app import broker_url, require_celery

    require_celery()
    url = broker_url(broker, fleet.url_file)
    files = result_files or ResultFiles()
    check_result_files(files)
    if sign_key is None:
        raise InputError(
            "SR_RECORD_USAGE", "a fleet batch needs --sign KEY (the workers trust its public key)"
        )
    from ..fleet.broker import CeleryBroker
    from ..fleet.bundle import SignedBundles, check_fleet_skill
    from ..services.batching import BatchRequest, plan_batch
    from ..services.fleet_batching import TaskTerms, WorkerVault, fleet_batch
    from ..store import Store
    from ..store.signing import load_signing_key

    load_signing_key(sign_key)  # a key others may read, or not a key: refused before the broker
    vault = WorkerVault()
    terms = TaskTerms(
        expires_min=fleet.task_expires_min or DEFAULT_TASK_EXPIRES_MIN,
        heartbeat_s=fleet.heartbeat_s or DEFAULT_HEARTBEAT_S,
    )
    with Store.open(actor="fleet") as store:
        check_fleet_skill(store, request.name)
        batch = BatchRequest(request, batch_file, workers or FLEET_WORKERS, stop_on_failure, resume)
        plan = plan_batch(store, batch, vault, vault)
        celery = CeleryBroker(url)
        try:
            outcome = run_cancellable(
                _run(
                    plan,
                    lambda on_row: fleet_batch(
                        store,
                        plan,
                        celery,
                        bundles=SignedBundles(),
                        sign_key=sign_key,
                        on_row=on_row,
                        terms=terms,
                    ),
                    show=not as_json and sys.stderr.isatty(),
                )
            )
        finally:
            celery.close()
    # the broker as it was given: never a password on the command line (SKILLREEL_BROKER_URL stays set)
    shown = [*files.options(), *(["--broker", shown_broker(broker)] if broker else [])]
    shown += ["--broker-url-file", str(fleet.url_file)] if fleet.url_file else []
    shown += ["--sign", str(sign_key)]
    shown += ["--heartbeat", f"{fleet.heartbeat_s:g}"] if fleet.heartbeat_s is not None else []
    shown += ["--task-expires", str(fleet.task_expires_min)] if fleet.task_expires_min is not None else []
    _report(outcome, as_json=as_json, resume_with=resume_command(batch, outcome.runset, shown), files=files)


async def _run(
    plan: BatchPlan, start: Callable[[RowListener | None], Awaitable[BatchOutcome]], *, show: bool
) -> BatchOutcome:
    import asyncio  # here, not at the top: `replay --help` imports this module (its fleet options)

    from ..services.batching import BatchCancelled

    async def run(on_row: RowListener | None) -> BatchOutcome:
        try:
            return await start(on_row)
        except BatchCancelled as cancelled:  # Ctrl-C: the runs are recorded; report it at the edge
            return cancelled.outcome
        except asyncio.CancelledError:  # Ctrl-C before any row started (asking the broker for workers)
            raise ReplayError(
                "SR_REPLAY_CANCELLED", "the batch was cancelled before any row started; nothing ran"
            ) from None

    if not show:
        if sys.stderr.isatty():  # --json on a terminal: the envelope is the whole output
            return await run(None)

        def log_row(result: RowResult) -> None:
            print(plain_line(result, len(plan.rows)), file=sys.stderr, flush=True)

        return await run(log_row)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from .output import console

    with Progress(
        TextColumn(f"{plan.runset.name} [dim]runset {plan.runset.runset_id}[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("[dim]eta[/]"),
        TimeRemainingColumn(),
        console=console(stderr=True),
    ) as bar:
        task = bar.add_task("rows", total=len(plan.rows))

        def on_row(result: RowResult) -> None:
            bar.console.print(row_line(result), highlight=False)
            bar.advance(task)

        return await run(on_row)


def row_line(result: RowResult) -> str:
    mark = {"succeeded": "[green]ok[/]", "skipped": "[dim]skipped (succeeded before)[/]"}.get(
        result.status, f"[red]{result.status}[/]"
    )
    code = f" {result.code}" if result.code else ""
    run = f" run {result.run_id}" if result.run_id else ""
    return f"row {result.row} (line {result.line}): {mark}{code}{run}"


def plain_line(result: RowResult, total: int) -> str:
    """One row as it ends, for a log (stderr not a terminal): ``row 3/40 succeeded run ID 2.1s``.
    Content-free: codes, ids and a duration, never an input value or an output."""
    status = "skipped (succeeded before)" if result.status == "skipped" else result.status
    code = f" {result.code}" if result.code else ""
    run = f" run {result.run_id}" if result.run_id else ""
    took = f" {result.seconds:.1f}s" if result.seconds is not None else ""
    return f"row {result.row}/{total} {status}{code}{run}{took}"


def show_summary(out: Console, doc: dict[str, Any], resume_with: str) -> None:
    counts = doc["counts"]
    parts = [f"{counts[key]} {label}" for key, label in _LABELS if counts[key]]
    out.print(
        f"batch of {doc['name']}: {doc['rows']} row(s), runset {doc['runset']}: {', '.join(parts)}",
        highlight=False,
    )
    problems = [r for r in doc["results"] if r["status"] not in ("succeeded", "skipped", "not-run")]
    for r in problems[:SHOWN_PROBLEMS]:
        run = f" (run {r['runId']})" if r["runId"] else ""
        effects = "; it acted on the site" if r["sideEffects"] else ""
        out.print(
            f"  row {r['row']} (line {r['line']}): {r['status']} {r['code']}{run}{effects}", highlight=False
        )
    if len(problems) > SHOWN_PROBLEMS:
        out.print(f"  ... and {len(problems) - SHOWN_PROBLEMS} more (--json lists every row)")
    if problems or counts["notRun"]:
        out.print(f"replay the rows that did not succeed: {resume_with}", highlight=False, markup=False)


_LABELS = (
    ("succeeded", "succeeded"),
    ("failed", "failed"),
    ("cancelled", "cancelled"),
    ("interrupted", "interrupted"),
    ("skipped", "skipped (succeeded before)"),
    ("notRun", "not run"),
)
