"""The data-flow steps (schema v2): extract, loop, branch.

* **extract** reads one element (text, value, attribute, presence), counts a set, or reads a
  list of items with their fields (one in-page evaluation), then types the raw text
  (``replay.extraction``). More items than the limit fail the step (``SR_REPLAY_LIST_LIMIT``)
  unless ``overflow`` is ``first``. An output read in the page goes to the caller only: the
  skill's outputs (:attr:`RunContext.outputs`), a collecting loop's objects, and later steps'
  references (:class:`~skillreel.replay.driving.Frame`).
* **loop** finds and marks its items once, then runs its body per item; a body's ``within: "item"``
  targets resolve inside the item, the item's fields are read first, an assertion that skips ends
  the iteration only. **branch** evaluates its condition once and runs one of its lists.
* **while** tests its condition (as a branch does) before each run of its body, at most ``limit``
  runs: a condition that still holds then fails the step (``SR_REPLAY_WHILE_LIMIT``). An assertion
  that skips ends the run of the body only.

Evidence holds names, kinds and counts, never a value read.
"""

from __future__ import annotations

import contextlib

from ...errors import ReplayError, ReplayUIError
from ...model.actions import BranchAction, ExtractAction, LoopAction, WhileAction
from ...model.canonical import tagged_digest
from ...model.conditions import CompareCondition, PresentCondition, UrlCondition
from ...model.limits import MAX_OUTPUTS_BYTES
from ...model.locators import LocatorBundle
from ...model.values import ValueProblem, compare, outputs_size
from .. import evidence as ev
from .. import extraction
from ..driving import FieldValue, Frame, ItemAhead, Scope, SkipRest, Upcoming
from ..resolving import OPTIONAL_WAIT_S
from .ahead import entry_target
from .checking import url_matches
from .context import Handler, StepContext


def count_digest(kind: str, action_id: str, count: int) -> str:
    """A fact that says how many (items, rows, rounds): a count, never what they hold."""
    return tagged_digest(ev.PAGE_STATE, {"kind": kind, "actionId": action_id, "count": count})


# ---- extract --------------------------------------------------------------------------------------


async def extract(ctx: StepContext, a: ExtractAction) -> None:
    value: object
    count: int | None = None
    if a.read == "presence":
        assert a.target is not None
        value = await ctx.present(a.target, min(ctx.step.deadline, ctx.clock() + OPTIONAL_WAIT_S))
    elif a.read in ("count", "list"):
        value, count = await _extract_items(ctx, a)
    else:
        assert a.target is not None
        picked = await ctx.locate(a.target)
        value = extraction.scalar(a, await ctx.driver.read(picked, a.read, a.attribute))
    ctx.step.facts["read"] = tagged_digest(
        ev.PAGE_STATE, {"kind": "read", "output": a.output, "type": a.value_type, "count": count}
    )
    _produce(ctx, a, value)


async def _extract_items(ctx: StepContext, a: ExtractAction) -> tuple[object, int]:
    assert a.items is not None
    options = ctx.options
    token = ctx.text(a.items.filter.contains_token) if a.items.filter else None
    within = ctx.scope(a.items.within)
    if a.read == "count":
        found = await ctx.driver.open_items(
            a.items,
            salt=options.salt,
            loop=a.id,
            token=token,
            within=within,
            allow_heal=options.allow_heal,
            mark=False,
        )
        _set_outcome(ctx, found.outcome)
        return found.count, found.count
    assert a.limit is not None
    read = await ctx.driver.read_list(
        a.items,
        a.fields,
        salt=options.salt,
        token=token,
        limit=a.limit,
        within=within,
        allow_heal=options.allow_heal,
    )
    _set_outcome(ctx, read.outcome)
    _check_limit(a.id, read.total, a.limit, a.overflow)
    return extraction.rows(a, read), len(read.rows)


def _produce(ctx: StepContext, a: ExtractAction, value: object) -> None:
    """Where an extracted value goes: later references, then the caller (the skill's outputs,
    or the object a collecting loop's iteration builds)."""
    frame = ctx.frame
    frame.outputs[a.id] = value
    if frame.collected is not None:
        frame.collected[a.output] = value
    elif not frame.in_loop:
        ctx.run.outputs[a.output] = value
        check_size(ctx.run.outputs, a.id)


def check_size(outputs: dict[str, object], action_id: str) -> None:
    if outputs_size(outputs) > MAX_OUTPUTS_BYTES:
        raise ReplayError(
            "SR_REPLAY_OUTPUT_TOO_LARGE",
            f"step {action_id}: the outputs exceed {MAX_OUTPUTS_BYTES // 1024:,} KiB; nothing was returned",
            action_id=action_id,
        )


def _set_outcome(ctx: StepContext, outcome: str) -> None:
    a = ctx.action
    if outcome == "ambiguous":
        raise ReplayUIError(
            "SR_REPLAY_UI_TARGET_AMBIGUOUS",
            f"step {a.id} ({a.kind}): two structures on the page match the items equally well; "
            "nothing was done",
            action_id=a.id,
        )
    ctx.step.healed = ctx.step.healed or outcome == "healed"


def _check_limit(action_id: str, total: int, limit: int, overflow: str) -> None:
    if total > limit and overflow == "fail":
        raise ReplayError(
            "SR_REPLAY_LIST_LIMIT",
            f"step {action_id}: the page shows {total:,} items, more than the limit of {limit:,}; "
            "nothing was done with them",
            action_id=action_id,
        )


# ---- loop -----------------------------------------------------------------------------------------


def _limit(ctx: StepContext, a: LoopAction) -> int:
    if isinstance(a.limit, int):
        return a.limit
    text = ctx.run.inputs.values.get(a.limit.name)
    if text is None:
        raise ReplayError(
            "SR_REPLAY_PARAMETER_MISSING",
            f"step {a.id}: the loop's limit {a.limit.name!r} was not given",
            action_id=a.id,
        )
    return int(text)


async def loop(ctx: StepContext, a: LoopAction) -> None:
    limit = _limit(ctx, a)
    step, frame, options = ctx.step, ctx.frame, ctx.options
    token = ctx.text(a.items.filter.contains_token) if a.items.filter else None
    found = await ctx.driver.open_items(
        a.items,
        salt=options.salt,
        loop=a.id,
        token=token,
        within=ctx.scope(a.items.within),
        allow_heal=options.allow_heal,
    )
    try:
        _set_outcome(ctx, found.outcome)
        _check_limit(a.id, found.count, limit, a.overflow)
        collected: list[dict[str, object]] = []
        count = min(found.count, limit)
        first = entry_target(a.body, ctx.run.inputs) if a.fields else None
        for index in range(count):
            # what runs after this iteration's last step: the next item, else the loop's next step
            then = step.upcoming if index + 1 == count else None
            if index + 1 < count and a.fields:
                then = ItemAhead(a.id, index + 1, a.fields, options.allow_heal, first)
            collected.append(await _iteration(ctx, a, index, then, first))
    finally:
        await ctx.driver.close_items(a.id)
    step.facts["items"] = count_digest("items", a.id, count)
    if a.collect is not None:
        if frame.collected is not None:  # the graph refuses it; never write into a parent's object
            raise ReplayError("SR_REPLAY_SCHEMA_INVALID", f"step {a.id}: a nested loop cannot collect")
        ctx.run.outputs[a.collect] = collected
        check_size(ctx.run.outputs, a.id)


async def _iteration(
    ctx: StepContext,
    a: LoopAction,
    index: int,
    then: Upcoming | None = None,
    first: LocatorBundle | None = None,
) -> dict[str, object]:
    step, options = ctx.step, ctx.options
    scope = Scope(a.id, index)
    reads: tuple[FieldValue, ...] | None = ()
    if a.fields:  # the item and its fields (and the body's first target) in one round trip
        reads = await ctx.driver.enter_item(
            a.id, index, a.fields, salt=options.salt, allow_heal=options.allow_heal, probe=first
        )
    elif not await ctx.driver.item(a.id, index):
        reads = None
    if reads is None:
        raise ReplayUIError(
            "SR_REPLAY_UI_TARGET_NOT_FOUND",
            f"step {a.id}: item {index + 1} of the loop is gone (the list changed while the loop ran)",
            action_id=a.id,
        )
    item_values: dict[str, object] = {}
    if a.fields:
        step.healed = step.healed or any(r.healed for r in reads)
        item_values = dict(extraction.fields(a.id, a.fields, reads, index))
    collected = dict(item_values) if a.collect is not None else None
    child = Frame(dict(step.frame.outputs), scope, item_values, collected, in_loop=True, iteration=index)
    with contextlib.suppress(SkipRest):
        await ctx.run.run_block(a.body, child, then)
    return collected if collected is not None else {}


# ---- branch ---------------------------------------------------------------------------------------


async def branch(ctx: StepContext, a: BranchAction) -> None:
    holds = await _condition(ctx, a)
    ctx.step.facts["branch"] = ev.marker_digest("then" if holds else "else", a.id)
    chosen = a.then if holds else a.otherwise
    if not chosen:
        return
    with contextlib.suppress(SkipRest):
        await ctx.run.run_block(chosen, ctx.frame.child(), ctx.step.upcoming)


async def while_(ctx: StepContext, a: WhileAction) -> None:
    runs = 0
    while True:
        ctx.step.deadline = ctx.clock() + ctx.options.timeout_ms / 1000  # each test has its own
        if not await _condition(ctx, a):
            break
        if runs == a.limit:
            raise ReplayError(
                "SR_REPLAY_WHILE_LIMIT",
                f"step {a.id}: the loop's condition still held after {a.limit:,} runs of its body",
                action_id=a.id,
            )
        runs += 1
        with contextlib.suppress(SkipRest):
            await ctx.run.run_block(a.body, ctx.frame.child(), None)
    ctx.step.facts["runs"] = count_digest("while", a.id, runs)


async def _condition(ctx: StepContext, a: BranchAction | WhileAction) -> bool:
    cond = a.condition
    if isinstance(cond, PresentCondition):
        return await ctx.present(cond.target, min(ctx.step.deadline, ctx.clock() + OPTIONAL_WAIT_S))
    if isinstance(cond, UrlCondition):
        return url_matches(await ctx.driver.current_url(), cond.expected, ctx.options.url_rule)
    assert isinstance(cond, CompareCondition)
    inputs = ctx.run.inputs
    left = inputs.raw(cond.value, ctx.frame)
    right = inputs.raw(cond.expected, ctx.frame) if cond.expected is not None else None
    try:
        return compare(left, cond.op, right)
    except ValueProblem as exc:
        raise ReplayError("SR_REPLAY_OUTPUT_INVALID", f"step {a.id}: {exc.reason}", action_id=a.id) from exc


HANDLERS: dict[str, Handler] = {"extract": extract, "loop": loop, "branch": branch, "while": while_}
