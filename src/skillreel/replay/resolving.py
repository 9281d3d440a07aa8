"""Finding a step's element (ARCHITECTURE section 5): the part of the replay engine that polls the
driver's in-page probe and applies ``locate.heal.decide`` until the step's deadline.

* A plain target: the rule accepts an element (a healed one only when a second probe 100 ms later
  agrees) or the step fails closed (``SR_REPLAY_UI_TARGET_NOT_FOUND`` / ``_AMBIGUOUS``). A target
  an adopted heal merged keeps earlier fingerprints as accepted identities: each is tried, without
  healing, before the newest one heals (:meth:`Resolver.measure`).
* A target inside the current loop item (``within: "item"``): the same, measured inside the item.
* A target chosen by a whole-token text filter: the driver finds the set the candidates designate
  and keeps the elements whose text holds the value (``token``: the caller resolves the filter's
  value where the step runs); exactly one is acted on; none or several fail closed, nothing
  clicked (never "Order 10071" for 1007). When the set finds nothing (a restructured page), every
  element of the recorded role holding the value is the set (exactly one, or fail closed). A
  target in a row (``bundle.row``): the one row holding the value, then the element in it by
  role, name and position; two rows holding it: ambiguous, nothing clicked.
* An extraction, an assertion and a wait read by position (:data:`READS`): a look-alike that ties
  the element its ranked locator designates does not make it ambiguous (content-free targets
  cannot tell list items apart, nor a page's title ``h1`` from the site name's ``h1`` in its top
  bar). They never act on the element, and a check reads what it expects of the designated one.
* An optional step (:attr:`StepState.presence_only`) looks for its target for at most
  :data:`OPTIONAL_WAIT_S`; when it is not there the step is skipped (:class:`Absent`).

:class:`Resolver` is a collaborator of the engine and of the step handlers (``replay/steps/``),
built once per engine over its driver and options; it keeps no state between calls.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from ..errors import ReplayUIError, SkillreelError
from ..locate import heal
from ..locate.probe import Probe
from ..locate.similarity import Comparison
from ..model.actions import AssertAction, ExtractAction, WaitAction
from ..model.locators import LocatorBundle, in_row, structural, structure_only
from . import evidence as ev
from .driving import Absent, EngineOptions, Locating, Picked, Scope, StepState

HEAL_CONFIRM_S = 0.1  # a healed choice must survive a second probe this much later
POLL_FIRST_S = 0.05
POLL_MAX_S = 0.25
OPTIONAL_WAIT_S = 0.5  # how long an optional step looks for its target before it is skipped
READS = (ExtractAction, AssertAction, WaitAction)  # steps that read their target and never act on it


class Resolver:
    """Target resolution over a driver's :class:`Locating` role, with injected time (``clock``, ``sleep``)."""

    driver: Locating

    def __init__(
        self,
        driver: Locating,
        options: EngineOptions,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.driver = driver
        self.options = options
        self.clock = clock
        self.sleep = sleep

    def remaining_ms(self, step: StepState) -> int:
        return max(1, int((step.deadline - self.clock()) * 1000))

    async def locate(self, step: StepState, bundle: LocatorBundle, *, token: str | None = None) -> Picked:
        """Probe until the rule accepts an element (a healed one twice in a row) or time runs out;
        an optional step gives up early and is skipped (:class:`Absent`). ``token``: the value of
        the bundle's whole-token filter, where the step runs."""
        deadline = step.deadline
        if step.presence_only:
            deadline = min(deadline, self.clock() + OPTIONAL_WAIT_S)
        if bundle.filter is not None or bundle.row is not None:
            return await self._choose(step, bundle, deadline, token)
        within = step.frame.item if bundle.within == "item" else None
        delay = POLL_FIRST_S
        last = heal.Resolution("not-found", reason="the page was not measured")
        confirm: tuple[float, Comparison] | None = None
        overtime = False
        positional = isinstance(step.action, READS)  # a read or a check, never an action
        while True:
            probe, decision = await self.measure(bundle, within, positional=positional)
            picked = await self._accept(step, probe, decision, confirm)
            if isinstance(picked, Picked):
                if within is not None:  # a heal proposal rewrites page-level targets only
                    step.healed_bundle = None
                elif decision.outcome == "exact" and decision.rank:  # a lower locator found it
                    step.matched_rank = decision.rank
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
            if self.clock() >= deadline:
                if confirm is None or overtime:
                    if step.presence_only and last.outcome == "not-found":
                        raise Absent
                    raise await self._located_nothing(step, last)
                overtime = True  # one more probe to confirm a heal found just before the deadline
            await self.sleep(HEAL_CONFIRM_S if confirm is not None else delay)
            delay = min(delay * 2, POLL_MAX_S)

    async def _accept(
        self,
        step: StepState,
        probe: Probe,
        decision: heal.Resolution,
        confirm: tuple[float, Comparison] | None,
    ) -> Picked | tuple[float, Comparison] | None:
        """The picked element, or the healed signature still waiting for confirmation, or None."""
        if not decision.accepted or decision.element is None:
            return None
        if decision.healed:
            signature = (decision.score, probe.observed[decision.element].comparison)
            if confirm != signature:
                return signature
        picked = await self.driver.pick(
            probe,
            decision.element,
            salt=self.options.salt,
            describe=decision.healed,
            hide=self.options.hidden if decision.healed else (),
        )
        if picked is None:  # it went away between the probe and the pick: measure again
            return None
        step.facts["target"] = ev.target_digest(picked.fingerprint)
        if decision.healed:
            step.healed = True
            if picked.candidates:
                step.healed_bundle = _proposable(picked)
        return picked

    async def _choose(
        self, step: StepState, bundle: LocatorBundle, deadline: float, token: str | None
    ) -> Picked:
        """The element of the set whose text holds the filter's value as a whole token: exactly one,
        polled until ``deadline`` (a result list may still be loading), else fail closed."""
        a = step.action
        if not token or not token.strip():
            raise ReplayUIError(
                "SR_REPLAY_UI_TARGET_NOT_FOUND",
                f"step {a.id} ({a.kind}): the value that chooses the target is empty; nothing was done",
                action_id=a.id,
            )
        within = step.frame.item if bundle.within == "item" else None
        delay = POLL_FIRST_S
        while True:
            choice = await self.driver.choose(
                bundle, token, salt=self.options.salt, within=within, allow_heal=self.options.allow_heal
            )
            if choice.outcome == "one" and choice.picked is not None:
                step.facts["target"] = ev.target_digest(choice.picked.fingerprint)
                step.healed = step.healed or choice.healed
                if choice.healed and within is None:  # a proposal rewrites page-level targets only
                    step.healed_bundle = _proposable_in_set(bundle, choice.picked)
                return choice.picked
            if self.clock() >= deadline:
                if step.presence_only and choice.outcome == "none":
                    raise Absent
                if choice.outcome == "many":
                    raise ReplayUIError(
                        "SR_REPLAY_UI_TARGET_AMBIGUOUS",
                        f"step {a.id} ({a.kind}): several elements hold the value as a whole token; "
                        "nothing was done",
                        action_id=a.id,
                    )
                raise ReplayUIError(
                    "SR_REPLAY_UI_TARGET_NOT_FOUND",
                    f"step {a.id} ({a.kind}): no element holds the value as a whole token; nothing was done",
                    action_id=a.id,
                )
            await self.sleep(delay)
            delay = min(delay * 2, POLL_MAX_S)

    async def present(
        self, step: StepState, bundle: LocatorBundle, deadline: float, *, token: str | None = None
    ) -> bool:
        """Whether the target is on the page (looked for until ``deadline``); several equally good
        matches count as present. Nothing is marked. ``token`` as for :meth:`locate`."""
        within = step.frame.item if bundle.within == "item" else None
        delay = POLL_FIRST_S
        while True:
            if bundle.filter is not None or bundle.row is not None:
                choice = await self.driver.choose(
                    bundle,
                    token or "",
                    salt=self.options.salt,
                    within=within,
                    allow_heal=self.options.allow_heal,
                )
                await self.driver.release()
                if token and choice.outcome != "none":
                    return True
            else:
                _, decision = await self.measure(bundle, within)
                await self.driver.release()
                if decision.accepted or decision.outcome == "ambiguous":
                    return True
            if self.clock() >= deadline:
                return False
            await self.sleep(delay)
            delay = min(delay * 2, POLL_MAX_S)

    async def measure(
        self, bundle: LocatorBundle, within: Scope | None, *, positional: bool = False
    ) -> tuple[Probe, heal.Resolution]:
        """One measurement of the page (inside ``within``, the current loop item, when given) and
        the rule's verdict on it.

        A bundle with accepted identities (earlier fingerprints kept by adopted heals) is judged
        against each, newest first, without healing: the first whose ranked locator finds its
        element exactly wins; one whose located element has an equally good rival stops (nothing
        is clicked). Only when none finds it does healing start, against the newest fingerprint
        alone, on a fresh measurement (the last one is what ``pick`` reads): a heal never lands on
        an older identity's look-alike. Each measurement keeps the bundle's filter and item scope
        (:meth:`LocatorBundle.measured_as`). ``positional``: a read (:data:`READS`) takes the element its
        ranked locator designates even when a look-alike ties it (``heal`` rule 2).
        """
        allow_heal = self.options.allow_heal
        if not bundle.identities:
            probe = await self._probe(bundle, within)
            decision = heal.decide(bundle.fingerprint, probe, allow_heal=allow_heal, positional=positional)
            return probe, decision
        for fingerprint in bundle.accepted:
            probe = await self._probe(bundle.measured_as(fingerprint), within)
            decision = heal.decide(fingerprint, probe, allow_heal=False, positional=positional)
            if decision.outcome != "not-found":
                return probe, decision
        if not allow_heal:
            return probe, heal.Resolution("not-found", reason="no ranked locator agrees and healing is off")
        probe = await self._probe(bundle.measured_as(bundle.fingerprint), within)
        return probe, heal.decide(bundle.fingerprint, probe, allow_heal=True)

    async def _probe(self, bundle: LocatorBundle, within: Scope | None) -> Probe:
        if within is None:  # the v1 call, unchanged
            return await self.driver.probe(bundle, salt=self.options.salt)
        return await self.driver.probe(bundle, salt=self.options.salt, within=within)

    async def _located_nothing(self, step: StepState, decision: heal.Resolution) -> SkillreelError:
        """The error of a target not found, or ``SR_REPLAY_UI_HTTP_ERROR`` when the page answered
        one (a click after a navigation that returned HTTP 500: the status says why)."""
        error = self._resolution_error(step, decision)
        if error.code != "SR_REPLAY_UI_TARGET_NOT_FOUND":
            return error
        condition = await self.driver.condition(measured=False)
        a = step.action
        return condition.http_error(f"step {a.id} ({a.kind}): no element matches the target", a.id) or error

    def _resolution_error(self, step: StepState, decision: heal.Resolution) -> SkillreelError:
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


def _proposable_in_set(bundle: LocatorBundle, picked: Picked) -> LocatorBundle:
    """A target chosen by an input (a filter or a row) that healed: what it chooses among stays the
    approved one's (``merge_heal`` keeps the filter and the row), its candidates too (never the
    locators of the one element this input chose); only the element's fresh fingerprint is
    proposed, kept as such a target keeps it (in a row: ``in_row``; else structure only)."""
    fingerprint = in_row(picked.fingerprint) if bundle.row is not None else structure_only(picked.fingerprint)
    return LocatorBundle(candidates=bundle.candidates, fingerprint=fingerprint)


def _proposable(picked: Picked) -> LocatorBundle | None:
    """The healed element's fresh locators for the heal proposal. When one of its texts holds a
    sensitive input (``picked.echoes``; a hash cannot be searched for what it holds), only what is
    not taken from text: no role-name or href candidate, a structure-only fingerprint (None when
    no candidate is left)."""
    bundle = LocatorBundle(candidates=picked.candidates or (), fingerprint=picked.fingerprint)
    return structural(bundle) if picked.echoes else bundle
