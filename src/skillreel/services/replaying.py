"""The replay use case: pre-flight, a reserved run, one Chromium session, the engine, the run's end.

    outcome = await replay_skill(store, ReplayRequest(name="search", inputs={"query": "x"}),
                                 secrets=EnvKeyringSecrets(), progress=print_step, human=ask)
    outcome.to_json()   # the `data` of the `replay --json` and `skills_play` envelopes

A replay is a run (``model.runs``), never a new revision of the skill. In order:

1. **Pre-flight** (``services/preflight.py``): everything that needs no browser; it lists the
   required sensitive parameters the vault lacks (the MCP server asks a person for them). A refusal
   here is logged as one ``replay-refused`` event, coalesced when they come fast
   (``Store.audit_refusal``), and changes nothing.
2. **Reservation** (``Store.reserve_run``): the run is written as ``started`` with its
   ``run-start`` event before any browser starts. If that write fails (the store busy past its
   timeout, the disk full, the audit log or the store at its limit, the skill changed since the
   pre-flight), the replay is refused and nothing acts.
3. **The browser phase** (``_run``): one Chromium session and the engine.
4. **The end** (``Store.finish_run``): the run is finished once as ``succeeded``, ``failed`` or
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
import logging
import secrets as tokens
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import InputError, ReplayError, ReplayUIError, SkillreelError
from ..model.actions import Action, ExtractAction, HumanAction
from ..model.base import check_skill_name
from ..model.draft import Draft
from ..model.entry import HealProposal, StoreEntry
from ..model.envelope import ResultWarning
from ..model.graph import replace_steps
from ..model.limits import MAX_OUTPUTS_BYTES
from ..model.locators import LocatorBundle, merge_heal
from ..model.report import ReplayReport, StepResult
from ..model.runs import (
    CANCELLED_CODE,
    BatchSlot,
    EndedOutcome,
    RunRecord,
    StepTally,
    can_act,
    finish_run,
    start_run,
)
from ..model.session import SessionState
from ..model.values import mask_outputs, outputs_size
from ..replay.engine import (
    EngineOptions,
    FailedStep,
    HumanPrompt,
    Progress,
    ReplayEngine,
    StepProgress,
    StepRecord,
)
from ..sandbox.artifacts import ArtifactRecorder, DebugOptions, Failure, Hidden, prepare_directory
from ..sandbox.files import read_storage_state
from ..store import AuditNote, Store
from ..store.lease import current_lease
from ..vault import EnvKeyringSecrets, SecretSource, secret_env_name
from ..vault.sessions import SessionVault
from .preflight import Preflight, ReplayRequest, check_options, preflight, run_preflight

if TYPE_CHECKING:
    from ..record.redact import TypedValues
    from ..replay.driver import Session

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

log = logging.getLogger(__name__)

SessionFactory = Callable[..., AbstractAsyncContextManager["Session"]]
UNRECORDED = "SR_RECORD_RUN_UNRECORDED"
# A refused reservation is logged as a refusal unless the store itself could not be written.
_STORE_UNWRITABLE = frozenset({"SR_RECORD_STORE_BUSY", "SR_RECORD_STORE_IO", "SR_RECORD_STORE_CORRUPT"})


@dataclass(frozen=True)
class StepReport:
    """One step that ran: ``done`` or ``failed`` (the step the run stopped at), whether it healed,
    whether it acted (``side_effects``: it clicked, typed, selected, pressed, navigated on or handed
    over to a person, so it may have changed something), and its evidence digest when it finished."""

    action_id: str
    kind: str
    status: Literal["done", "failed"]
    healed: bool
    side_effects: bool
    evidence_digest: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "actionId": self.action_id,
            "kind": self.kind,
            "status": self.status,
            "healed": self.healed,
            "sideEffects": self.side_effects,
            "evidenceDigest": self.evidence_digest,
        }


@dataclass(frozen=True)
class ReplayOutcome:
    """What a replay came to: its status, the run that recorded it (``run_id``; None when it was
    refused before a run was reserved), the revision replayed, and the steps that ran."""

    status: Literal["succeeded", "failed", "cancelled"]
    name: str
    revision: int | None = None
    report: ReplayReport | None = None
    steps: tuple[StepReport, ...] = ()
    error: SkillreelError | None = None
    heal_proposed: bool = False
    warnings: tuple[ResultWarning, ...] = ()
    run_id: str | None = None
    recorded: bool = False
    validated_revision: int | None = None
    environment: str | None = None  # the named environment replayed on (None: the recorded one)
    # what the skill read from the page: the caller's only (never stored, audited or logged); None
    # when the replay did not succeed (nothing is returned from a failed run) or reads nothing
    outputs: Mapping[str, Any] | None = field(default=None, repr=False)

    @property
    def exit_status(self) -> int:
        return 0 if self.error is None else self.error.exit_status

    @property
    def side_effects(self) -> bool:
        return any(s.side_effects for s in self.steps)

    def to_json(self) -> dict[str, Any]:
        """The replay document, one shape for success and failure: the ``data`` of the
        ``skillreel replay --json`` and ``skills_play`` envelopes (the error goes beside it)."""
        return {
            "status": self.status,
            "name": self.name,
            "revision": self.revision,
            "runId": self.run_id,
            "recorded": self.recorded,
            "reportDigest": self.report.report_digest if self.report is not None else None,
            "steps": [s.to_json() for s in self.steps],
            "sideEffects": self.side_effects,
            "healed": any(s.healed for s in self.steps),
            "healProposal": self.heal_proposed,
            "environment": self.environment,
            "validatedRevision": self.validated_revision,
            "outputs": None if self.outputs is None else dict(self.outputs),
        }


class ReplayCancelled(asyncio.CancelledError):
    """The replay was cancelled; its run is recorded as ``cancelled``. Raised so cancellation keeps
    propagating; the edge that started the replay may catch it and report :attr:`outcome`."""

    def __init__(self, outcome: ReplayOutcome) -> None:
        super().__init__("replay cancelled")
        self.outcome = outcome


@dataclass
class _Progress:
    """What the browser phase got through: the finished steps and the one it stopped at."""

    done: list[StepRecord]
    stopped: FailedStep | None = None
    notes: list[ResultWarning] = field(default_factory=list)  # debugging artifacts written or withheld

    def reports(self) -> tuple[StepReport, ...]:
        rows = [
            StepReport(r.action_id, r.kind, "done", r.healed, r.acted, r.evidence.evidence_digest)
            for r in self.done
        ]
        if self.stopped is not None:
            f = self.stopped
            rows.append(StepReport(f.action_id, f.kind, "failed", f.healed, f.acted))
        return tuple(rows)

    def tally(self) -> StepTally:
        steps = self.reports()
        return StepTally(
            steps_run=len(steps),
            steps_acted=sum(1 for s in steps if s.side_effects),
            healed_steps=tuple(s.action_id for s in steps if s.healed),
        )


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
            entry, store.policy(), request, secrets or EnvKeyringSecrets(), SessionVault(store.home)
        )
        if checked.missing_sensitive:
            names = ", ".join(checked.missing_sensitive)
            envs = ", ".join(secret_env_name(entry.name, p) for p in checked.missing_sensitive)
            raise ReplayError(
                "SR_REPLAY_SECRET_MISSING",
                f"no value in the vault for sensitive parameter(s) {names}: set {envs} or store it in the "
                "OS keyring",
            )
        if checked.debug.artifacts is not None:
            prepare_directory(checked.debug.artifacts)
        run = store.reserve_run(_started(store, checked, batch))
    except SkillreelError as exc:
        if exc.code not in _STORE_UNWRITABLE:
            _audit_refusal(store, request, entry, exc)
        return ReplayOutcome(
            "failed",
            request.name,
            entry.revision if entry else None,
            error=exc,
            environment=request.environment,
        )
    except Exception:  # a defect: still leave the refusal in the audit log, then let it surface
        _audit_refusal(store, request, entry, SkillreelError("SR_RECORD_INTERNAL", "internal error"))
        raise
    return await _play(store, checked, run, progress, human, session_factory)


def _started(store: Store, checked: Preflight, batch: BatchSlot | None = None) -> RunRecord:
    entry = checked.entry
    actions = entry.draft.walk()  # every step, those inside loops and branches too
    return start_run(
        tokens.token_hex(16),
        entry.name,
        entry.revision,
        entry.draft.draft_digest,
        len(actions),
        sum(1 for a in actions if can_act(a)),
        store.actor,
        current_lease(),
        store.now(),
        batch,
    )


async def _play(
    store: Store,
    checked: Preflight,
    run: RunRecord,
    progress: Progress | None,
    human: HumanPrompt | None,
    session_factory: SessionFactory | None,
) -> ReplayOutcome:
    """The browser phase of a reserved run, then its end (module docstring, steps 3 and 4)."""
    ran = _Progress([])
    where = checked.target.name
    try:
        played = await play_checked(
            checked, store.now, progress=progress, human=human, session_factory=session_factory, ran=ran
        )
    except asyncio.CancelledError:
        cancelled = ReplayError(CANCELLED_CODE, "the replay was cancelled; the steps that ran are listed")
        raise ReplayCancelled(
            _end(store, run, "cancelled", ran, error=cancelled, environment=where)
        ) from None
    except Exception:  # a defect: the run still ends as failed in the store, then it surfaces
        _end(
            store,
            run,
            "failed",
            ran,
            error=SkillreelError("SR_RECORD_INTERNAL", "internal error"),
            environment=where,
        )
        raise
    ended = _end(
        store,
        run,
        played.status,
        ran,
        error=played.error,
        report=played.report,
        proposal=played.proposal,
        environment=where,
    )
    return replace(ended, warnings=played.masked + ended.warnings, outputs=played.outputs)


@dataclass(frozen=True)
class Played:
    """What the browser phase of a checked replay came to, with no store involved: ``succeeded``
    with its report (and heal proposal) and the caller's outputs, or ``failed`` with the error; the
    steps that ran either way. ``outputs`` is None for a skill that reads nothing; ``masked`` warns
    of the values masked because they held a sensitive input."""

    status: Literal["succeeded", "failed"]
    steps: tuple[StepReport, ...]
    tally: StepTally
    error: SkillreelError | None = None
    report: ReplayReport | None = None
    proposal: HealProposal | None = None
    notes: tuple[ResultWarning, ...] = ()
    outputs: dict[str, Any] | None = None
    masked: tuple[ResultWarning, ...] = ()


async def play_checked(
    checked: Preflight,
    now: Callable[[], str],
    *,
    progress: Progress | None = None,
    human: HumanPrompt | None = None,
    session_factory: SessionFactory | None = None,
    ran: _Progress | None = None,
) -> Played:
    """The browser phase of a replay whose pre-flight passed, without a store: one sandboxed
    Chromium session (allowlist, proxy), the engine, the report and the outputs (bounded and masked
    here, before anything could store them). ``now`` is the clock the report is dated with. A fleet
    worker calls it on a verified bundle; :func:`replay_skill` on its reserved run.
    Cancellation and defects propagate (``ran``, when given, holds the steps that ran)."""
    ran = ran if ran is not None else _Progress([])
    try:
        records, read = await _run(checked, progress, human, session_factory, ran)
        # bounded and masked before anything is stored (a run over the bounds fails)
        state = _signed_in(checked) if read else None
        session = Hidden.of((), state).values if state is not None else ()
        outputs, masked = caller_outputs(checked.draft, checked.values, read, session=session)
    except SkillreelError as exc:
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
        masked=masked,
    )


async def _run(
    checked: Preflight,
    progress: Progress | None,
    human: HumanPrompt | None,
    session_factory: SessionFactory | None,
    ran: _Progress,
) -> tuple[tuple[StepRecord, ...], dict[str, Any]]:
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
        ) as session:
            if recorder is not None:
                await recorder.start(session.context)
            engine = ReplayEngine(PlaywrightDriver(session), options, human=human, progress=progress)
            try:
                records = await engine.run(
                    target.actions, checked.values, parameters=draft.parameters, labels=checked.labels
                )
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
            return records, engine.outputs
    except PlaywrightError as exc:  # anything the driver did not already translate
        raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the browser failed during the replay") from exc
    finally:
        if recorder is not None:
            recorder.close()


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


def sensitive_values(draft: Draft, values: Mapping[str, str]) -> tuple[str, ...]:
    """The replay's values of sensitive parameters (what no output, artifact or proposal may hold)."""
    return tuple(values[p.name] for p in draft.parameters if p.sensitive and p.name in values)


def _signed_in(checked: Preflight) -> Mapping[str, Any] | None:
    """The storage state the replay starts with (a vault session's body, or a file's), if any."""
    signed_in = checked.storage_state
    if isinstance(signed_in, SessionState):
        return signed_in.body
    if isinstance(signed_in, Path):
        return read_storage_state(signed_in)
    return None


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
                "`playwright show-trace trace.zip`",
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
            )
            for r in records
        ),
        finished_at=now,
    )
    return report, heal_proposal(entry, records, report, now, tuple(checked.values.values()))


def _end(
    store: Store,
    run: RunRecord,
    ended: EndedOutcome,
    ran: _Progress,
    *,
    error: SkillreelError | None = None,
    report: ReplayReport | None = None,
    proposal: HealProposal | None = None,
    environment: str | None = None,
) -> ReplayOutcome:
    """Finish the run in the store and say what happened (on the named ``environment``, None: the
    recorded one); a failed write only adds a warning."""
    finished = finish_run(
        run,
        ended,
        store.now(),
        tally=ran.tally(),
        code=error.code if error is not None else None,
        report_digest=report.report_digest if report is not None else None,
        heal_proposal_digest=proposal.draft.draft_digest if proposal is not None else None,
    )
    unrecorded: tuple[ResultWarning, ...] = ()
    validated = None
    try:
        result = store.finish_run(finished, report=report, proposal=proposal)
        validated = result.validated.revision if result.validated is not None else None
    except SkillreelError as exc:
        log.warning("the run's outcome could not be recorded: %s", exc.code)
        unrecorded = (
            ResultWarning(
                code=UNRECORDED,
                message=f"the replay {ended}, but its run could not be recorded ({exc.code}); "
                f"`skillreel runs {run.name}` shows it as started or interrupted",
            ),
        )
    return ReplayOutcome(
        ended,
        run.name,
        run.revision,
        report,
        ran.reports(),
        error,
        proposal is not None,
        (*ran.notes, *unrecorded),
        run.run_id,
        recorded=not unrecorded,
        validated_revision=validated,
        environment=environment,
    )


def caller_outputs(
    draft: Draft, values: Mapping[str, str], read: Mapping[str, Any], *, session: Sequence[str] = ()
) -> tuple[dict[str, Any], tuple[ResultWarning, ...]]:
    """The outputs as the caller gets them: every declared output (null when the run did not
    produce it; a collected object's missing fields null), each value that contains a sensitive
    input (of ``values``, the replay's inputs) or a value of the signed-in state the replay started
    with (``session``: its cookie and local-storage values, long enough to be told) masked, the
    whole within its size bound (``SR_REPLAY_OUTPUT_TOO_LARGE``)."""
    shaped: dict[str, Any] = {}
    for spec in draft.outputs:
        value = read.get(spec.name)
        if spec.type == "list" and isinstance(value, list):
            names = [f.name for f in spec.fields]
            value = [{n: row.get(n) for n in names} for row in value]
        shaped[spec.name] = value
    masked, count = mask_outputs(shaped, [*sensitive_values(draft, values), *session])
    if outputs_size(masked) > MAX_OUTPUTS_BYTES:
        raise ReplayError(
            "SR_REPLAY_OUTPUT_TOO_LARGE",
            f"the outputs exceed {MAX_OUTPUTS_BYTES // 1024:,} KiB; nothing was returned",
        )
    warnings: tuple[ResultWarning, ...] = ()
    if count:
        warnings = (
            ResultWarning(
                code="SR_REPLAY_OUTPUT_MASKED",
                message=f"{count} output value(s) contained a sensitive input or a session value and "
                "were masked",
            ),
        )
    return masked, warnings


def heal_proposal(
    entry: StoreEntry,
    records: Sequence[StepRecord],
    report: ReplayReport,
    now: str,
    values: Sequence[str] = (),
) -> HealProposal | None:
    """A candidate draft whose healed steps carry the locators of the elements actually acted on.

    The fresh locators come from the page, so they pass the recorder's redaction first: candidates
    whose texts echo a value typed in this replay or match a secret pattern are dropped, and
    fingerprint hashes of typed values cleared (``record.redact``). A proposal that would still add
    a finding to the draft is not made (the replay's report says which steps healed either way).
    """
    if not any(r.healed and r.healed_bundle is not None for r in records):
        return None  # nothing healed (the common case): the recorder's redaction is not even loaded
    from ..record.redact import TypedValues, scan

    typed = TypedValues(values)
    salt = entry.draft.fingerprint_salt
    healed = {
        r.action_id: b
        for r in records
        if r.healed
        and r.healed_bundle is not None
        and (b := _clean_bundle(r.healed_bundle, typed, salt)) is not None
    }
    if not healed:
        return None
    draft = entry.draft
    steps = {a.id: a for a in draft.walk() if a.id in healed}
    actions = replace_steps(draft.actions, {i: _retarget(a, healed[i]) for i, a in steps.items()})
    candidate = draft.evolve(actions=actions)
    if candidate.draft_digest == draft.draft_digest:
        return None
    if {(f.path, f.category) for f in scan(candidate, typed=typed)} - {
        (f.path, f.category) for f in scan(draft, typed=typed)
    }:
        log.warning("a heal proposal was not made: its locators would add a redaction finding")
        return None
    return HealProposal(
        base_revision=entry.revision,
        base_draft_digest=draft.draft_digest,
        draft=candidate,
        healed_actions=tuple(a.id for a in draft.walk() if a.id in healed),
        report_digest=report.report_digest,
        proposed_at=now,
    )


def _clean_bundle(bundle: LocatorBundle, typed: TypedValues, salt: str) -> LocatorBundle | None:
    from ..record.redact import scrub_bundle, secret_categories

    kept = tuple(c for c in bundle.candidates if not secret_categories(c.selector))
    if not kept:
        return None
    cleaned: LocatorBundle | None = scrub_bundle(
        LocatorBundle(candidates=kept, fingerprint=bundle.fingerprint), typed, salt
    )
    return cleaned


def _retarget(action: Action, healed: LocatorBundle) -> Action:
    """The step with the healed element's locators merged ahead of its approved ones (never
    replaced; ``merge_heal`` keeps what the approved target is: its text filter and item scope).
    An extraction target stays content-free (no hash of what it reads), so it takes the healed
    locators without their text hashes."""
    if isinstance(action, ExtractAction):
        bare = healed.without_content(action.attribute)
        if bare is None:
            return action  # nothing content-free describes it: the proposal keeps the old target
        healed = bare
    approved = getattr(action, "target", None)
    bundle = merge_heal(approved, healed) if isinstance(approved, LocatorBundle) else healed
    data = {**action.to_json(), "target": bundle.to_json()}
    retargeted: Action = type(action).parse(data)
    return retargeted


def _audit_refusal(
    store: Store, request: ReplayRequest, entry: StoreEntry | None, error: SkillreelError
) -> None:
    """One content-free ``replay-refused`` event, coalesced when refusals come fast; a failure to
    audit never hides the refusal."""
    name = entry.name if entry is not None else _valid_name(request.name)
    digests = {"draft": entry.draft.draft_digest} if entry is not None else {}
    note = AuditNote(
        kind="replay-refused",
        name=name,
        revision=entry.revision if entry else None,
        outcome="failed",
        code=error.code,
        digests=digests,
    )
    try:
        store.audit_refusal(note)
    except SkillreelError as exc:
        log.warning("the refused replay could not be audited: %s", exc.code)


def _valid_name(name: str) -> str | None:
    try:
        return check_skill_name(name)
    except InputError:
        return None
