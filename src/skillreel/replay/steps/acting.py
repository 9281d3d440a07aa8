"""Input steps: click, type, select, press.

Each locates its element, acts on it, then settles and summarises the page
(:meth:`StepContext.after`). A typed or chosen value is verified in the field once the page has
settled; when the page swapped the field after the input reached it, in the field found again
exactly as recorded (:func:`_holds`). When the page replaced the element before any input reached
it (a re-render; the driver raises :class:`TargetReplaced`, nothing done), the target is located
again and the action made on what is found then, at most :data:`MAX_REPLACED` times
(``SR_REPLAY_UI_TARGET_REPLACED``). A direct click (``replay/direct.py``) whose press the guard in
our world refused (another element under the pointer: :class:`TargetCovered`, raised by the call that
settles after it; nothing reached the page) is made again the same way, the settling included
(``SR_REPLAY_UI_TARGET_COVERED`` when it keeps happening).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

from ...errors import ReplayError, ReplayUIError
from ...model.actions import ClickAction, PressAction, SelectAction, TypeAction
from ...model.locators import LocatorBundle
from ...model.refs import ItemRef, OutputRef, ParameterRef
from ...model.values import values_text
from .. import evidence as ev
from ..driving import Picked, TargetCovered, TargetReplaced
from .context import Handler, StepContext

# How many times one step locates its target again after the page replaced it before the action
# reached it (a re-render: nothing was done), within the step's deadline.
MAX_REPLACED: Final = 5
_T = TypeVar("_T")


async def act_on(ctx: StepContext, bundle: LocatorBundle, act: Callable[[Picked], Awaitable[_T]]) -> _T:
    """Locate ``bundle`` and act on the element chosen. When the page replaced that element
    before any input reached it (:class:`TargetReplaced`: nothing was done; a re-render), the
    target is located again and the action made on the element found then: at most
    :data:`MAX_REPLACED` times, within the step's deadline."""
    step = ctx.step
    replaced = 0
    while True:
        picked = await ctx.locate(bundle)
        acted, step.acted = step.acted, True
        try:
            return await act(picked)
        except TargetReplaced as exc:
            step.acted = acted
            replaced += 1
            if replaced > MAX_REPLACED or ctx.clock() >= step.deadline:
                raise _gave_up(step.action.id, step.action.kind, replaced, exc) from None


def _gave_up(action_id: str, kind: str, times: int, last: TargetReplaced) -> ReplayUIError:
    if isinstance(last, TargetCovered):
        return ReplayUIError(
            "SR_REPLAY_UI_TARGET_COVERED",
            f"step {action_id} ({kind}): another element was under the pointer {times} times where "
            "the target had been measured; the guard refused each press, nothing was clicked",
            action_id=action_id,
        )
    return ReplayUIError(
        "SR_REPLAY_UI_TARGET_REPLACED",
        f"step {action_id} ({kind}): the page replaced the target {times} times before the "
        "action reached it; nothing was done there",
        action_id=action_id,
    )


async def click(ctx: StepContext, a: ClickAction) -> None:
    async def clicked(picked: Picked) -> None:
        await ctx.driver.click(picked, timeout_ms=ctx.remaining_ms())
        await ctx.after()  # a refused press (TargetCovered) shows here: made again

    await act_on(ctx, a.target, clicked)


async def press(ctx: StepContext, a: PressAction) -> None:
    if a.target is None:
        ctx.step.acted = True
        await ctx.driver.press(None, a.key, timeout_ms=ctx.remaining_ms())
    else:
        await act_on(ctx, a.target, lambda p: ctx.driver.press(p, a.key, timeout_ms=ctx.remaining_ms()))
    await ctx.after()


async def set_value(ctx: StepContext, a: TypeAction | SelectAction) -> None:
    """type and select: the input goes into the field, which must then hold exactly it."""
    step = ctx.step
    value = ctx.text(a.value)
    if value is None:  # an optional input nobody gave (or an absent field): the field is left as it is
        step.facts["skipped"] = ev.marker_digest("skipped", a.id)
        return
    if isinstance(a, TypeAction):
        fact = "valueCheck"
        typed = value
        await act_on(ctx, a.target, lambda p: ctx.driver.fill(p, typed, timeout_ms=ctx.remaining_ms()))
    else:
        fact = "selectedCheck"
        wanted = value
        value = await act_on(ctx, a.target, lambda p: _select(ctx, a, p, wanted))
    # verified once the page has settled: the field must still hold exactly the input
    verified = (await ctx.after(verify=value)).verified
    if verified is None:  # the page swapped the field once the input had reached it
        verified = await _holds(ctx, a.target, value)
    if verified is not True:
        raise ReplayUIError(
            "SR_REPLAY_UI_ACTION_FAILED",
            f"step {a.id} ({a.kind}): the field does not hold the input",
            action_id=a.id,
        )
    step.facts[fact] = ev.check_digest(fact, step.facts["target"])


async def _holds(ctx: StepContext, bundle: LocatorBundle, value: str) -> bool:
    """Whether the field found again now holds ``value``: the page swapped the field it was
    typed into (or chosen in) for another once the input had reached it (a form re-rendered
    from the server's answer). One measurement, no healing and no filter: only a field its
    ranked locator finds exactly counts, and nothing about the step changes."""
    if bundle.filter is not None:
        return False
    probe, decision = await ctx.run.resolver.measure(bundle, ctx.scope(bundle.within))
    if not decision.accepted or decision.healed or decision.element is None:
        return False
    driver = ctx.driver
    picked = await driver.pick(probe, decision.element, salt=ctx.options.salt, describe=False)
    if picked is None:
        return False
    try:
        return await driver.check(picked, "value_equals", value)
    finally:
        await driver.release()


async def _select(ctx: StepContext, a: SelectAction, picked: Picked, value: str) -> str:
    """The option chosen: by value, or (an enum input given as the option's visible label, as
    pre-flight allowed) by label, which must lead to one of the parameter's allowed values; a
    value read in a page (an output, an item's field) by value, else by its visible label."""
    inputs = ctx.run.inputs
    param = inputs.params.get(a.value.name) if isinstance(a.value, ParameterRef) else None
    by_label = param is not None and param.name in inputs.labels
    chosen = await ctx.driver.select(
        picked,
        value,
        timeout_ms=ctx.remaining_ms(),
        by_label=by_label,
        allowed=param.values if param is not None else None,  # nothing else is ever chosen
    )
    if chosen is None and isinstance(a.value, OutputRef | ItemRef):  # read in a page: its label
        chosen = await ctx.driver.select(picked, value, timeout_ms=ctx.remaining_ms(), by_label=True)
    if param is not None and param.values is not None and chosen is not None and chosen not in param.values:
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


HANDLERS: dict[str, Handler] = {"click": click, "type": set_value, "select": set_value, "press": press}
