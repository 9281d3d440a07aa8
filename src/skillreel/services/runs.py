"""A replay run's life, in one place: reserved from a pre-flight, ended once, or refused before it.

    run = reserve_run(store, checked.entry)                  # ``started``, with its ``run-start``
    outcome = end_played(store, run, played, where)          # ``succeeded`` / ``failed`` + ``run-end``
    outcome = end_stopped(store, run, "cancelled", ran, error, where)   # cancelled, or a crash
    outcome = refuse(store, request, entry, error)           # one ``replay-refused`` event, no run

Every way a run starts goes through here: a single replay (``services.replaying``), a batch row
(``services.batching``, through the replay), a fleet row (``services.fleet_batching``: reserved
here, ended here from its worker's result, or given up or interrupted), and an MCP play (through
the replay). So every run of a skill counts its steps the same way: ``steps_total`` is every step
of the draft, those inside loops and branches included (``Draft.walk``), which is what a run's end
counts (one :class:`StepReport` per step that ran, however many times it ran).

The end of a run is written once (``Store.finish_run``): a healed success leaves its heal proposal
(:func:`heal_proposal`: the draft with those steps' locators described afresh, redacted); a failed
write never changes what happened, it only says the run could not be recorded
(``SR_RECORD_RUN_UNRECORDED``, :attr:`Ended.recorded` False).
"""

from __future__ import annotations

import asyncio
import logging
import secrets as tokens
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from ..errors import InputError, ReplayError, SkillreelError
from ..locate.proposals import proposed_draft, rank_promotions, reranked_draft
from ..model.base import check_skill_name
from ..model.entry import HealProposal, StoreEntry
from ..model.envelope import ResultWarning
from ..model.locators import LocatorBundle
from ..model.report import ReplayReport
from ..model.runs import (
    CANCELLED_CODE,
    Actor,
    BatchSlot,
    EndedOutcome,
    RunRecord,
    StepTally,
    can_act,
    finish_run,
    interrupt_run,
    start_run,
)
from ..store import AuditNote, Store
from ..store.lease import current_lease
from .preflight import ReplayRequest

if TYPE_CHECKING:
    from ..record.redact import TypedValues
    from ..replay.engine import FailedStep, StepRecord

__all__ = [
    "UNRECORDED",
    "Ended",
    "Played",
    "ReplayCancelled",
    "ReplayOutcome",
    "StepReport",
    "StepsRan",
    "audit_refusal",
    "cancelled_error",
    "end_played",
    "end_run",
    "end_stopped",
    "heal_proposal",
    "interrupt",
    "refuse",
    "refused_outcome",
    "reserve_run",
    "started_run",
    "tally_of",
]

log = logging.getLogger(__name__)

UNRECORDED = "SR_RECORD_RUN_UNRECORDED"
# A refused reservation is logged as a refusal unless the store itself could not be written.
_STORE_UNWRITABLE = frozenset({"SR_RECORD_STORE_BUSY", "SR_RECORD_STORE_IO", "SR_RECORD_STORE_CORRUPT"})


# --- what a replay reports ------------------------------------------------------------------------


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
    matched_rank: int | None = None  # the locator that found the target, when not the first

    def to_json(self) -> dict[str, Any]:
        rank = {"matchedRank": self.matched_rank} if self.matched_rank else {}
        return {
            "actionId": self.action_id,
            "kind": self.kind,
            "status": self.status,
            "healed": self.healed,
            "sideEffects": self.side_effects,
            "evidenceDigest": self.evidence_digest,
            **rank,
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
class StepsRan:
    """What the browser phase got through: the finished steps and the one it stopped at."""

    done: list[StepRecord]
    stopped: FailedStep | None = None
    notes: list[ResultWarning] = field(default_factory=list)  # debugging artifacts written or withheld

    def reports(self) -> tuple[StepReport, ...]:
        rows = [
            StepReport(
                r.action_id, r.kind, "done", r.healed, r.acted, r.evidence.evidence_digest, r.matched_rank
            )
            for r in self.done
        ]
        if self.stopped is not None:
            f = self.stopped
            rows.append(StepReport(f.action_id, f.kind, "failed", f.healed, f.acted))
        return tuple(rows)

    def tally(self) -> StepTally:
        return tally_of(self.reports())


def tally_of(steps: Sequence[StepReport]) -> StepTally:
    """A run's end counts: the steps that ran (each once), those that acted, those that healed."""
    return StepTally(
        steps_run=len(steps),
        steps_acted=sum(1 for s in steps if s.side_effects),
        healed_steps=tuple(s.action_id for s in steps if s.healed),
        matched_ranks={s.action_id: s.matched_rank for s in steps if s.matched_rank and not s.healed},
    )


@dataclass(frozen=True)
class Played:
    """What the browser phase of a checked replay came to, with no store involved: ``succeeded``
    with its report (and heal proposal) and the caller's outputs, or ``failed`` with the error; the
    steps that ran either way. ``outputs`` is None for a skill that reads nothing; ``masked`` warns
    of the values masked because they held a sensitive input, ``masked_outputs`` names their
    outputs (what a fleet worker sends its coordinator)."""

    status: Literal["succeeded", "failed"]
    steps: tuple[StepReport, ...]
    tally: StepTally
    error: SkillreelError | None = None
    report: ReplayReport | None = None
    proposal: HealProposal | None = None
    notes: tuple[ResultWarning, ...] = ()
    outputs: dict[str, Any] | None = None
    masked: tuple[ResultWarning, ...] = ()
    masked_outputs: tuple[str, ...] = ()


# --- the start ------------------------------------------------------------------------------------


def started_run(
    entry: StoreEntry, actor: Actor, now: str, batch: BatchSlot | None = None, client: str | None = None
) -> RunRecord:
    """The record a run of ``entry`` starts as: every step counted, those inside loops and branches
    too (what its end counts), and those of them that can act."""
    steps = entry.draft.walk()
    return start_run(
        tokens.token_hex(16),
        entry.name,
        entry.revision,
        entry.draft.draft_digest,
        len(steps),
        sum(1 for a in steps if can_act(a)),
        actor,
        current_lease(),
        now,
        batch,
        client,
    )


def reserve_run(
    store: Store, entry: StoreEntry, batch: BatchSlot | None = None, *, actor: Actor | None = None
) -> RunRecord:
    """Write the run as ``started`` (with its ``run-start`` event) before any browser starts;
    raises ``SR_*`` when the store refuses (nothing may act then). ``actor``: the store's own."""
    return store.reserve_run(started_run(entry, actor or store.actor, store.now(), batch, store.client))


def refuse(
    store: Store,
    request: ReplayRequest,
    entry: StoreEntry | None,
    error: SkillreelError,
) -> ReplayOutcome:
    """A replay refused before a run was reserved: one content-free ``replay-refused`` event
    (coalesced when refusals come fast; not when the store itself could not be written), and the
    failed outcome that says so."""
    if error.code not in _STORE_UNWRITABLE:
        audit_refusal(store, request, entry, error)
    return refused_outcome(request.name, error, entry.revision if entry else None, request.environment)


def refused_outcome(
    name: str, error: SkillreelError, revision: int | None = None, environment: str | None = None
) -> ReplayOutcome:
    """The replay document of a replay refused before any step ran (no run)."""
    return ReplayOutcome("failed", name, revision, error=error, environment=environment)


def audit_refusal(
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


# --- the end --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ended:
    """A run's end as written: the finished record, whether the store took it (``unrecorded``: the
    code that kept it out), and the revision its success validated."""

    run: RunRecord
    unrecorded: str | None = None
    validated: int | None = None

    @property
    def recorded(self) -> bool:
        return self.unrecorded is None


def end_run(
    store: Store,
    run: RunRecord,
    ended: EndedOutcome,
    tally: StepTally,
    *,
    code: str | None = None,
    report: ReplayReport | None = None,
    proposal: HealProposal | None = None,
) -> Ended:
    """Finish ``run`` once in the store (``run-end``; a success's report, its heal proposal, and the
    revision it validates); a failed write is returned, never raised."""
    finished = finish_run(
        run,
        ended,
        store.now(),
        tally=tally,
        code=code,
        report_digest=report.report_digest if report is not None else None,
        heal_proposal_digest=proposal.draft.draft_digest if proposal is not None else None,
    )
    return _write(store, finished, report, proposal)


def interrupt(store: Store, run: RunRecord) -> Ended:
    """End a run whose process went away mid-run (``interrupted``: it counts no step, and it may
    have acted exactly when one of its steps can act)."""
    return _write(store, interrupt_run(run, store.now()), None, None)


def _write(
    store: Store, finished: RunRecord, report: ReplayReport | None, proposal: HealProposal | None
) -> Ended:
    try:
        result = store.finish_run(finished, report=report, proposal=proposal)
    except SkillreelError as exc:
        return Ended(finished, unrecorded=exc.code)
    return Ended(finished, validated=result.validated.revision if result.validated is not None else None)


def end_played(store: Store, run: RunRecord, played: Played, environment: str | None) -> ReplayOutcome:
    """End a reserved run from its browser phase's result (on the named ``environment``, None:
    the recorded one); the caller's outputs and masking warnings go to the outcome only."""
    error = played.error
    if played.proposal is None and played.report is not None:
        played = replace(played, proposal=rank_proposal(store, run, played.tally, played.report))
    ended = end_run(
        store,
        run,
        played.status,
        played.tally,
        code=error.code if error is not None else None,
        report=played.report,
        proposal=played.proposal,
    )
    outcome = _outcome(
        run,
        ended,
        played.status,
        played.steps,
        played.notes,
        error,
        environment,
        played.report,
        played.proposal,
    )
    return replace(outcome, warnings=played.masked + outcome.warnings, outputs=played.outputs)


def end_stopped(
    store: Store,
    run: RunRecord,
    ended: Literal["failed", "cancelled"],
    ran: StepsRan,
    error: SkillreelError,
    environment: str | None,
) -> ReplayOutcome:
    """End a reserved run whose browser phase was cancelled, or broke on a defect (``failed``),
    with the steps it got through."""
    written = end_run(store, run, ended, ran.tally(), code=error.code)
    return _outcome(run, written, ended, ran.reports(), tuple(ran.notes), error, environment)


def _outcome(
    run: RunRecord,
    ended: Ended,
    status: Literal["succeeded", "failed", "cancelled"],
    steps: tuple[StepReport, ...],
    notes: tuple[ResultWarning, ...],
    error: SkillreelError | None,
    environment: str | None,
    report: ReplayReport | None = None,
    proposal: HealProposal | None = None,
) -> ReplayOutcome:
    """The replay document of an ended run; a failed write only adds a warning."""
    unrecorded: tuple[ResultWarning, ...] = ()
    if ended.unrecorded is not None:
        log.warning("the run's outcome could not be recorded: %s", ended.unrecorded)
        unrecorded = (
            ResultWarning(
                code=UNRECORDED,
                message=f"the replay {status}, but its run could not be recorded ({ended.unrecorded}); "
                f"`skillreel runs {run.name}` shows it as started or interrupted",
            ),
        )
    return ReplayOutcome(
        status,
        run.name,
        run.revision,
        report,
        steps,
        error,
        proposal is not None,
        (*notes, *unrecorded),
        run.run_id,
        recorded=ended.recorded,
        validated_revision=ended.validated,
        environment=environment,
    )


def cancelled_error() -> ReplayError:
    return ReplayError(CANCELLED_CODE, "the replay was cancelled; the steps that ran are listed")


# --- the heal proposal a healed success leaves ----------------------------------------------------


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
    candidate = proposed_draft(draft, healed)
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


def rank_proposal(
    store: Store, run: RunRecord, tally: StepTally, report: ReplayReport
) -> HealProposal | None:
    """A heal proposal that reorders a step's locators, when this successful run and earlier ones
    of the same draft (``RANK_RUNS`` in all) found its target by the same lower-ranked locator
    (``locate.proposals``); None otherwise, or when the skill moved on to another draft."""
    if not tally.matched_ranks:
        return None
    entry = store.get(run.name)
    if entry.draft.draft_digest != run.draft_digest:
        return None
    history = store.matched_ranks(run.name, run.draft_digest)
    promoted = rank_promotions([dict(tally.matched_ranks), *history])
    promoted = {step: rank for step, rank in promoted.items() if tally.matched_ranks.get(step) == rank}
    if not promoted:
        return None
    candidate = reranked_draft(entry.draft, promoted)
    if candidate.draft_digest == entry.draft.draft_digest:
        return None
    return HealProposal(
        base_revision=entry.revision,
        base_draft_digest=entry.draft.draft_digest,
        draft=candidate,
        healed_actions=tuple(a.id for a in entry.draft.walk() if a.id in promoted),
        report_digest=report.report_digest,
        proposed_at=store.now(),
    )
