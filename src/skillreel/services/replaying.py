"""The replay use case: pre-flight, a reserved run, one Chromium session, the engine, the run's end.

    outcome = await replay_skill(store, ReplayRequest(name="search", inputs={"query": "x"}),
                                 secrets=EnvKeyringSecrets(), progress=print_step, human=ask)
    outcome.to_json()   # the `data` of the `replay --json` and `skills_play` envelopes

A replay is a run (``model.runs``), never a new revision of the skill. In order:

The run's life (reserve, end, refuse) is ``services/runs.py``'s; this module is the browser phase
between them.

1. **Pre-flight** (``services/preflight.py``): everything that needs no browser; it lists the
   required sensitive parameters the vault lacks (the MCP server asks a person for them). A refusal
   here is logged as one ``replay-refused`` event, coalesced when they come fast
   (``Store.audit_refusal``), and changes nothing.
2. **Reservation** (``services.runs.reserve_run``): the run is written as ``started`` with its
   ``run-start`` event before any browser starts. If that write fails (the store busy past its
   timeout, the disk full, the audit log or the store at its limit, the skill changed since the
   pre-flight), the replay is refused and nothing acts.
3. **The browser phase** (``_run``): one Chromium session and the engine.
4. **The end** (``services.runs.end_played``): the run is finished once as ``succeeded``, ``failed`` or
   ``cancelled`` with its ``run-end`` event; a healed success leaves a heal proposal (the draft with
   those steps' locators described afresh, bound to the run's draft) and never rewrites the
   approved draft; the first success of an approved revision makes it ``validated``. If this write
   fails, the outcome stays what really happened and carries an ``SR_RECORD_RUN_UNRECORDED``
   warning: a run that acted is never reported as failed because of bookkeeping.

:func:`replay_skill` never raises a :class:`~skillreel.errors.SkillreelError`: it returns a
:class:`ReplayOutcome` listing the steps that ran (done or failed, healed, whether each acted) and
whether the run had side effects. Cancellation (Ctrl-C in the CLI, an MCP client cancelling the call)
ends the run as ``cancelled`` and raises :class:`ReplayCancelled` (a ``CancelledError`` carrying the
outcome), so the edge can report it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ReplayUIError, SkillreelError
from ..model.actions import HumanAction
from ..model.entry import HealProposal, StoreEntry
from ..model.envelope import ResultWarning
from ..model.login import LoginState
from ..model.outputs import caller_outputs, masked_warnings, sensitive_values
from ..model.report import ReplayReport, StepResult
from ..model.runs import BatchSlot, RunRecord
from ..replay.engine import (
    EngineOptions,
    HumanPrompt,
    Progress,
    ReplayEngine,
    StepProgress,
    StepRecord,
)
from ..sandbox.artifacts import (
    ArtifactRecorder,
    DebugOptions,
    Failure,
    Hidden,
    ended_cookies,
    prepare_directory,
)
from ..sandbox.files import read_storage_state
from ..store import Store
from ..vault import EnvKeyringSecrets, SecretSource, secret_env_name
from ..vault.logins import LoginVault
from .preflight import Preflight, ReplayRequest, check_options, preflight, run_preflight
from .runs import (
    Played,
    ReplayCancelled,
    ReplayOutcome,
    StepReport,
    StepsRan,
    audit_refusal,
    cancelled_error,
    end_played,
    end_stopped,
    heal_proposal,
    refuse,
    reserve_run,
)

if TYPE_CHECKING:
    from ..replay.pages import Session

__all__ = [
    "HumanPrompt",
    "Played",
    "Preflight",
    "ReplayCancelled",
    "ReplayOutcome",
    "ReplayRequest",
    "SecretSource",
    "StepProgress",
    "StepReport",
    "play_checked",
    "preflight",
    "replay_skill",
    "secret_env_name",
]

SessionFactory = Callable[..., AbstractAsyncContextManager["Session"]]


async def replay_skill(
    store: Store,
    request: ReplayRequest,
    *,
    secrets: SecretSource | None = None,
    progress: Progress | None = None,
    human: HumanPrompt | None = None,
    session_factory: SessionFactory | None = None,
    batch: BatchSlot | None = None,
) -> ReplayOutcome:
    """Replay one skill; see the module docstring. ``session_factory`` replaces
    ``sandbox.cold.browser_session`` (a batch's warm browser, tests, benchmarks); ``batch`` makes
    the run a row of a runset (``services.batching``)."""
    entry: StoreEntry | None = None
    try:
        check_options(request)
        entry = store.get(request.name)
        checked = run_preflight(
            entry, store.policy(), request, secrets or EnvKeyringSecrets(), LoginVault(store.home)
        )
        checked.require_secrets()
        if checked.debug.artifacts is not None:
            prepare_directory(checked.debug.artifacts)
        run = reserve_run(store, entry, batch)
    except SkillreelError as exc:
        return refuse(store, request, entry, exc)
    except Exception:  # a defect: still leave the refusal in the audit log, then let it surface
        audit_refusal(store, request, entry, SkillreelError("SR_RECORD_INTERNAL", "internal error"))
        raise
    return await _play(store, checked, run, progress, human, session_factory)


async def _play(
    store: Store,
    checked: Preflight,
    run: RunRecord,
    progress: Progress | None,
    human: HumanPrompt | None,
    session_factory: SessionFactory | None,
) -> ReplayOutcome:
    """The browser phase of a reserved run, then its end (module docstring, steps 3 and 4)."""
    ran = StepsRan([])
    where = checked.target.name
    try:
        played = await play_checked(
            checked, store.now, progress=progress, human=human, session_factory=session_factory, ran=ran
        )
    except asyncio.CancelledError:
        raise ReplayCancelled(end_stopped(store, run, "cancelled", ran, cancelled_error(), where)) from None
    except Exception:  # a defect: the run still ends as failed in the store, then it surfaces
        internal = SkillreelError("SR_RECORD_INTERNAL", "internal error")
        end_stopped(store, run, "failed", ran, internal, where)
        raise
    return end_played(store, run, played, where)


async def play_checked(
    checked: Preflight,
    now: Callable[[], str],
    *,
    progress: Progress | None = None,
    human: HumanPrompt | None = None,
    session_factory: SessionFactory | None = None,
    ran: StepsRan | None = None,
) -> Played:
    """The browser phase of a replay whose pre-flight passed, without a store: one sandboxed
    Chromium session (allowlist, proxy), the engine, the report and the outputs (bounded and masked
    here, before anything could store them). ``now`` is the clock the report is dated with. A fleet
    worker calls it on a verified bundle; :func:`replay_skill` on its reserved run.
    Cancellation and defects propagate (``ran``, when given, holds the steps that ran)."""
    ran = ran if ran is not None else StepsRan([])
    try:
        records, read, cookies = await _run(checked, progress, human, session_factory, ran)
        # bounded and masked before anything is stored (a run over the bounds fails)
        state = _signed_in(checked) if read else None
        login = Hidden.of((), state).values if state is not None else ()
        outputs, masked = caller_outputs(checked.draft, checked.values, read, login=(*login, *cookies))
    except SkillreelError as exc:
        with_failure_conditions(exc, checked.draft.failure_conditions)
        return Played("failed", ran.reports(), ran.tally(), error=exc, notes=tuple(ran.notes))
    report, proposal = _report(now(), checked, records)
    return Played(
        "succeeded",
        ran.reports(),
        ran.tally(),
        report=report,
        proposal=proposal,
        notes=tuple(ran.notes),
        outputs=outputs if checked.draft.outputs else None,  # a skill that reads nothing: null
        masked=masked_warnings(masked),
        masked_outputs=masked,
    )


async def _run(
    checked: Preflight,
    progress: Progress | None,
    human: HumanPrompt | None,
    session_factory: SessionFactory | None,
    ran: StepsRan,
) -> tuple[tuple[StepRecord, ...], dict[str, Any], tuple[str, ...]]:
    """The engine on one session: its records, what it read and, when it read anything, the values
    of the cookies the run ended with (a page's own session cookie is a secret the outputs must not
    carry either)."""
    from playwright.async_api import Error as PlaywrightError

    from ..replay.driver import PlaywrightDriver

    if session_factory is None:
        from ..sandbox.cold import browser_session

        session_factory = browser_session
    draft, target = checked.draft, checked.target
    needs_person = human is not None and any(isinstance(a, HumanAction) for a in draft.walk())
    options = EngineOptions(
        salt=draft.fingerprint_salt,
        allow_heal=checked.heal,
        timeout_ms=checked.timeout_ms,
        settle_ms=checked.settle_ms,
        url_rule=target.url_rule,
        hidden=sensitive_values(draft, checked.values),
        downloads=None if checked.downloads is None else str(checked.downloads),
    )
    debug = checked.debug
    recorder = _artifact_recorder(checked)
    try:
        async with session_factory(
            target.environment,
            html=target.html,
            storage_state=target.storage_state,
            headless=not (needs_person or debug.headed),
            **_debug_launch(debug, recorder),
            **_downloads(checked),
        ) as session:
            if recorder is not None:
                await recorder.start(session.context)
            driver = PlaywrightDriver(session)
            engine = ReplayEngine(driver, options, human=human, progress=progress, groups=recorder)
            try:
                records = await engine.run(
                    target.actions, checked.values, parameters=draft.parameters, labels=checked.labels
                )
                driver.pages.check_downloads()  # one the last step started (after the engine's drain)
            except SkillreelError as exc:
                await _finish_artifacts(recorder, session, Failure(exc.action_id, exc.code), ran.notes)
                raise
            except PlaywrightError:
                await _finish_artifacts(
                    recorder, session, Failure(None, "SR_REPLAY_UI_ACTION_FAILED"), ran.notes
                )
                raise
            finally:
                ran.done.extend(engine.completed)
                ran.stopped = engine.failed
            await _finish_artifacts(recorder, session, None, ran.notes)
            cookies = await ended_cookies(session.context) if engine.outputs else ()
            return records, engine.outputs, cookies
    except PlaywrightError as exc:  # anything the driver did not already translate
        raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the browser failed during the replay") from exc
    finally:
        if recorder is not None:
            recorder.close()


def with_failure_conditions(error: SkillreelError, conditions: Sequence[str]) -> None:
    """The skill's own failure conditions (what its author wrote: "the page says Already
    refunded"), in a failed replay's error details (``failureConditions``) for the caller to read
    beside the code; none written: nothing added."""
    if conditions:
        error.details.setdefault("failureConditions", list(conditions))


def _artifact_recorder(checked: Preflight) -> ArtifactRecorder | None:
    """The recorder of ``--artifacts`` (None when not asked), hiding this replay's sensitive values."""
    if checked.debug.artifacts is None:
        return None
    return ArtifactRecorder(
        checked.debug,
        Hidden.of(sensitive_values(checked.draft, checked.values), _signed_in(checked)),
        name=checked.entry.name,
        revision=checked.entry.revision,
    )


def _signed_in(checked: Preflight) -> Mapping[str, Any] | None:
    """The storage state the replay starts with (a vault login's body, or a file's), if any."""
    signed_in = checked.storage_state
    if isinstance(signed_in, LoginState):
        return signed_in.body
    if isinstance(signed_in, Path):
        return read_storage_state(signed_in)
    return None


def _downloads(checked: Preflight) -> dict[str, Any]:
    """The session's downloads switch, given only to a skill that downloads (a warm session has none)."""
    return {"downloads": True} if checked.downloads is not None else {}


def _debug_launch(debug: DebugOptions, recorder: ArtifactRecorder | None) -> dict[str, Any]:
    """Launch options only a debugging replay passes (a replaced session factory need not know them)."""
    launch: dict[str, Any] = {}
    if debug.slow_mo_ms:
        launch["slow_mo_ms"] = debug.slow_mo_ms
    if recorder is not None:
        launch["traces_dir"] = recorder.scratch
    return launch


async def _finish_artifacts(
    recorder: ArtifactRecorder | None, session: Session, failure: Failure | None, notes: list[ResultWarning]
) -> None:
    if recorder is None:
        return
    report = await recorder.finish(session.context, session.page, failure)
    if report is None:
        return
    if report.written:
        notes.append(
            ResultWarning(
                code="SR_REPLAY_ARTIFACTS_WRITTEN",
                message=f"debugging artifacts written to {report.directory} ({', '.join(report.written)}), "
                "mode 0600: they contain page content, keep them private; open the trace with "
                f"`skillreel show-trace {report.directory}`",
            )
        )
    if report.withheld:
        notes.append(
            ResultWarning(
                code="SR_REPLAY_ARTIFACTS_WITHHELD",
                message="not written: " + "; ".join(report.withheld),
            )
        )


def _report(
    now: str, checked: Preflight, records: Sequence[StepRecord]
) -> tuple[ReplayReport, HealProposal | None]:
    entry = checked.entry
    report = ReplayReport.build(
        name=entry.name,
        draft_digest=entry.draft.draft_digest,
        approval_digest=checked.approval.approval_digest,
        environment_digest=entry.draft.environment.environment_digest,
        steps=tuple(
            StepResult(
                action_id=r.action_id,
                evidence_digest=r.evidence.evidence_digest,
                healed=r.healed,
                runs=r.runs,
                retries=r.retries,
            )
            for r in records
        ),
        finished_at=now,
    )
    return report, heal_proposal(entry, records, report, now, tuple(checked.values.values()))
