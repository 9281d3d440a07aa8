"""The replay engine: an async step loop over a small :class:`Driver` protocol.

Steps run serially. Each one: resolve its target (``locate.heal.decide`` over the driver's
in-page probe, polling until the step's deadline), act, settle, check the network ledger (any
refused request during the step fails it with ``SR_REPLAY_UI_NETWORK_DENIED``, naming origins
only), and collect digest-only evidence (:mod:`skillreel.replay.evidence`). The first failure
stops the run with a :class:`~skillreel.errors.SkillreelError` naming the action id; nothing else
about the page or the inputs reaches the error.

``PlaywrightDriver`` (``replay/driver.py``) drives Chromium; ``FakeDriver`` (``replay/fake.py``)
is an in-memory page for fast tests of this loop. Time is injected (``clock``, ``sleep``) so tests
need no real waiting.
"""

from __future__ import annotations

import asyncio
import fnmatch
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from ..errors import ReplayError, ReplayUIError, SkillreelError
from ..locate import heal
from ..model.actions import (
    Action,
    AssertAction,
    ClickAction,
    HumanAction,
    NavigateAction,
    ObserveAction,
    PressAction,
    SelectAction,
    TypeAction,
)
from ..model.locators import Fingerprint, LocatorBundle, LocatorCandidate
from ..model.refs import ParameterRef
from ..model.report import Evidence
from ..model.urls import URLRuleError, normalise_target_url
from . import evidence as ev

HEAL_CONFIRM_S = 0.1  # a healed choice must survive a second probe this much later
POLL_FIRST_S = 0.05
POLL_MAX_S = 0.25


# ---- the driver protocol -----------------------------------------------------------------------


@dataclass(frozen=True)
class Picked:
    """The element a step acts on, marked in the page; its fingerprint as it is now, and (when
    the step healed) its fresh locator candidates for the heal proposal."""

    token: str
    fingerprint: Fingerprint
    candidates: tuple[LocatorCandidate, ...] | None = None


class Driver(Protocol):
    """What the engine needs from a browser. Errors are ``SkillreelError``s, already translated."""

    async def start(self, *, timeout_ms: int) -> None: ...
    async def goto(self, url: str, *, timeout_ms: int) -> None: ...
    async def reload(self, *, timeout_ms: int) -> None: ...
    async def current_url(self) -> str: ...
    async def probe(self, bundle: LocatorBundle, *, salt: str) -> heal.Probe: ...
    async def pick(self, probe: heal.Probe, element: int, *, salt: str, describe: bool) -> Picked | None: ...
    async def release(self) -> None: ...
    async def click(self, picked: Picked, *, timeout_ms: int) -> None: ...
    async def fill(self, picked: Picked, value: str, *, timeout_ms: int) -> None: ...
    async def select(self, picked: Picked, value: str, *, timeout_ms: int) -> bool:
        """Choose the option with exactly this value; False when no enabled option has it."""
        ...

    async def press(self, picked: Picked | None, key: str, *, timeout_ms: int) -> None: ...
    async def check(self, picked: Picked, check: str, expected: str | int | None) -> bool: ...
    async def count(self, candidate: LocatorCandidate) -> int: ...
    async def page_state(self, *, salt: str, text: bool, verify: str | None = None) -> ev.PageSummary:
        """A content-free summary of the page; also removes any mark :meth:`pick` left. With
        ``verify``, first checks that the marked field's value equals it (``PageSummary.verified``)."""
        ...

    async def screenshot(self, *, timeout_ms: int) -> bytes: ...
    async def settle(self, settle_ms: int, *, timeout_ms: int) -> None: ...
    def network_mark(self) -> int: ...
    def network_denied_since(self, mark: int) -> tuple[str, ...]: ...


# ---- what the engine reports ---------------------------------------------------------------------


@dataclass(frozen=True)
class StepProgress:
    index: int
    total: int
    action_id: str
    kind: str
    phase: Literal["start", "done", "failed"]
    healed: bool = False
    code: str | None = None


@dataclass(frozen=True)
class HumanRequest:
    """A step only a person can do; the prompt returns True once it is done, False to give up."""

    index: int
    total: int
    action_id: str
    reason: str


HumanPrompt = Callable[[HumanRequest], Awaitable[bool]]
Progress = Callable[[StepProgress], None]


@dataclass(frozen=True)
class StepRecord:
    action_id: str
    evidence: Evidence
    healed: bool = False
    healed_bundle: LocatorBundle | None = None


@dataclass(frozen=True)
class EngineOptions:
    salt: str
    allow_heal: bool = True
    timeout_ms: int = 10_000
    settle_ms: int = 100


@dataclass
class _Step:
    """Per-step working state: deadline, facts collected so far, the healing outcome."""

    action: Action
    deadline: float
    facts: dict[str, str] = field(default_factory=dict)
    healed: bool = False
    healed_bundle: LocatorBundle | None = None


class ReplayEngine:
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
        self.driver = driver
        self.options = options
        self.human = human
        self.progress = progress
        self.clock = clock
        self.sleep = sleep
        self.completed: list[StepRecord] = []  # the steps of the last run that finished, even if one failed
        self._mark = 0

    async def run(self, actions: Sequence[Action], values: Mapping[str, str]) -> tuple[StepRecord, ...]:
        """Replay every action in order; raise the first step's failure (with its action id).
        :attr:`completed` holds the steps that finished, also after a failure.

        Network refusals are counted over contiguous intervals: each step's check covers
        everything since the previous step's check (the first also covers loading the start page
        when the skill does not begin with one), so no refusal falls between two steps."""
        self.completed = []
        self._mark = self.driver.network_mark()
        if not actions or not (isinstance(actions[0], NavigateAction) and actions[0].reason == "start"):
            await self.driver.start(timeout_ms=self.options.timeout_ms)
        for index, action in enumerate(actions):
            self.completed.append(await self._run_step(index, len(actions), action, values))
        return tuple(self.completed)

    async def _run_step(
        self, index: int, total: int, action: Action, values: Mapping[str, str]
    ) -> StepRecord:
        self._tell(StepProgress(index, total, action.id, action.kind, "start"))
        step = _Step(action, self.clock() + self.options.timeout_ms / 1000)
        try:
            try:
                await self._dispatch(step, values, index, total)
            finally:
                await self.driver.release()
            self._check_network(step)
            evidence = ev.build_evidence(action.id, action.kind, step.healed, step.facts)
        except SkillreelError as exc:
            error = self._network_error(step) or exc
            if error.action_id is None:
                error.action_id = action.id
            self._tell(StepProgress(index, total, action.id, action.kind, "failed", code=error.code))
            if error is exc:
                raise
            raise error from exc
        self._tell(StepProgress(index, total, action.id, action.kind, "done", healed=step.healed))
        return StepRecord(action.id, evidence, step.healed, step.healed_bundle)

    def _tell(self, progress: StepProgress) -> None:
        if self.progress is not None:
            self.progress(progress)

    def _remaining_ms(self, step: _Step) -> int:
        return max(1, int((step.deadline - self.clock()) * 1000))

    # ---- network ---------------------------------------------------------------------------------

    def _network_error(self, step: _Step) -> SkillreelError | None:
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

    def _check_network(self, step: _Step) -> None:
        error = self._network_error(step)
        if error is not None:
            raise error

    # ---- dispatch by kind ------------------------------------------------------------------------

    async def _dispatch(self, step: _Step, values: Mapping[str, str], index: int, total: int) -> None:
        a = step.action
        if isinstance(a, NavigateAction):
            await self._navigate(step, a)
        elif isinstance(a, ClickAction):
            picked = await self._locate(step, a.target)
            await self.driver.click(picked, timeout_ms=self._remaining_ms(step))
            await self._after(step)
        elif isinstance(a, TypeAction | SelectAction):
            await self._set_value(
                step, a, values.get(a.value.name) if isinstance(a.value, ParameterRef) else None
            )
        elif isinstance(a, PressAction):
            target = await self._locate(step, a.target) if a.target is not None else None
            await self.driver.press(target, a.key, timeout_ms=self._remaining_ms(step))
            await self._after(step)
        elif isinstance(a, ObserveAction):
            await self._observe(step, a)
        elif isinstance(a, AssertAction):
            await self._assert(step, a)
        elif isinstance(a, HumanAction):
            await self._human(step, a, index, total)

    async def _after(self, step: _Step, *, verify: str | None = None) -> ev.PageSummary:
        """Settle, then summarise the page (the driver removes the step's mark in that call)."""
        await self.driver.settle(self.options.settle_ms, timeout_ms=self._remaining_ms(step))
        summary = await self.driver.page_state(salt=self.options.salt, text=False, verify=verify)
        step.facts["afterState"] = ev.state_digest(summary)
        return summary

    async def _navigate(self, step: _Step, a: NavigateAction) -> None:
        timeout = self._remaining_ms(step)
        if a.reason == "start":
            await self.driver.start(timeout_ms=timeout)
        elif a.reason == "reload":
            await self.driver.reload(timeout_ms=timeout)
        else:
            await self.driver.goto(a.url, timeout_ms=timeout)
        await self.driver.settle(self.options.settle_ms, timeout_ms=self._remaining_ms(step))
        step.facts["url"] = ev.url_digest(await self.driver.current_url())

    async def _set_value(self, step: _Step, a: TypeAction | SelectAction, value: str | None) -> None:
        if value is None:  # an optional parameter nobody gave: the field is left as it is
            step.facts["skipped"] = ev.marker_digest("skipped", a.id)
            return
        picked = await self._locate(step, a.target)
        timeout = self._remaining_ms(step)
        if isinstance(a, TypeAction):
            fact = "valueCheck"
            await self.driver.fill(picked, value, timeout_ms=timeout)
        else:
            fact = "selectedCheck"
            if not await self.driver.select(picked, value, timeout_ms=timeout):
                raise ReplayUIError(
                    "SR_REPLAY_UI_ACTION_FAILED",
                    f"step {a.id} (select): no enabled option has the input's value",
                    action_id=a.id,
                )
        # verified once the page has settled: the field must still hold exactly the input
        if (await self._after(step, verify=value)).verified is not True:
            raise ReplayUIError(
                "SR_REPLAY_UI_ACTION_FAILED",
                f"step {a.id} ({a.kind}): the field does not hold the input",
                action_id=a.id,
            )
        step.facts[fact] = ev.check_digest(fact, step.facts["target"])

    async def _observe(self, step: _Step, a: ObserveAction) -> None:
        before = await self.driver.page_state(salt=self.options.salt, text=False)
        step.facts["before"] = ev.state_digest(before)
        await self._locate(step, a.target)
        await self.driver.release()
        summary = await self.driver.page_state(salt=self.options.salt, text=True)
        step.facts["after"] = ev.state_digest(summary)
        step.facts["page"] = ev.text_digest(summary)
        png = await self.driver.screenshot(timeout_ms=self._remaining_ms(step))
        step.facts["screenshot"] = ev.screenshot_digest(png)

    async def _human(self, step: _Step, a: HumanAction, index: int, total: int) -> None:
        if self.human is None:
            raise ReplayError(
                "SR_REPLAY_HUMAN_REQUIRED",
                f"step {a.id} needs a person ({a.reason}) and nobody can answer",
                action_id=a.id,
            )
        if not await self.human(HumanRequest(index, total, a.id, a.reason)):
            raise ReplayError(
                "SR_REPLAY_HUMAN_REQUIRED", f"step {a.id}: the person did not finish it", action_id=a.id
            )
        step.facts["human"] = ev.marker_digest("human", a.id)
        await self._after(step)

    # ---- assertions ------------------------------------------------------------------------------

    async def _assert(self, step: _Step, a: AssertAction) -> None:
        delay = POLL_FIRST_S
        while True:
            if await self._assert_once(step, a):
                step.facts["check"] = ev.check_digest(a.check, step.facts.get("target"))
                return
            await self.driver.release()
            if self.clock() >= step.deadline:
                raise ReplayUIError(
                    "SR_REPLAY_UI_ASSERTION_FAILED",
                    f"step {a.id}: the {a.check} assertion did not hold",
                    action_id=a.id,
                )
            await self.sleep(delay)
            delay = min(delay * 2, POLL_MAX_S)

    async def _assert_once(self, step: _Step, a: AssertAction) -> bool:
        if a.check == "url_matches":
            return url_matches(await self.driver.current_url(), a.expected)
        if a.target is None:
            raise ReplayError(
                "SR_REPLAY_SCHEMA_INVALID", f"step {a.id}: the assertion has no target", action_id=a.id
            )
        if a.check == "count":
            return await self.driver.count(a.target.candidates[0]) == a.expected
        picked = await self._locate(step, a.target)
        return a.check == "visible" or await self.driver.check(picked, a.check, a.expected)

    # ---- resolution ------------------------------------------------------------------------------

    async def _locate(self, step: _Step, bundle: LocatorBundle) -> Picked:
        """Probe until the rule accepts an element (a healed one twice in a row) or time runs out."""
        salt = self.options.salt
        delay = POLL_FIRST_S
        last = heal.Resolution("not-found", reason="the page was not measured")
        confirm: tuple[float, heal.Comparison] | None = None
        overtime = False
        while True:
            probe = await self.driver.probe(bundle, salt=salt)
            decision = heal.decide(bundle.fingerprint, probe, allow_heal=self.options.allow_heal)
            picked = await self._accept(step, probe, decision, confirm)
            if isinstance(picked, Picked):
                return picked
            confirm = picked
            # accepted but not yet usable: a heal awaiting confirmation, or an element that went
            # away before it was marked
            last = (
                decision
                if not decision.accepted
                else heal.Resolution(
                    "not-found", reason="the page kept changing while the target was located"
                )
            )
            if self.clock() >= step.deadline:
                if confirm is None or overtime:
                    raise self._resolution_error(step, last)
                overtime = True  # one more probe to confirm a heal found just before the deadline
            await self.sleep(HEAL_CONFIRM_S if confirm is not None else delay)
            delay = min(delay * 2, POLL_MAX_S)

    async def _accept(
        self,
        step: _Step,
        probe: heal.Probe,
        decision: heal.Resolution,
        confirm: tuple[float, heal.Comparison] | None,
    ) -> Picked | tuple[float, heal.Comparison] | None:
        """The picked element, or the healed signature still waiting for confirmation, or None."""
        if not decision.accepted or decision.element is None:
            return None
        if decision.healed:
            signature = (decision.score, probe.observed[decision.element].comparison)
            if confirm != signature:
                return signature
        picked = await self.driver.pick(
            probe, decision.element, salt=self.options.salt, describe=decision.healed
        )
        if picked is None:  # it went away between the probe and the pick: measure again
            return None
        step.facts["target"] = ev.target_digest(picked.fingerprint)
        if decision.healed:
            step.healed = True
            if picked.candidates:
                step.healed_bundle = LocatorBundle(
                    candidates=picked.candidates, fingerprint=picked.fingerprint
                )
        return picked

    def _resolution_error(self, step: _Step, decision: heal.Resolution) -> SkillreelError:
        a = step.action
        if decision.outcome == "ambiguous":
            return ReplayUIError(
                "SR_REPLAY_UI_TARGET_AMBIGUOUS",
                f"step {a.id} ({a.kind}): several elements match the target equally well; nothing was done",
                action_id=a.id,
            )
        return ReplayUIError(
            "SR_REPLAY_UI_TARGET_NOT_FOUND",
            f"step {a.id} ({a.kind}): no element matches the target ({decision.reason})",
            action_id=a.id,
        )


def url_matches(url: str, expected: str | int | None) -> bool:
    """``url_matches``: the normalised page URL equals ``expected`` (a full URL, or a path with
    query when it starts with ``/``); ``*`` in ``expected`` matches any run of characters."""
    if not isinstance(expected, str) or not expected:
        return False
    try:
        normal = normalise_target_url(url)
    except URLRuleError:
        return False
    subject = normal
    if expected.startswith("/"):
        subject = "/" + normal.partition("://")[2].partition("/")[2]
    if "*" in expected:
        return fnmatch.fnmatchcase(subject, expected.replace("[", "[[]").replace("?", "[?]"))
    return subject == expected
