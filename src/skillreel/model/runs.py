"""Replay runs: one append-only record per replay, never a revision of the skill (ARCHITECTURE 15).

A run is reserved before the browser acts (``outcome: "started"``, with the :class:`Lease` of the
process that runs it) and finished exactly once (``succeeded``, ``failed``, ``cancelled``, or
``interrupted`` when its process died without finishing it). Its document (``skillreel.run/v1``)
carries counts and flags only, never content: which revision and draft ran, who asked
(:data:`Actor`), when, how it ended (an ``SR_*`` code), the report digest of a success, how many
steps ran and acted, which steps healed (action ids), and the digest of the heal proposal it left.

Everything here is pure: the store applies :func:`start_run` / :func:`finish_run` /
:func:`interrupt_run` results in its transactions, and :func:`shown_outcome` says how a reader
shows a run that is still ``started`` (``interrupted`` once its lease is gone).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    StringConstraints,
    model_serializer,
    model_validator,
)

from .actions import Action, NavigateAction
from .base import ActionId, Digest, DigestedDocument, Document, SkillName, Timestamp

Actor = Literal["cli", "mcp", "package-script", "import", "batch", "fleet"]
ACTORS: Final[tuple[Actor, ...]] = ("cli", "mcp", "package-script", "import", "batch", "fleet")
RunOutcome = Literal["started", "succeeded", "failed", "cancelled", "interrupted"]
EndedOutcome = Literal["succeeded", "failed", "cancelled"]  # what the process that ran it says
RunId = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]
BootId = Annotated[str, StringConstraints(pattern=r"^[0-9a-zA-Z-]{1,64}$")]
ErrorCode = Annotated[str, StringConstraints(pattern=r"^SR_[A-Z_]{1,60}$")]
StepCount = Annotated[int, Field(ge=0, le=4096)]
RunsetId = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{16}$")]
RowNumber = Annotated[int, Field(ge=1, le=100_000)]
MatchedRank = Annotated[int, Field(ge=1, le=63)]  # model.limits.MAX_BATCH_ROWS
# The name an MCP client gave in ``initialize`` (a claim, kept for the record), as ``client_label`` cleans it.
ClientName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._@/+-]{0,63}$")]

_BATCH_KEYS: Final = ("runset", "row")
_OPTIONAL_KEYS: Final = (*_BATCH_KEYS, "client", "matchedRanks")
CANCELLED_CODE: Final = "SR_REPLAY_CANCELLED"
INTERRUPTED_CODE: Final = "SR_REPLAY_INTERRUPTED"


class Lease(Document):
    """Who holds a started run: the process id, the machine's boot id and the process's start time
    (clock ticks since boot), so a reused pid or a reboot is never taken for the same process."""

    pid: Annotated[int, Field(ge=1, le=2**31)]
    boot_id: BootId | None = None
    process_start: Annotated[int, Field(ge=0)] | None = None


class RunRecord(DigestedDocument):
    """One replay run (see the module docstring); ``runDigest`` covers every other field."""

    digest_tag = "skillreel.run/v1"
    digest_field = "run_digest"

    schema_: Literal["skillreel.run/v1"] = Field("skillreel.run/v1", alias="schema")
    run_id: RunId
    name: SkillName
    revision: Annotated[int, Field(ge=1)]
    draft_digest: Digest
    actor: Actor
    client: ClientName | None = None  # with actor mcp: the client's name from initialize, if any
    lease: Lease
    started_at: Timestamp
    finished_at: Timestamp | None = None
    outcome: RunOutcome = "started"
    code: ErrorCode | None = None
    report_digest: Digest | None = None
    steps_total: StepCount
    steps_acting: StepCount = 0
    steps_run: StepCount = 0
    steps_acted: StepCount = 0
    side_effects: bool = False
    healed_steps: tuple[ActionId, ...] = Field(default=(), max_length=256)
    # the steps whose target a lower-ranked locator found (its rank, from 1) while the higher ones
    # found nothing that agrees (issue 33: the rank proposal); a strategy index, no content
    matched_ranks: dict[ActionId, MatchedRank] | None = Field(default=None, max_length=256)
    heal_proposal_digest: Digest | None = None
    runset: RunsetId | None = None  # the batch it is a row of (``replay --batch``), and which row
    row: RowNumber | None = None
    run_digest: Digest

    @model_serializer(mode="wrap")
    def _omit_unset_batch(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # left out of the wire form when unset: a run written before batches keeps its digest
        data: dict[str, Any] = handler(self)
        for key in _OPTIONAL_KEYS:
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @model_validator(mode="after")
    def _consistent(self) -> RunRecord:
        problem = run_problem(self)
        if problem:
            raise ValueError(problem)
        return self

    @property
    def finished(self) -> bool:
        return self.outcome != "started"


def run_problem(r: RunRecord) -> str | None:
    """The first rule ``r`` breaks, or None. Pure; the store re-checks it on every read."""
    if (r.outcome == "started") != (r.finished_at is None):
        return "exactly a started run has no finish time"
    if r.finished_at is not None and r.finished_at < r.started_at:
        return "a run finishes after it starts"
    if (r.outcome == "succeeded") != (r.report_digest is not None):
        return "exactly a succeeded run has a report"
    if (r.outcome in ("started", "succeeded")) != (r.code is None):
        return "exactly a run that did not succeed (and is not running) has a code"
    if r.outcome == "succeeded" and r.steps_total and not r.steps_run:
        # not "every step": a branch's other arm and a loop over no items do not run
        return "a succeeded run ran a step"
    if r.steps_acted > min(r.steps_run, r.steps_acting) or max(r.steps_run, r.steps_acting) > r.steps_total:
        return "a run acts only on steps that ran and can act, and runs at most the steps it has"
    if r.outcome == "interrupted":
        if r.steps_run or r.steps_acted or r.side_effects != (r.steps_acting > 0):
            return "an interrupted run counts nothing and may have acted exactly when a step can act"
    elif r.side_effects != (r.steps_acted > 0):
        return "side effects are exactly the steps that acted"
    if len(r.healed_steps) > r.steps_run or len(set(r.healed_steps)) != len(r.healed_steps):
        return "healed steps are distinct steps that ran"
    if r.heal_proposal_digest is not None and not r.healed_steps and not r.matched_ranks:
        return "only a run that healed (or found a target by a lower locator) leaves a heal proposal"
    if (r.runset is None) != (r.row is None):
        return "a run of a batch names both its runset and its row"
    return None


ACTING_KINDS: Final = frozenset(
    {"click", "type", "select", "choose", "press", "human", "dialog", "hover", "upload", "download", "page"}
)


def can_act(action: Action) -> bool:
    """Whether a step may change something outside the browser: it clicks, types, selects, presses,
    hands over to a person, downloads, closes a popup (``page``), or navigates after the start page
    (a link a person followed by address)."""
    if isinstance(action, NavigateAction):
        return action.reason != "start"
    return action.kind in ACTING_KINDS


@dataclass(frozen=True)
class BatchSlot:
    """Where a run sits in a batch: its runset and its row number (from 1)."""

    runset: str
    row: int


def start_run(
    run_id: str,
    name: str,
    revision: int,
    draft_digest: str,
    steps_total: int,
    steps_acting: int,
    actor: Actor,
    lease: Lease,
    now: str,
    batch: BatchSlot | None = None,
    client: str | None = None,
) -> RunRecord:
    """The record a replay reserves before its browser starts (a row of ``batch`` when given;
    ``client``: the MCP client's name)."""
    return RunRecord.build(
        client=client,
        runset=batch.runset if batch is not None else None,
        row=batch.row if batch is not None else None,
        run_id=run_id,
        name=name,
        revision=revision,
        draft_digest=draft_digest,
        actor=actor,
        lease=lease,
        started_at=now,
        steps_total=steps_total,
        steps_acting=steps_acting,
    )


class StepTally(Document):
    """What the steps of a run came to, as counts and action ids (no content)."""

    steps_run: StepCount = 0
    steps_acted: StepCount = 0
    healed_steps: tuple[ActionId, ...] = ()
    matched_ranks: dict[ActionId, MatchedRank] = Field(default_factory=dict)


def finish_run(
    run: RunRecord,
    outcome: EndedOutcome,
    now: str,
    *,
    tally: StepTally,
    code: str | None = None,
    report_digest: str | None = None,
    heal_proposal_digest: str | None = None,
) -> RunRecord:
    """The finished record: once only (a finished run is never rewritten)."""
    if run.finished:
        raise ValueError("a finished run is never finished again")
    return run.evolve(
        outcome=outcome,
        finished_at=max(now, run.started_at),
        code=code,
        report_digest=report_digest,
        steps_run=tally.steps_run,
        steps_acted=tally.steps_acted,
        side_effects=tally.steps_acted > 0,
        healed_steps=tally.healed_steps,
        matched_ranks=tally.matched_ranks or None,
        heal_proposal_digest=heal_proposal_digest,
    )


def interrupt_run(run: RunRecord, now: str) -> RunRecord:
    """A started run whose process is gone. How far it got is unknown: it counts no step, and it
    may have had side effects exactly when one of its steps can act (a retry may repeat work)."""
    if run.finished:
        raise ValueError("a finished run is never finished again")
    return run.evolve(
        outcome="interrupted",
        finished_at=max(now, run.started_at),
        code=INTERRUPTED_CODE,
        side_effects=run.steps_acting > 0,
    )


def shown_outcome(run: RunRecord, lease_alive: bool) -> RunOutcome:
    """How a reader shows a run: a started one whose lease is gone is ``interrupted``."""
    if run.outcome == "started" and not lease_alive:
        return "interrupted"
    return run.outcome
