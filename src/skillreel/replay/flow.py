"""The schema v2 steps of the replay engine (ARCHITECTURE section 15): data flow, blocks, reading.

* **Values.** A typed reference is resolved where the step runs (:class:`Frame`): a parameter's
  input (typed as its parameter), an earlier step's output, a field of the current loop item, or
  the reviewer's literal. An output read in the page goes to the caller only: the skill's outputs
  (:attr:`FlowSteps.outputs`), a collecting loop's objects, and later steps' references.
* **extract** reads one element (text, value, attribute, presence), counts a set, or reads a
  list of items with their fields (one in-page evaluation), then types the raw text
  (``replay.extraction``). More items than the limit fail the step (``SR_REPLAY_LIST_LIMIT``)
  unless ``overflow`` is ``first``.
* **loop** finds and marks its items once, then runs its body per item; a body's ``within: "item"``
  targets resolve inside the item, the item's fields are read first, an assertion that skips ends
  the iteration only. **branch** evaluates its condition once and runs one of its lists.
* **wait** polls its condition until its own timeout (``SR_REPLAY_UI_WAIT_FAILED``); **scroll**
  moves a target into view or a container to its end; **dialog** checks that the answer armed
  before the previous step met the expected dialog (``SR_REPLAY_UI_DIALOG_MISMATCH``).

Evidence holds names, kinds and counts, never a value read or typed.
"""

from __future__ import annotations

import contextlib
import fnmatch
from collections.abc import Mapping
from typing import Any

from ..errors import ReplayError, ReplayUIError, SkillreelError
from ..model.actions import (
    Action,
    BranchAction,
    CompareCondition,
    DialogAction,
    ExtractAction,
    LoopAction,
    PresentCondition,
    ScrollAction,
    UrlCondition,
    WaitAction,
)
from ..model.canonical import tagged_digest
from ..model.draft import Parameter
from ..model.limits import MAX_OUTPUTS_BYTES
from ..model.locators import LocatorBundle
from ..model.refs import ItemRef, LiteralValue, OutputRef, ParameterRef, ValueRef
from ..model.urls import V1_RULE, QueryRule, URLRuleError, normalise_target_url
from ..model.values import Scalar, ValueProblem, as_text, compare, outputs_size, typed_input
from . import evidence as ev
from . import extraction
from .driving import FieldValue, Frame, ItemAhead, Picked, Scope, SkipRest, StepState, Upcoming
from .resolving import OPTIONAL_WAIT_S, POLL_FIRST_S, POLL_MAX_S, Resolver


def count_digest(kind: str, action_id: str, count: int) -> str:
    """A fact that says how many (items, rows, rounds): a count, never what they hold."""
    return tagged_digest(ev.PAGE_STATE, {"kind": kind, "actionId": action_id, "count": count})


class FlowSteps(Resolver):
    """The v2 kinds; :class:`~skillreel.replay.engine.ReplayEngine` runs blocks and v1 kinds."""

    values: Mapping[str, str] = {}
    params: Mapping[str, Parameter] = {}
    labels: frozenset[str] = frozenset()
    outputs: dict[str, Any]

    async def _run_block(self, block: tuple[Action, ...], frame: Frame, then: Upcoming | None = None) -> None:
        raise NotImplementedError

    def _first_target(
        self, action: Action | None, frame: Frame | None, *, in_item: bool = False
    ) -> LocatorBundle | None:
        raise NotImplementedError

    async def _after(self, step: StepState, *, verify: str | None = None) -> ev.PageSummary:
        raise NotImplementedError

    # ---- values ----------------------------------------------------------------------------------

    def _raw(self, ref: ValueRef, frame: Frame) -> Scalar | None:
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

    def _text(self, ref: ValueRef | None, frame: Frame) -> str | None:
        return None if ref is None else as_text(self._raw(ref, frame))

    def _token_of(self, step: StepState, bundle: LocatorBundle) -> str | None:
        assert bundle.filter is not None
        return self._text(bundle.filter.contains_token, step.frame)

    def _produce(self, step: StepState, a: ExtractAction, value: object) -> None:
        """Where an extracted value goes: later references, then the caller (the skill's outputs,
        or the object a collecting loop's iteration builds)."""
        frame = step.frame
        frame.outputs[a.id] = value
        if frame.collected is not None:
            frame.collected[a.output] = value
        elif not frame.in_loop:
            self.outputs[a.output] = value
            self._check_size(a.id)

    def _check_size(self, action_id: str) -> None:
        if outputs_size(self.outputs) > MAX_OUTPUTS_BYTES:
            raise ReplayError(
                "SR_REPLAY_OUTPUT_TOO_LARGE",
                f"step {action_id}: the outputs exceed {MAX_OUTPUTS_BYTES // 1024:,} KiB; "
                "nothing was returned",
                action_id=action_id,
            )

    def _scope(self, frame: Frame, within: str | None) -> Scope | None:
        return frame.item if within == "item" else None

    # ---- extract ---------------------------------------------------------------------------------

    async def _extract(self, step: StepState, a: ExtractAction) -> None:
        value: object
        count: int | None = None
        if a.read == "presence":
            assert a.target is not None
            value = await self._present(step, a.target, min(step.deadline, self.clock() + OPTIONAL_WAIT_S))
        elif a.read in ("count", "list"):
            value, count = await self._extract_items(step, a)
        else:
            assert a.target is not None
            picked = await self._locate(step, a.target)
            value = extraction.scalar(a, await self.driver.read(picked, a.read, a.attribute))
        step.facts["read"] = tagged_digest(
            ev.PAGE_STATE, {"kind": "read", "output": a.output, "type": a.value_type, "count": count}
        )
        self._produce(step, a, value)

    async def _extract_items(self, step: StepState, a: ExtractAction) -> tuple[object, int]:
        assert a.items is not None
        token = self._text(a.items.filter.contains_token, step.frame) if a.items.filter else None
        within = self._scope(step.frame, a.items.within)
        if a.read == "count":
            found = await self.driver.open_items(
                a.items,
                salt=self.options.salt,
                loop=a.id,
                token=token,
                within=within,
                allow_heal=self.options.allow_heal,
                mark=False,
            )
            self._set_outcome(step, found.outcome)
            return found.count, found.count
        assert a.limit is not None
        read = await self.driver.read_list(
            a.items,
            a.fields,
            salt=self.options.salt,
            token=token,
            limit=a.limit,
            within=within,
            allow_heal=self.options.allow_heal,
        )
        self._set_outcome(step, read.outcome)
        self._check_limit(a.id, read.total, a.limit, a.overflow)
        return extraction.rows(a, read), len(read.rows)

    def _set_outcome(self, step: StepState, outcome: str) -> None:
        a = step.action
        if outcome == "ambiguous":
            raise ReplayUIError(
                "SR_REPLAY_UI_TARGET_AMBIGUOUS",
                f"step {a.id} ({a.kind}): two structures on the page match the items equally well; "
                "nothing was done",
                action_id=a.id,
            )
        step.healed = step.healed or outcome == "healed"

    def _check_limit(self, action_id: str, total: int, limit: int, overflow: str) -> None:
        if total > limit and overflow == "fail":
            raise ReplayError(
                "SR_REPLAY_LIST_LIMIT",
                f"step {action_id}: the page shows {total:,} items, more than the limit of {limit:,}; "
                "nothing was done with them",
                action_id=action_id,
            )

    # ---- blocks ----------------------------------------------------------------------------------

    def _limit(self, a: LoopAction) -> int:
        if isinstance(a.limit, int):
            return a.limit
        text = self.values.get(a.limit.name)
        if text is None:
            raise ReplayError(
                "SR_REPLAY_PARAMETER_MISSING",
                f"step {a.id}: the loop's limit {a.limit.name!r} was not given",
                action_id=a.id,
            )
        return int(text)

    async def _loop(self, step: StepState, a: LoopAction) -> None:
        limit = self._limit(a)
        frame = step.frame
        token = self._text(a.items.filter.contains_token, frame) if a.items.filter else None
        found = await self.driver.open_items(
            a.items,
            salt=self.options.salt,
            loop=a.id,
            token=token,
            within=self._scope(frame, a.items.within),
            allow_heal=self.options.allow_heal,
        )
        try:
            self._set_outcome(step, found.outcome)
            self._check_limit(a.id, found.count, limit, a.overflow)
            collected: list[dict[str, object]] = []
            count = min(found.count, limit)
            first = self._entry_target(a.body) if a.fields else None
            for index in range(count):
                # what runs after this iteration's last step: the next item, else the loop's next step
                then = step.upcoming if index + 1 == count else None
                if index + 1 < count and a.fields:
                    then = ItemAhead(a.id, index + 1, a.fields, self.options.allow_heal, first)
                collected.append(await self._iteration(step, a, index, then, first))
        finally:
            await self.driver.close_items(a.id)
        step.facts["items"] = count_digest("items", a.id, count)
        if a.collect is not None:
            if frame.collected is not None:  # the graph refuses it; never write into a parent's object
                raise ReplayError("SR_REPLAY_SCHEMA_INVALID", f"step {a.id}: a nested loop cannot collect")
            self.outputs[a.collect] = collected
            self._check_size(a.id)

    def _entry_target(self, body: tuple[Action, ...]) -> LocatorBundle | None:
        """The target a loop's body most likely probes first in each item, for entering the item to
        measure ahead (a prediction: the driver serves the measurement only to a probe of that
        target in that item on an unchanged page): the first step's, or, when the body begins with
        a branch on a value or the URL (decided without measuring the page), its first list's."""
        first = body[0] if body else None
        if isinstance(first, BranchAction) and isinstance(first.condition, CompareCondition | UrlCondition):
            chosen = first.then or first.otherwise
            first = chosen[0] if chosen else None
        return self._first_target(first, None, in_item=True)

    async def _iteration(
        self,
        step: StepState,
        a: LoopAction,
        index: int,
        then: Upcoming | None = None,
        first: LocatorBundle | None = None,
    ) -> dict[str, object]:
        scope = Scope(a.id, index)
        reads: tuple[FieldValue, ...] | None = ()
        if a.fields:  # the item and its fields (and the body's first target) in one round trip
            reads = await self.driver.enter_item(
                a.id,
                index,
                a.fields,
                salt=self.options.salt,
                allow_heal=self.options.allow_heal,
                probe=first,
            )
        elif not await self.driver.item(a.id, index):
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
            await self._run_block(a.body, child, then)
        return collected if collected is not None else {}

    async def _branch(self, step: StepState, a: BranchAction) -> None:
        holds = await self._condition(step, a)
        step.facts["branch"] = ev.marker_digest("then" if holds else "else", a.id)
        chosen = a.then if holds else a.otherwise
        if not chosen:
            return
        with contextlib.suppress(SkipRest):
            await self._run_block(chosen, step.frame.child(), step.upcoming)

    async def _condition(self, step: StepState, a: BranchAction) -> bool:
        cond = a.condition
        if isinstance(cond, PresentCondition):
            return await self._present(step, cond.target, min(step.deadline, self.clock() + OPTIONAL_WAIT_S))
        if isinstance(cond, UrlCondition):
            return url_matches(await self.driver.current_url(), cond.expected, self.options.url_rule)
        assert isinstance(cond, CompareCondition)
        left = self._raw(cond.value, step.frame)
        right = self._raw(cond.expected, step.frame) if cond.expected is not None else None
        try:
            return compare(left, cond.op, right)
        except ValueProblem as exc:
            raise ReplayError(
                "SR_REPLAY_OUTPUT_INVALID", f"step {a.id}: {exc.reason}", action_id=a.id
            ) from exc

    # ---- wait, scroll, dialog --------------------------------------------------------------------

    async def _wait(self, step: StepState, a: WaitAction) -> None:
        if a.timeout_ms is not None:
            step.deadline = self.clock() + a.timeout_ms / 1000
        delay = POLL_FIRST_S
        while not await self._wait_once(step, a):
            await self.driver.release()
            if self.clock() >= step.deadline:
                if a.on_fail == "skip":
                    step.facts["skippedRest"] = ev.marker_digest("skipped-rest", a.id)
                    raise SkipRest
                raise ReplayUIError(
                    "SR_REPLAY_UI_WAIT_FAILED",
                    f"step {a.id}: the page did not reach the state the wait expects ({a.until}) in time",
                    action_id=a.id,
                )
            await self.sleep(delay)
            delay = min(delay * 2, POLL_MAX_S)
        step.facts["check"] = ev.check_digest(f"wait-{a.until}", step.facts.get("target"))

    async def _wait_once(self, step: StepState, a: WaitAction) -> bool:
        if a.until == "url":
            return url_matches(await self.driver.current_url(), a.expected, self.options.url_rule)
        assert a.target is not None
        now = self.clock()
        if a.until in ("appears", "disappears"):
            present = await self._present(step, a.target, now)
            return present if a.until == "appears" else not present
        picked = await self._try_locate(step, a.target)
        if picked is None:
            return False
        expected = self._text(a.value, step.frame)
        return expected is not None and await self.driver.check(picked, "text_contains", expected)

    async def _try_locate(self, step: StepState, bundle: LocatorBundle) -> Picked | None:
        """The target now (one measurement, a heal confirmed once), or None when it is not there."""
        probe_step = StepState(step.action, self.clock(), step.frame, step.facts)
        try:
            picked = await self._locate(probe_step, bundle)
        except ReplayUIError as exc:
            if exc.code == "SR_REPLAY_UI_TARGET_NOT_FOUND":
                return None
            raise
        step.healed = step.healed or probe_step.healed
        return picked

    async def _scroll(self, step: StepState, a: ScrollAction) -> None:
        picked = await self._locate(step, a.target)
        rounds = await self.driver.scroll(
            picked,
            a.to,
            max_rounds=a.max_rounds,
            settle_ms=self.options.settle_ms,
            timeout_ms=self._remaining_ms(step),
        )
        step.facts["scroll"] = count_digest(f"scroll-{a.to}", a.id, rounds)
        await self._after(step)

    async def _dialog(self, step: StepState, a: DialogAction) -> None:
        delay = POLL_FIRST_S
        try:
            while (seen := await self.driver.dialog_seen()) is None:
                if self.clock() >= step.deadline:
                    if a.optional:
                        step.facts["skipped"] = ev.marker_digest("skipped", a.id)
                        return
                    raise ReplayUIError(
                        "SR_REPLAY_UI_DIALOG_MISMATCH",
                        f"step {a.id}: the expected dialog did not open",
                        action_id=a.id,
                    )
                await self.sleep(delay)
                delay = min(delay * 2, POLL_MAX_S)
        finally:
            await self.driver.disarm_dialog()
        step.acted = True  # the dialog was answered (or dismissed): the page may act on it
        if not seen.answered:
            raise ReplayUIError(
                "SR_REPLAY_UI_DIALOG_MISMATCH",
                f"step {a.id}: a {seen.kind} dialog opened where a {a.expects} was expected; "
                "it was dismissed",
                action_id=a.id,
            )
        step.facts["dialog"] = ev.marker_digest(
            f"dialog-{seen.kind}-{'accept' if a.accept else 'dismiss'}", a.id
        )

    async def _arm(self, opener: Action, dialog: DialogAction, frame: Frame) -> None:
        """Before ``opener`` runs: answer the dialog it opens as ``dialog`` says."""
        text = self._text(dialog.text, frame) if dialog.text is not None else None
        try:
            await self.driver.arm_dialog(accept=dialog.accept, text=text, expects=dialog.expects)
        except SkillreelError as exc:
            if exc.action_id is None:
                exc.action_id = opener.id
            raise


def url_matches(url: str, expected: str | int | None, rule: QueryRule = V1_RULE) -> bool:
    """``url_matches``: the normalised page URL equals ``expected`` (a full URL, or a path with
    query when it starts with ``/``); ``*`` in ``expected`` matches any run of characters."""
    if not isinstance(expected, str) or not expected:
        return False
    try:
        normal = normalise_target_url(url, rule)
    except URLRuleError:
        return False
    subject = normal
    if expected.startswith("/"):
        subject = "/" + normal.partition("://")[2].partition("/")[2]
    if "*" in expected:
        return fnmatch.fnmatchcase(subject, expected.replace("[", "[[]").replace("?", "[?]"))
    return subject == expected
