"""`skillreel replay NAME`: replay an approved skill in Chromium with new inputs.

Progress goes to stderr, one line per step; with ``--json`` stdout carries exactly one result
envelope whose ``data`` is the replay document (``ReplayOutcome.to_json``) on success and failure
alike, and the exit status is the error's (1 for a failed replay, 2 for bad input). A ``human``
step asks on the terminal when stdin and stderr are both interactive, and fails closed otherwise.
``--headed``/``--slow-mo`` show the browser; ``--artifacts DIR`` leaves a scrubbed trace, a
screenshot and failure.json on failure (``sandbox/artifacts.py``).
A reader that closes the output early (``| head -1``) stops what is written, never the run: it
goes on, its outcome is recorded and the exit status is its own (``cli/pipes.py``).
Ctrl-C ends the run as ``cancelled`` (recorded and audited) and prints it like a failure
(``SR_REPLAY_CANCELLED``, with the steps that ran). ``--batch FILE`` replays one row of inputs per
run on one Chromium (``cli/batch.py``, ``services/batching.py``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import click

from ..errors import InputError
from ..model.limits import (
    DEFAULT_SETTLE_MS,
    DEFAULT_SLOW_MO_MS,
    DEFAULT_TIMEOUT_MS,
    DEFAULT_WORKERS,
    MAX_OPTION_NUMBER,
    SETTLE_MS_RANGE,
    SLOW_MO_MS_RANGE,
    TIMEOUT_MS_RANGE,
    WORKERS_RANGE,
)
from .batch import FleetOptions, fleet_options
from .batch_output import ResultFiles, result_file_options
from .completion import complete_skill_name
from .interrupt import run_cancellable
from .output import emit, emit_failure, json_option
from .pipes import reader_gone, write_line

if TYPE_CHECKING:
    from ..replay.engine import HumanPrompt, HumanRequest, StepProgress
    from ..sandbox.playwright_start import EarlyPlaywright
    from ..services.replaying import ReplayOutcome, ReplayRequest


@click.command("replay")
@click.argument("name", shell_complete=complete_skill_name)
@click.option(
    "--html",
    "html_path",
    type=click.Path(path_type=Path, dir_okay=True, exists=False),
    help="The HTML fixture the skill was recorded on.",
)
@click.option("--url", help="The URL target (default: the recorded one; it must match it exactly).")
@click.option(
    "--storage-state",
    type=click.Path(path_type=Path, dir_okay=True, exists=False),
    help="The Playwright storage-state file the skill was recorded with.",
)
@click.option(
    "--env",
    "environment",
    metavar="NAME",
    help="Replay on this declared, approved environment (another origin of the same app).",
)
@click.option(
    "--input",
    "inputs",
    multiple=True,
    metavar="NAME=VALUE",
    help="A non-sensitive input (repeat). Sensitive ones come from the vault only.",
)
@click.option(
    "--expected-revision",
    type=click.IntRange(1, MAX_OPTION_NUMBER),
    help="Replay only if the skill is still at this revision.",
)
@click.option("--no-heal", is_flag=True, help="Fail instead of healing a locator that no longer agrees.")
@click.option(
    "--timeout",
    "timeout_ms",
    type=click.IntRange(*TIMEOUT_MS_RANGE),
    default=DEFAULT_TIMEOUT_MS,
    show_default=True,
    help="Per-step timeout in milliseconds.",
)
@click.option(
    "--settle",
    "settle_ms",
    type=click.IntRange(*SETTLE_MS_RANGE),
    default=DEFAULT_SETTLE_MS,
    show_default=True,
    help="An extra minimum wait after each action, in ms, for pages that change late without a "
    "request (replay already waits for the action's navigation, requests and a quiet DOM).",
)
@click.option("--headed", is_flag=True, help="Show the browser window (needs a display).")
@click.option(
    "--slow-mo",
    "slow_mo_ms",
    type=click.IntRange(*SLOW_MO_MS_RANGE),
    default=DEFAULT_SLOW_MO_MS,
    help="Slow every browser operation down by this many milliseconds (to watch it).",
)
@click.option(
    "--artifacts",
    "artifacts",
    type=click.Path(path_type=Path, exists=False),
    help="On failure, write trace.zip, screenshot.png and failure.json into this directory (mode 0600); "
    "with --batch, into DIR/row-N for each row that failed.",
)
@click.option(
    "--artifacts-on",
    type=click.Choice(["failure", "always"]),
    default="failure",
    show_default=True,
    help="With --artifacts: write them only when the replay fails, or always.",
)
@click.option(
    "--downloads",
    type=click.Path(path_type=Path, exists=False),
    metavar="DIR",
    help="Save the files the skill's download steps download into this existing directory "
    "(needed by a skill that downloads; its outputs give each file's path and SHA-256).",
)
@click.option(
    "--batch",
    "batch_file",
    type=click.Path(path_type=Path, dir_okay=True, exists=False),
    help="Replay once per row of this CSV or JSON Lines file (columns: parameter names).",
)
@click.option(
    "--workers",
    type=click.IntRange(*WORKERS_RANGE),
    default=None,
    help="With --batch: rows replayed at once, each in its own context of one Chromium "
    f"[default: {DEFAULT_WORKERS}].",
)
@click.option(
    "--stop-on-failure",
    is_flag=True,
    help="With --batch: start no further row once a row fails (rows already running finish).",
)
@click.option(
    "--resume",
    metavar="RUNSET",
    help="With --batch: continue this runset, replaying only the rows that did not succeed.",
)
@result_file_options
@click.option(
    "--broker",
    metavar="URL",
    help="With --batch: run the rows on a fleet of `skillreel worker`s through this Redis broker "
    "(redis://HOST:6379/0; needs skillreel[fleet]).",
)
@click.option(
    "--sign",
    "sign_key",
    type=click.Path(path_type=Path, dir_okay=False, exists=False),
    metavar="KEY",
    help="With --broker: the Ed25519 private key (PEM) the skill bundle is signed with; the workers "
    "trust its public key.",
)
@fleet_options
@json_option
def command(
    name: str,
    html_path: Path | None,
    url: str | None,
    storage_state: Path | None,
    environment: str | None,
    inputs: tuple[str, ...],
    expected_revision: int | None,
    no_heal: bool,
    timeout_ms: int,
    settle_ms: int,
    headed: bool,
    slow_mo_ms: int,
    artifacts: Path | None,
    artifacts_on: Literal["failure", "always"],
    downloads: Path | None,
    batch_file: Path | None,
    workers: int | None,
    stop_on_failure: bool,
    resume: str | None,
    result_files: ResultFiles,
    broker: str | None,
    sign_key: Path | None,
    fleet: FleetOptions,
    as_json: bool,
) -> None:
    """Replay an approved skill in Chromium with new inputs."""
    if artifacts_on == "always" and artifacts is None:
        raise InputError("SR_RECORD_USAGE", "--artifacts-on needs --artifacts DIR")
    if downloads is not None and batch_file is not None:
        raise InputError(
            "SR_RECORD_USAGE", "--downloads does not go with --batch (a batch downloads nothing)"
        )
    values = parse_inputs(inputs)

    def replay_request() -> ReplayRequest:
        from ..sandbox.artifacts import DebugOptions
        from ..services.preflight import ReplayRequest

        return ReplayRequest(
            name=name,
            inputs=values,
            html_path=html_path,
            url=url,
            storage_state=storage_state,
            environment=environment,
            expected_revision=expected_revision,
            heal=not no_heal,
            timeout_ms=timeout_ms,
            settle_ms=settle_ms,
            debug=DebugOptions(headed, slow_mo_ms, artifacts, artifacts_on),
            downloads=downloads,
        )

    if batch_file is not None:
        request = replay_request()
        from .batch import replay_rows

        if broker is not None or sign_key is not None or fleet.given:  # the URL may be in the environment
            from .batch import replay_rows_on_fleet

            replay_rows_on_fleet(
                request,
                batch_file,
                workers,
                stop_on_failure,
                resume,
                broker,
                sign_key,
                fleet,
                as_json=as_json,
                result_files=result_files,
            )
            return
        replay_rows(
            request,
            batch_file,
            workers or DEFAULT_WORKERS,
            stop_on_failure,
            resume,
            as_json=as_json,
            result_files=result_files,
        )
        return
    if result_files.options():
        raise InputError("SR_RECORD_USAGE", "--results and --junit go with --batch FILE")
    if (
        workers is not None
        or stop_on_failure
        or resume is not None
        or broker is not None
        or sign_key
        or fleet.given
    ):
        raise InputError(
            "SR_RECORD_USAGE",
            "--workers, --stop-on-failure, --resume and the fleet options (--broker...) go with --batch FILE",
        )
    from ..sandbox.playwright_start import EarlyPlaywright

    early = EarlyPlaywright.spawn()  # it boots while Playwright's API and the verb are imported
    try:
        outcome = run_cancellable(replay_one(replay_request, as_json=as_json, early=early))
    finally:
        if early is not None:
            early.discard()  # only when the run ended before adopting it
    with reader_gone():  # the outcome is recorded: a reader that left (`| head -1`) changes nothing
        if outcome.error is None:
            doc = outcome.to_json()
            emit(doc, as_json=as_json, human=lambda out: show_success(out, doc), warnings=outcome.warnings)
        else:
            emit_failure(outcome.error, as_json=as_json, data=outcome.to_json(), warnings=outcome.warnings)
            if not as_json:
                show_failure(outcome.to_json(), outcome.error.details.get("failureConditions", ()))
    sys.exit(outcome.exit_status)  # what was printed above is the whole output


async def replay_one(
    replay_request: Callable[[], ReplayRequest], *, as_json: bool, early: EarlyPlaywright | None = None
) -> ReplayOutcome:
    """One replay, Playwright's process booting while the rest of the verb is imported and the
    store and pre-flight do their work (``sandbox.playwright_start.PlaywrightStart``, a light
    import: no browser starts before the pre-flight passed; ``early``: Playwright's process, spawned
    before this); a refused replay stops it unused. The session's Chromium and Playwright are
    closed after the run's final write, while it is made."""
    from ..sandbox.playwright_start import PlaywrightStart

    playwright = await PlaywrightStart.begin(early)
    try:
        from ..sandbox.cold import browser_session
        from ..services.replaying import ReplayCancelled, replay_skill
        from ..store import Store
        from ..vault import EnvKeyringSecrets

        request = replay_request()
        with Store.open() as store:
            try:
                return await replay_skill(
                    store,
                    request,
                    secrets=EnvKeyringSecrets(),
                    progress=None if as_json else show_progress,
                    human=terminal_prompt(),
                    session_factory=partial(browser_session, playwright=playwright),
                )
            except ReplayCancelled as cancelled:  # Ctrl-C: the run is recorded; report it here, at the edge
                return cancelled.outcome
    finally:
        await playwright.close()


def parse_inputs(pairs: tuple[str, ...]) -> dict[str, str]:
    """``NAME=VALUE`` pairs (split at the first ``=``); errors never repeat a value."""
    values: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise InputError("SR_RECORD_USAGE", "--input takes NAME=VALUE")
        if name in values:
            raise InputError("SR_RECORD_USAGE", "an input was given twice")
        values[name] = value
    return values


def show_progress(step: StepProgress) -> None:
    if step.phase == "start":
        return
    mark = {"done": "ok", "skipped": "skipped"}.get(step.phase, f"failed {step.code}")
    healed = " (healed)" if step.healed else ""
    item = f" (item {step.iteration + 1})" if step.iteration is not None else ""
    line = f"[{step.index + 1}/{step.total}] {step.action_id} {step.kind}{item}: {mark}{healed}\n"
    write_line(sys.stderr, line)  # a reader that left stops the progress, never the run


def show_success(out: Any, doc: dict[str, Any]) -> None:
    healed = sum(1 for s in doc["steps"] if s["healed"])
    where = f" on environment {doc['environment']}" if doc.get("environment") else ""
    out.print(
        f"replayed {doc['name']} revision {doc['revision']}{where}: {len(doc['steps'])} steps, "
        f"{healed} healed (run {doc['runId']}, report {doc['reportDigest']})"
    )
    if doc["validatedRevision"] is not None:
        out.print(f"the skill is now validated (revision {doc['validatedRevision']})")
    if doc.get("outputs"):
        out.print("outputs:")
        out.print(json.dumps(doc["outputs"], ensure_ascii=False, indent=2), markup=False, highlight=False)
    if doc["healProposal"]:
        out.print(
            f"a heal proposal is pending: see `skillreel show {doc['name']}`, accept it with "
            f"`skillreel review {doc['name']} --heal-proposal --reviewer ID --draft-digest D --approve` "
            "(D: the proposal's draft digest `show --json` prints)"
        )


def show_failure(doc: dict[str, Any], conditions: Sequence[str] = ()) -> None:
    """On stderr: the skill's own failure conditions (what its author said it fails on), then what
    ran before the failure (a caller must know whether a retry repeats work)."""
    from ..model.visible import visible

    for condition in conditions:  # one line each, control and invisible characters escaped
        sys.stderr.write(f"the skill fails when: {visible(' '.join(condition.split()))}\n")
    if not doc["steps"]:
        sys.stderr.write("no step ran; nothing was done on the site\n")
    else:
        done = [s["actionId"] for s in doc["steps"] if s["status"] == "done"]
        sys.stderr.write(f"steps done before it: {', '.join(done) or 'none'}\n")
        if doc["sideEffects"]:
            sys.stderr.write("side effects: a step acted on the site; a retry may repeat that work\n")
    if doc["runId"]:
        sys.stderr.write(f"run {doc['runId']} ({doc['status']}): see `skillreel runs {doc['name']}`\n")
    sys.stderr.flush()


def terminal_prompt() -> HumanPrompt | None:
    """Ask a person on the terminal to do a ``human`` step, when both ends are interactive."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None

    async def prompt(request: HumanRequest) -> bool:
        sys.stderr.write(
            f"[{request.index + 1}/{request.total}] {request.action_id} needs you "
            f"({request.reason}): do it in the browser window, then press Enter "
            "(type q to stop) "
        )
        sys.stderr.flush()
        import asyncio  # here, not at the top: `replay --help` does not need it

        answer = await asyncio.to_thread(sys.stdin.readline)
        return answer.strip().lower() not in ("q", "quit", "n", "no")

    return prompt
