"""What a step handler is given: the run's shared collaborators (:class:`RunContext`) and the
step's own state (:class:`StepContext`: its action, frame, deadline and facts).

A handler reads nothing from the engine: inputs come through :class:`Inputs` (resolved where the
step runs, in its :class:`~skillreel.replay.driving.Frame`), elements through the
:class:`~skillreel.replay.resolving.Resolver`, the page through the driver, and nested blocks run
through :attr:`RunContext.run_block` (the engine's loop).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...model.actions import Action
from ...model.draft import Parameter
from ...model.locators import LocatorBundle
from ...model.refs import ItemRef, LiteralValue, OutputRef, ParameterRef, ValueRef
from ...model.values import Scalar, as_text, typed_input
from .. import evidence as ev
from ..driving import Driver, EngineOptions, Frame, HumanPrompt, Picked, Scope, StepState, Upcoming
from ..resolving import Resolver

# Runs a step list in a frame; ``then`` is what runs after its last step (measured ahead).
BlockRunner = Callable[[tuple[Action, ...], Frame, "Upcoming | None"], Awaitable[None]]


# A step kind's handler: the step's context and its action (of that kind).
Handler = Callable[["StepContext", Any], Awaitable[None]]


@dataclass(frozen=True)
class Inputs:
    """The run's inputs: canonical texts by parameter name, the parameters that type them, and the
    enum inputs given as an option's visible label (kept as text)."""

    values: Mapping[str, str] = field(default_factory=dict)
    params: Mapping[str, Parameter] = field(default_factory=dict)
    labels: frozenset[str] = frozenset()

    def raw(self, ref: ValueRef, frame: Frame) -> Scalar | None:
        """The typed value ``ref`` stands for here (None: an input nobody gave, an absent field)."""
        if isinstance(ref, ParameterRef):
            text = self.values.get(ref.name)
            param = self.params.get(ref.name)
            if text is None or param is None or ref.name in self.labels:
                return text
            return typed_input(param.type, text)
        if isinstance(ref, OutputRef):
            return frame.outputs.get(ref.step)  # type: ignore[return-value]
        if isinstance(ref, ItemRef):
            return frame.item_values.get(ref.field)  # type: ignore[return-value]
        assert isinstance(ref, LiteralValue)
        return ref.value

    def text(self, ref: ValueRef | None, frame: Frame) -> str | None:
        return None if ref is None else as_text(self.raw(ref, frame))


@dataclass
class RunContext:
    """What every step of one run shares: the collaborators, the inputs, the skill's outputs (the
    engine's :attr:`~skillreel.replay.engine.ReplayEngine.outputs`), where each step stands in the
    skill (for a person's prompt) and the engine's block runner."""

    driver: Driver
    options: EngineOptions
    resolver: Resolver
    inputs: Inputs
    outputs: dict[str, object]
    clock: Callable[[], float]
    sleep: Callable[[float], Awaitable[None]]
    run_block: BlockRunner
    human: HumanPrompt | None = None
    index: Mapping[str, int] = field(default_factory=dict)
    total: int = 0


@dataclass
class StepContext:
    """One step as its handler sees it: the run's collaborators and the step's working state."""

    run: RunContext
    step: StepState

    @property
    def action(self) -> Action:
        return self.step.action

    @property
    def frame(self) -> Frame:
        return self.step.frame

    @property
    def driver(self) -> Driver:
        return self.run.driver

    @property
    def options(self) -> EngineOptions:
        return self.run.options

    def clock(self) -> float:
        return self.run.clock()

    async def sleep(self, seconds: float) -> None:
        await self.run.sleep(seconds)

    def remaining_ms(self) -> int:
        return self.run.resolver.remaining_ms(self.step)

    def text(self, ref: ValueRef | None) -> str | None:
        """The canonical text ``ref`` stands for where this step runs."""
        return self.run.inputs.text(ref, self.step.frame)

    def token(self, bundle: LocatorBundle) -> str | None:
        """The value of ``bundle``'s whole-token filter here (None without a filter)."""
        return None if bundle.filter is None else self.text(bundle.filter.contains_token)

    def scope(self, within: str | None) -> Scope | None:
        return self.step.frame.item if within == "item" else None

    async def locate(self, bundle: LocatorBundle) -> Picked:
        return await self.run.resolver.locate(self.step, bundle, token=self.token(bundle))

    async def present(self, bundle: LocatorBundle, deadline: float) -> bool:
        return await self.run.resolver.present(self.step, bundle, deadline, token=self.token(bundle))

    async def after(self, *, verify: str | None = None) -> ev.PageSummary:
        """Settle, then summarise the page (the driver removes the step's mark in that call, and
        measures the page for the next step's target in it too: the two are pipelined)."""
        await self.driver.settle(self.options.settle_ms, timeout_ms=self.remaining_ms())
        summary = await self.driver.page_state(
            salt=self.options.salt, text=False, verify=verify, prefetch=self.step.upcoming
        )
        self.step.facts["afterState"] = ev.state_digest(summary)
        return summary
