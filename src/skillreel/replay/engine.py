"""The replay engine: an async step loop over a small :class:`Driver` protocol.

Steps run serially, blocks (``loop``, ``branch``) recursively. Each step: resolve its target
(``replay.resolving``: ``locate.heal.decide`` over the driver's in-page probe, polling until the
step's deadline), act, settle (on events: ``replay/settling.py``), summarise the page (measuring
ahead for the next step of the same list, ``replay.steps.ahead.first_target``), check the network
ledger (any refused request during the step fails it with ``SR_REPLAY_UI_NETWORK_DENIED``, without
naming origins), and collect digest-only evidence (:mod:`skillreel.replay.evidence`). The first
failure stops the run with a :class:`~skillreel.errors.SkillreelError` naming the step id; nothing
else about the page or the inputs reaches the error. The schema v2 kinds (extract, wait, scroll,
dialog, loop, branch), data flow and outputs are in :mod:`skillreel.replay.steps`: one handler
module per step family, found through one table keyed by step kind, each handler given an explicit
:class:`~skillreel.replay.steps.context.StepContext`; the engine keeps only the run loop (blocks,
records, progress, network checks).

* An ``optional`` step whose target is not on the page is skipped (evidence ``skipped``).
* A click, type, select or key press whose element the page replaced before any input reached it
  (a re-render; the driver raises :class:`TargetReplaced`, nothing done) locates its target again
  and acts on what it finds then, at most ``MAX_REPLACED`` times (``SR_REPLAY_UI_TARGET_REPLACED``).
* A typed or chosen value is verified in the field; when the page swapped the field after the input
  reached it, in the field found again exactly as recorded (``replay.steps.acting``).
* An assertion or wait with ``onFail: "skip"`` that does not hold skips the rest of its block (the
  iteration of a loop, the list of a branch; at the top level, the rest of the run).
* A step followed by a ``dialog`` step runs with that dialog's answer armed; dialogs no step
  expects are dismissed.
* A step that runs several times (in a loop) leaves one evidence over all its runs in the report;
  at most 50,000 steps run in one replay (``SR_REPLAY_STEP_BUDGET``).

``PlaywrightDriver`` (``replay/driver.py``) drives Chromium; ``FakeDriver`` (``replay/fake.py``)
is an in-memory page for fast tests of this loop. Time is injected (``clock``, ``sleep``) so tests
need no real waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import ReplayError, ReplayUIError, SkillreelError
from ..model.actions import Action, DialogAction, NavigateAction, walk
from ..model.addresses import address_refused
from ..model.canonical import tagged_digest
from ..model.draft import Parameter
from ..model.limits import MAX_STEP_RUNS
from ..model.locators import LocatorBundle
from ..model.report import Evidence
from . import evidence as ev
from .driving import (
    Absent,
    Choice,
    DialogSeen,
    Driver,
    EngineOptions,
    FailedStep,
    FieldValue,
    Frame,
    HumanPrompt,
    HumanRequest,
    ItemAhead,
    ItemsFound,
    ListRead,
    Picked,
    Progress,
    Scope,
    SkipRest,
    StepProgress,
    StepRecord,
    StepState,
    Upcoming,
)
from .resolving import HEAL_CONFIRM_S, Resolver
from .steps import handler_for
from .steps.acting import MAX_REPLACED
from .steps.ahead import first_target
from .steps.checking import url_matches
from .steps.context import Inputs, RunContext, StepContext
from .steps.page import arm_dialog
from .trace_groups import TraceGroups, mark_failed, step_group, step_title

__all__ = [
    "HEAL_CONFIRM_S",
    "MAX_REPLACED",
    "Choice",
    "DialogSeen",
    "Driver",
    "EngineOptions",
    "FailedStep",
    "FieldValue",
    "HumanPrompt",
    "HumanRequest",
    "ItemAhead",
    "ItemsFound",
    "ListRead",
    "Picked",
    "Progress",
    "ReplayEngine",
    "Scope",
    "StepProgress",
    "StepRecord",
    "url_matches",
]

# The kinds whose optional steps are skipped when their target is not on the page.
_ACTS_ON_TARGET = frozenset(
    {"click", "type", "select", "choose", "press", "observe", "extract", "scroll", "hover", "upload"}
)

# Failures a ``retry`` never runs again: the network boundary, a dead browser, the run's own bounds.
_FINAL = frozenset(
    {
        "SR_REPLAY_UI_NETWORK_DENIED",
        "SR_REPLAY_UI_NETWORK_ADDRESS_REFUSED",
        "SR_REPLAY_UI_BROWSER_CRASHED",
        "SR_REPLAY_STEP_BUDGET",
        "SR_REPLAY_OUTPUT_TOO_LARGE",
        "SR_REPLAY_URL_PART_INVALID",
    }
)


@dataclass
class _Runs:
    """Every run of one step: evidence digests in order, and the first healed bundle."""

    kind: str
    evidence: list[Evidence] = field(default_factory=list)
    healed: bool = False
    healed_bundle: LocatorBundle | None = None
    acted: bool = False
    retries: int = 0
    matched_rank: int | None = None

    def record(self, action_id: str) -> StepRecord:
        if len(self.evidence) == 1:
            evidence = self.evidence[0]
        else:
            runs = tagged_digest(
                ev.PAGE_STATE, {"kind": "runs", "evidence": [e.evidence_digest for e in self.evidence]}
            )
            evidence = ev.build_evidence(action_id, self.kind, self.healed, {"runs": runs})
        return StepRecord(
            action_id,
            evidence,
            self.healed,
            self.healed_bundle,
            self.kind,
            self.acted,
            runs=len(self.evidence),
            retries=self.retries,
            matched_rank=self.matched_rank,
        )


class ReplayEngine:
    """The run loop: blocks in order, one record per step, progress, the network check after
    each step. What a step does is its handler's (:mod:`skillreel.replay.steps`)."""

    def __init__(
        self,
        driver: Driver,
        options: EngineOptions,
        *,
        human: HumanPrompt | None = None,
        progress: Progress | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        groups: TraceGroups | None = None,
    ) -> None:
        self.driver = driver
        self.groups = groups  # the trace's step groups (``replay --artifacts``), else None
        self.options = options
        self.clock = clock
        self.sleep = sleep
        self.resolver = Resolver(driver, options, clock=clock, sleep=sleep)
        self.human = human
        self.progress = progress
        self.outputs: dict[str, object] = {}
        self._context = self._run_context(Inputs(), {}, 0)
        self._runs: dict[str, _Runs] = {}
        self._executed = 0
        self._mark = 0
        self._sensitive: frozenset[str] = frozenset()
        self.failed: FailedStep | None = None  # the step the last run stopped at (failure or cancellation)

    def _run_context(self, inputs: Inputs, index: Mapping[str, int], total: int) -> RunContext:
        return RunContext(
            self.driver,
            self.options,
            self.resolver,
            inputs,
            self.outputs,
            self.clock,
            self.sleep,
            self._run_block,
            self.human,
            index,
            total,
        )

    @property
    def completed(self) -> list[StepRecord]:
        """The steps of the last run that finished (one record per step, however many runs), even
        if a later one failed."""
        return [runs.record(action_id) for action_id, runs in self._runs.items()]

    async def run(
        self,
        actions: Sequence[Action],
        values: Mapping[str, str],
        *,
        parameters: Sequence[Parameter] = (),
        labels: frozenset[str] = frozenset(),
    ) -> tuple[StepRecord, ...]:
        """Replay every step; raise the first step's failure (with its id). :attr:`completed` holds
        the steps that finished, also after a failure; :attr:`failed` the step it stopped at (the
        innermost, also when the run was cancelled), with whether it acted; :attr:`outputs` what
        the skill read.
        ``values`` are the inputs' canonical texts; ``parameters`` type them; ``labels`` names the
        enum inputs given as an option's visible label (pre-flight allowed them for a select).

        Network refusals are counted over contiguous intervals: each step's check covers
        everything since the previous step's check (the first also covers loading the start page
        when the skill does not begin with one), so no refusal falls between two steps."""
        self._runs = {}
        self.outputs = {}
        everything = list(walk(actions))
        inputs = Inputs(values, {p.name: p for p in parameters}, labels)
        index = {a.id: i for i, a in enumerate(everything)}
        self._context = self._run_context(inputs, index, len(everything))
        self._sensitive = frozenset(p.name for p in parameters if p.sensitive)
        self._executed = 0
        self.failed = None
        self._mark = self.driver.network_mark()
        if not actions or not (isinstance(actions[0], NavigateAction) and actions[0].reason == "start"):
            await self.driver.start(timeout_ms=self.options.timeout_ms)
        with contextlib.suppress(SkipRest):  # an assertion at the top level skipped the rest of the run
            await self._run_block(tuple(actions), Frame())
        await self.driver.drain()  # what the last action started is known and waited for
        return tuple(self.completed)

    async def _run_block(self, block: tuple[Action, ...], frame: Frame, then: Upcoming | None = None) -> None:
        """Run a step list in order; :class:`SkipRest` ends it (its caller decides what that ends).
        ``then``: what runs after the list's last step measures first (the step after a branch,
        a loop's next item), measured ahead by that step's page summary."""
        for position, action in enumerate(block):
            following = block[position + 1] if position + 1 < len(block) else None
            dialog = following if isinstance(following, DialogAction) else None
            upcoming = then if following is None else self._first_target(following, frame)
            await self._run_step(action, frame, dialog, upcoming)

    def _first_target(self, action: Action | None, frame: Frame | None) -> LocatorBundle | None:
        return first_target(action, self._context.inputs, frame)

    async def _run_step(
        self,
        action: Action,
        frame: Frame,
        dialog: DialogAction | None = None,
        upcoming: Upcoming | None = None,
    ) -> None:
        """One step, inside its trace group when the replay is traced (``replay.trace_groups``):
        the group of the step that failed holds a group titled with the failure's code."""
        if self.groups is None:
            await self._step(action, frame, dialog, upcoming)
            return
        hidden = self.options.hidden
        title = step_title(action, sensitive=self._sensitive, hidden=hidden, iteration=frame.iteration)
        async with step_group(self.groups, title):
            try:
                await self._step(action, frame, dialog, upcoming)
            except SkillreelError as exc:
                if exc.action_id == action.id:  # not a step inside this block: that one is marked
                    await mark_failed(self.groups, action.id, exc.code)
                raise

    async def _step(
        self,
        action: Action,
        frame: Frame,
        dialog: DialogAction | None,
        upcoming: Upcoming | None,
    ) -> None:
        index = self._context.index.get(action.id, 0)
        self._executed += 1
        if self._executed > MAX_STEP_RUNS:
            raise ReplayError(
                "SR_REPLAY_STEP_BUDGET",
                f"step {action.id}: the replay would run more than {MAX_STEP_RUNS:,} steps",
                action_id=action.id,
            )
        self._tell(action, index, "start", frame)
        step = StepState(action, self.clock() + self.options.timeout_ms / 1000, frame, upcoming=upcoming)
        step.presence_only = bool(getattr(action, "optional", False)) and action.kind in _ACTS_ON_TARGET
        skipped_rest = False
        retries = 0
        try:
            try:
                if dialog is not None:
                    answer = self._context.inputs.text(dialog.text, frame)
                    await arm_dialog(self.driver, action, dialog, answer)
                retries = await self._handle(action, step)
            except Absent:
                step.facts = {"skipped": ev.marker_digest("skipped", action.id)}
            except SkipRest:
                skipped_rest = True
            finally:
                if self.failed is None:  # a step inside a block that failed is the one reported
                    self.failed = FailedStep(action.id, action.kind, step.acted, step.healed)
                await self.driver.release()
            self._check_network(step)
            evidence = ev.build_evidence(action.id, action.kind, step.healed, step.facts)
        except SkillreelError as exc:
            if dialog is not None:
                await self.driver.disarm_dialog()
            error = self._network_error(step) or exc
            (await self.driver.condition(measured=False)).stamp(error)  # a 500, a 404: said
            if error.action_id is None:
                error.action_id = action.id
            self._tell(action, index, "failed", frame, code=error.code)
            if error is exc:
                raise
            raise error from exc
        self.failed = None
        self._record(action, evidence, step, retries)
        phase = "skipped" if "skipped" in step.facts else "done"
        self._tell(action, index, phase, frame, healed=step.healed)
        if skipped_rest:
            raise SkipRest

    async def _handle(self, action: Action, step: StepState) -> int:
        """Run the step's handler; a step with ``retry`` that fails (or, with ``onFail: "skip"``,
        does not hold) runs again after its interval, with a fresh deadline, at most ``times``
        more times. Returns how many times it ran again."""
        handle = handler_for(action.kind)
        retry = getattr(action, "retry", None)
        tries = 0
        while True:
            try:
                await handle(StepContext(self._context, step), action)
                return tries
            except (SkillreelError, SkipRest) as exc:
                if retry is None or tries >= retry.times or getattr(exc, "code", None) in _FINAL:
                    raise
            tries += 1
            await self.driver.release()
            await self.sleep(retry.interval_ms / 1000)
            step.deadline = self.clock() + self.options.timeout_ms / 1000
            step.facts.clear()

    def _record(self, action: Action, evidence: Evidence, step: StepState, retries: int = 0) -> None:
        runs = self._runs.setdefault(action.id, _Runs(action.kind))
        runs.retries += retries
        runs.evidence.append(evidence)
        runs.healed = runs.healed or step.healed
        runs.acted = runs.acted or step.acted
        if runs.healed_bundle is None:
            runs.healed_bundle = step.healed_bundle
        runs.matched_rank = runs.matched_rank or step.matched_rank

    def _tell(
        self,
        action: Action,
        index: int,
        phase: str,
        frame: Frame,
        *,
        healed: bool = False,
        code: str | None = None,
    ) -> None:
        if self.progress is not None:
            self.progress(
                StepProgress(
                    index,
                    self._context.total,
                    action.id,
                    action.kind,
                    phase,  # type: ignore[arg-type]
                    healed=healed,
                    code=code,
                    iteration=frame.iteration,
                )
            )

    # ---- network ---------------------------------------------------------------------------------

    def _network_error(self, step: StepState) -> SkillreelError | None:
        """The refusals since the last check (and start the next interval)."""
        origins = self.driver.network_denied_since(self._mark)
        self._mark = self.driver.network_mark()
        if not origins:
            return None
        # The origins are not named: a page chooses them, and a hostile one can encode a typed or
        # vault value into a host name to carry it into this error (and over MCP to a model).
        code, why = (
            (  # an allowlisted name that led to a local address (DNS rebinding)
                "SR_REPLAY_UI_NETWORK_ADDRESS_REFUSED",
                "an allowlisted host name resolved to a loopback, private, link-local or metadata "
                "address; the proxy connected nowhere",
            )
            if address_refused(origins)
            else (
                "SR_REPLAY_UI_NETWORK_DENIED",
                f"the page requested {len(origins)} origin(s) outside the allowlist; nothing was "
                "sent (record again to see which)",
            )
        )
        return ReplayUIError(
            code,
            f"step {step.action.id}: {why}",
            action_id=step.action.id,
            details={"deniedOriginCount": len(origins)},
        )

    def _check_network(self, step: StepState) -> None:
        error = self._network_error(step)
        if error is not None:
            raise error
