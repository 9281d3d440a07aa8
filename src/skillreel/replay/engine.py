"""The replay engine: an async step loop over a small :class:`Driver` protocol.

Steps run serially, blocks (``loop``, ``branch``) recursively. Each step: resolve its target
(``replay.resolving``: ``locate.heal.decide`` over the driver's in-page probe, polling until the
step's deadline), act, settle (on events: ``replay/settling.py``), summarise the page (measuring
ahead for the next step of the same list, :meth:`ReplayEngine._first_target`), check the network
ledger (any refused request during the step fails it with ``SR_REPLAY_UI_NETWORK_DENIED``, without
naming origins), and collect digest-only evidence (:mod:`skillreel.replay.evidence`). The first
failure stops the run with a :class:`~skillreel.errors.SkillreelError` naming the step id; nothing
else about the page or the inputs reaches the error. The schema v2 kinds (extract, wait, scroll,
dialog, loop, branch), data flow and outputs are in :mod:`skillreel.replay.flow`.

* An ``optional`` step whose target is not on the page is skipped (evidence ``skipped``).
* A click, type, select or key press whose element the page replaced before any input reached it
  (a re-render; the driver raises :class:`TargetReplaced`, nothing done) locates its target again
  and acts on what it finds then, at most ``MAX_REPLACED`` times (``SR_REPLAY_UI_TARGET_REPLACED``).
* A typed or chosen value is verified in the field; when the page swapped the field after the input
  reached it, in the field found again exactly as recorded (``_holds``).
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
from typing import Final, TypeVar

from ..errors import ReplayError, ReplayUIError, SkillreelError
from ..model.actions import (
    Action,
    AssertAction,
    BranchAction,
    ClickAction,
    DialogAction,
    ExtractAction,
    HumanAction,
    LoopAction,
    NavigateAction,
    ObserveAction,
    PressAction,
    ScrollAction,
    SelectAction,
    TypeAction,
    WaitAction,
    walk,
)
from ..model.canonical import tagged_digest
from ..model.draft import Parameter
from ..model.limits import MAX_STEP_RUNS
from ..model.locators import LocatorBundle
from ..model.refs import ParameterRef
from ..model.report import Evidence
from ..model.values import values_text
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
    TargetReplaced,
    Upcoming,
)
from .flow import FlowSteps, url_matches
from .resolving import HEAL_CONFIRM_S, POLL_FIRST_S, POLL_MAX_S

__all__ = [
    "HEAL_CONFIRM_S",
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

# How many times one step locates its target again after the page replaced it before the action
# reached it (a re-render: nothing was done), within the step's deadline.
MAX_REPLACED: Final = 5
_T = TypeVar("_T")

_ACTS_ON_TARGET = (
    ClickAction,
    TypeAction,
    SelectAction,
    PressAction,
    ObserveAction,
    ExtractAction,
    ScrollAction,
)


@dataclass
class _Runs:
    """Every run of one step: evidence digests in order, and the first healed bundle."""

    kind: str
    evidence: list[Evidence] = field(default_factory=list)
    healed: bool = False
    healed_bundle: LocatorBundle | None = None
    acted: bool = False

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
        )


class ReplayEngine(FlowSteps):
    def __init__(
        self,
        driver: Driver,
        options: EngineOptions,
        *,
        human: HumanPrompt | None = None,
        progress: Progress | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        super().__init__(driver, options, clock=clock, sleep=sleep)
        self.human = human
        self.progress = progress
        self.outputs: dict[str, object] = {}
        self._runs: dict[str, _Runs] = {}
        self._index: dict[str, int] = {}
        self._total = 0
        self._executed = 0
        self._mark = 0
        self.failed: FailedStep | None = None  # the step the last run stopped at (failure or cancellation)

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
        self.values = values
        self.params = {p.name: p for p in parameters}
        self.labels = labels
        everything = list(walk(actions))
        self._index = {a.id: i for i, a in enumerate(everything)}
        self._total = len(everything)
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

    def _first_target(
        self, action: Action | None, frame: Frame | None, *, in_item: bool = False
    ) -> LocatorBundle | None:
        """The target ``action`` (the next step of the same list) probes before anything else, for
        the current step's page summary to measure ahead (the driver serves that measurement only
        to a probe of the same bundle in the same scope on an unchanged page).

        None when the next step starts otherwise, or when measuring ahead would measure the wrong
        thing: a block (its first step depends on the page), a target chosen by a text filter
        (found by ``choose``, not a probe), a target inside the loop item (probed in the item's
        scope; allowed with ``in_item``, where the measurement is taken inside the next item), a
        type or select step whose value is missing (it is skipped; without ``frame``, the item's
        values are not known yet: never measured ahead). A target with accepted identities is first
        probed against its newest fingerprint alone, so that is what is measured ahead. What runs
        after the end of a list is the caller's ``then`` (:meth:`_run_block`)."""
        target: LocatorBundle | None = None
        if isinstance(action, ClickAction | PressAction):
            target = action.target
        elif isinstance(action, TypeAction | SelectAction) and frame is not None:
            target = action.target if self._text(action.value, frame) is not None else None
        elif isinstance(action, ExtractAction) and action.read in ("text", "value", "attribute"):
            target = action.target
        if target is None or target.filter is not None or (target.within is not None and not in_item):
            return None
        return target.measured_as(target.fingerprint) if target.identities else target

    async def _run_step(
        self,
        action: Action,
        frame: Frame,
        dialog: DialogAction | None = None,
        upcoming: Upcoming | None = None,
    ) -> None:
        index = self._index.get(action.id, 0)
        self._executed += 1
        if self._executed > MAX_STEP_RUNS:
            raise ReplayError(
                "SR_REPLAY_STEP_BUDGET",
                f"step {action.id}: the replay would run more than {MAX_STEP_RUNS:,} steps",
                action_id=action.id,
            )
        self._tell(action, index, "start", frame)
        step = StepState(action, self.clock() + self.options.timeout_ms / 1000, frame, upcoming=upcoming)
        step.presence_only = bool(getattr(action, "optional", False)) and isinstance(action, _ACTS_ON_TARGET)
        skipped_rest = False
        try:
            try:
                if dialog is not None:
                    await self._arm(action, dialog, frame)
                await self._dispatch(step)
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
            if error.action_id is None:
                error.action_id = action.id
            self._tell(action, index, "failed", frame, code=error.code)
            if error is exc:
                raise
            raise error from exc
        self.failed = None
        self._record(action, evidence, step)
        phase = "skipped" if "skipped" in step.facts else "done"
        self._tell(action, index, phase, frame, healed=step.healed)
        if skipped_rest:
            raise SkipRest

    def _record(self, action: Action, evidence: Evidence, step: StepState) -> None:
        runs = self._runs.setdefault(action.id, _Runs(action.kind))
        runs.evidence.append(evidence)
        runs.healed = runs.healed or step.healed
        runs.acted = runs.acted or step.acted
        if runs.healed_bundle is None:
            runs.healed_bundle = step.healed_bundle

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
                    self._total,
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
        return ReplayUIError(
            "SR_REPLAY_UI_NETWORK_DENIED",
            f"step {step.action.id}: the page requested {len(origins)} origin(s) outside "
            "the allowlist; nothing was sent (record again to see which)",
            action_id=step.action.id,
            details={"deniedOriginCount": len(origins)},
        )

    def _check_network(self, step: StepState) -> None:
        error = self._network_error(step)
        if error is not None:
            raise error

    # ---- dispatch by kind ------------------------------------------------------------------------

    async def _dispatch(self, step: StepState) -> None:
        a = step.action
        if isinstance(a, NavigateAction):
            await self._navigate(step, a)
        elif isinstance(a, ClickAction):
            await self._act_on(
                step, a.target, lambda p: self.driver.click(p, timeout_ms=self._remaining_ms(step))
            )
            await self._after(step)
        elif isinstance(a, TypeAction | SelectAction):
            await self._set_value(step, a)
        elif isinstance(a, PressAction):
            if a.target is None:
                step.acted = True
                await self.driver.press(None, a.key, timeout_ms=self._remaining_ms(step))
            else:
                await self._act_on(
                    step, a.target, lambda p: self.driver.press(p, a.key, timeout_ms=self._remaining_ms(step))
                )
            await self._after(step)
        elif isinstance(a, ObserveAction):
            await self._observe(step, a)
        elif isinstance(a, AssertAction):
            await self._assert(step, a)
        elif isinstance(a, HumanAction):
            await self._human(step, a)
        elif isinstance(a, ExtractAction):
            await self._extract(step, a)
        elif isinstance(a, WaitAction):
            await self._wait(step, a)
        elif isinstance(a, ScrollAction):
            await self._scroll(step, a)
        elif isinstance(a, DialogAction):
            await self._dialog(step, a)
        elif isinstance(a, LoopAction):
            await self._loop(step, a)
        elif isinstance(a, BranchAction):
            await self._branch(step, a)

    async def _act_on(
        self, step: StepState, bundle: LocatorBundle, act: Callable[[Picked], Awaitable[_T]]
    ) -> _T:
        """Locate ``bundle`` and act on the element chosen. When the page replaced that element
        before any input reached it (:class:`TargetReplaced`: nothing was done; a re-render), the
        target is located again and the action made on the element found then: at most
        :data:`MAX_REPLACED` times, within the step's deadline."""
        replaced = 0
        while True:
            picked = await self._locate(step, bundle)
            acted, step.acted = step.acted, True
            try:
                return await act(picked)
            except TargetReplaced:
                step.acted = acted
                replaced += 1
                if replaced > MAX_REPLACED or self.clock() >= step.deadline:
                    raise ReplayUIError(
                        "SR_REPLAY_UI_TARGET_REPLACED",
                        f"step {step.action.id} ({step.action.kind}): the page replaced the target "
                        f"{replaced} times before the action reached it; nothing was done there",
                        action_id=step.action.id,
                    ) from None

    async def _after(self, step: StepState, *, verify: str | None = None) -> ev.PageSummary:
        """Settle, then summarise the page (the driver removes the step's mark in that call, and
        measures the page for the next step's target in it too: the two are pipelined)."""
        await self.driver.settle(self.options.settle_ms, timeout_ms=self._remaining_ms(step))
        summary = await self.driver.page_state(
            salt=self.options.salt, text=False, verify=verify, prefetch=step.upcoming
        )
        step.facts["afterState"] = ev.state_digest(summary)
        return summary

    async def _navigate(self, step: StepState, a: NavigateAction) -> None:
        timeout = self._remaining_ms(step)
        if a.reason == "start":
            await self.driver.start(timeout_ms=timeout)
        elif a.reason == "reload":
            step.acted = True
            await self.driver.reload(timeout_ms=timeout)
        else:
            step.acted = True
            await self.driver.goto(a.url, timeout_ms=timeout)
        await self.driver.settle(self.options.settle_ms, timeout_ms=self._remaining_ms(step))
        step.facts["url"] = ev.url_digest(await self.driver.current_url())

    async def _set_value(self, step: StepState, a: TypeAction | SelectAction) -> None:
        value = self._text(a.value, step.frame)
        if value is None:  # an optional input nobody gave (or an absent field): the field is left as it is
            step.facts["skipped"] = ev.marker_digest("skipped", a.id)
            return
        if isinstance(a, TypeAction):
            fact = "valueCheck"
            typed = value
            await self._act_on(
                step, a.target, lambda p: self.driver.fill(p, typed, timeout_ms=self._remaining_ms(step))
            )
        else:
            fact = "selectedCheck"
            wanted = value
            value = await self._act_on(step, a.target, lambda p: self._select(step, a, p, wanted))
        # verified once the page has settled: the field must still hold exactly the input
        verified = (await self._after(step, verify=value)).verified
        if verified is None:  # the page swapped the field once the input had reached it
            verified = await self._holds(step, a.target, value)
        if verified is not True:
            raise ReplayUIError(
                "SR_REPLAY_UI_ACTION_FAILED",
                f"step {a.id} ({a.kind}): the field does not hold the input",
                action_id=a.id,
            )
        step.facts[fact] = ev.check_digest(fact, step.facts["target"])

    async def _holds(self, step: StepState, bundle: LocatorBundle, value: str) -> bool:
        """Whether the field found again now holds ``value``: the page swapped the field it was
        typed into (or chosen in) for another once the input had reached it (a form re-rendered
        from the server's answer). One measurement, no healing and no filter: only a field its
        ranked locator finds exactly counts, and nothing about the step changes."""
        if bundle.filter is not None:
            return False
        within = step.frame.item if bundle.within == "item" else None
        probe, decision = await self._measure(bundle, within)
        if not decision.accepted or decision.healed or decision.element is None:
            return False
        picked = await self.driver.pick(probe, decision.element, salt=self.options.salt, describe=False)
        if picked is None:
            return False
        try:
            return await self.driver.check(picked, "value_equals", value)
        finally:
            await self.driver.release()

    async def _select(self, step: StepState, a: SelectAction, picked: Picked, value: str) -> str:
        """The option chosen: by value, or (an enum input given as the option's visible label, as
        pre-flight allowed) by label, which must lead to one of the parameter's allowed values."""
        param = self.params.get(a.value.name) if isinstance(a.value, ParameterRef) else None
        by_label = param is not None and param.name in self.labels
        chosen = await self.driver.select(
            picked,
            value,
            timeout_ms=self._remaining_ms(step),
            by_label=by_label,
            allowed=param.values if param is not None else None,  # nothing else is ever chosen
        )
        if (
            param is not None
            and param.values is not None
            and chosen is not None
            and chosen not in param.values
        ):
            chosen = None
        if chosen is None and param is not None and param.values is not None:
            raise ReplayError(
                "SR_REPLAY_PARAMETER_INVALID",
                f"step {a.id} (select): parameter {param.name!r} expects one of {values_text(param.values)} "
                "(an option's value, or its visible label)",
                action_id=a.id,
            )
        if chosen is None:
            raise ReplayUIError(
                "SR_REPLAY_UI_ACTION_FAILED",
                f"step {a.id} (select): no enabled option has the input's value",
                action_id=a.id,
            )
        return chosen

    async def _observe(self, step: StepState, a: ObserveAction) -> None:
        before = await self.driver.page_state(salt=self.options.salt, text=False)
        step.facts["before"] = ev.state_digest(before)
        await self._locate(step, a.target)
        await self.driver.release()
        summary = await self.driver.page_state(salt=self.options.salt, text=True)
        step.facts["after"] = ev.state_digest(summary)
        step.facts["page"] = ev.text_digest(summary)
        png = await self.driver.screenshot(timeout_ms=self._remaining_ms(step))
        step.facts["screenshot"] = ev.screenshot_digest(png)

    async def _human(self, step: StepState, a: HumanAction) -> None:
        index, total = self._index[a.id], self._total
        if self.human is None:
            raise ReplayError(
                "SR_REPLAY_HUMAN_REQUIRED",
                f"step {a.id} needs a person ({a.reason}) and nobody can answer",
                action_id=a.id,
            )
        step.acted = True  # a person may act in the browser from here on
        if not await self.human(HumanRequest(index, total, a.id, a.reason)):
            raise ReplayError(
                "SR_REPLAY_HUMAN_REQUIRED", f"step {a.id}: the person did not finish it", action_id=a.id
            )
        step.facts["human"] = ev.marker_digest("human", a.id)
        await self._after(step)

    # ---- assertions ------------------------------------------------------------------------------

    async def _assert(self, step: StepState, a: AssertAction) -> None:
        delay = POLL_FIRST_S
        while True:
            try:
                held = await self._assert_once(step, a)
            except ReplayUIError as exc:  # the target is not there: with onFail skip, it did not hold
                if a.on_fail != "skip" or exc.code != "SR_REPLAY_UI_TARGET_NOT_FOUND":
                    raise
                held = False
                step.deadline = self.clock()
            if held:
                step.facts["check"] = ev.check_digest(a.check, step.facts.get("target"))
                return
            await self.driver.release()
            if self.clock() >= step.deadline:
                if a.on_fail == "skip":
                    step.facts["skippedRest"] = ev.marker_digest("skipped-rest", a.id)
                    raise SkipRest
                raise ReplayUIError(
                    "SR_REPLAY_UI_ASSERTION_FAILED",
                    f"step {a.id}: the {a.check} assertion did not hold",
                    action_id=a.id,
                )
            await self.sleep(delay)
            delay = min(delay * 2, POLL_MAX_S)

    async def _assert_once(self, step: StepState, a: AssertAction) -> bool:
        if a.check == "url_matches":
            return url_matches(await self.driver.current_url(), a.expected, self.options.url_rule)
        if a.target is None:
            raise ReplayError(
                "SR_REPLAY_SCHEMA_INVALID", f"step {a.id}: the assertion has no target", action_id=a.id
            )
        if a.check == "count":
            return await self.driver.count(a.target.candidates[0], salt=self.options.salt) == a.expected
        picked = await self._locate(step, a.target)
        return a.check == "visible" or await self.driver.check(picked, a.check, a.expected)
