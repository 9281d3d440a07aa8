"""PURE structured edits of a draft (``skillreel edit NAME``; issue 12, source document 004).

An edit patch (``skillreel.edit/v1``) is a list of reviewed, structured edits applied in order to
the current draft; the result is a new draft, validated like any other (graph rules, outputs,
parameters). No edit adds a target a person did not touch or mark: a wait, an assertion or a
branch condition names a *recorded* step whose target it reuses (``"target": "a4"``), and a loop
iterates over the items of a recorded list extraction (``"over": "a5"``).

Edits (``op``):

* ``set-parameter`` ``{name, type?, description?, default?, required?, values?}`` — the keys given
  replace the parameter's (``null`` clears an optional one);
* ``rename-parameter`` ``{name, to}`` — every reference follows;
* ``set-step`` ``{step, optional?, intent?, onFail?}``;
* ``delete-step`` ``{step}`` — a parameter no step uses any more is dropped (reported);
* ``move-step`` ``{step, before | after}`` — within the step's own block;
* ``wrap-loop`` ``{steps, over, limit, overflow?, collect?, bind?}`` — the steps (consecutive, one
  block) become the body of a loop over the items of the list extraction ``over`` (its fields
  become the item's fields); ``bind`` ``{parameter: field}`` makes the body use the item's field
  where it used the parameter (a target filter, a typed value);
* ``wrap-branch`` ``{steps, condition, else?}`` — the steps run only when the condition holds;
  ``condition``: ``{"kind": "present", "target": STEP}``, ``{"kind": "url", "expected": ...}`` or
  ``{"kind": "compare", "value": REF, "op": ..., "expected"?: REF}``;
* ``add-wait`` ``{after | before, target, until?, timeoutMs?, onFail?}``: until the target
  ``appears`` (the default) or ``disappears``; ``until: "url"`` with ``expected`` (no target) waits
  for the page URL to match; ``until: "text"`` with ``value`` (an input or a literal, never a
  sensitive input) for the target's text to hold it;
* ``add-scroll`` ``{after | before, target, to?, maxRounds?, optional?}``: the target scrolled
  ``into-view`` (the default), or a scroll container scrolled to its ``end`` while it grows;
* ``add-assert`` ``{after | before, check, target?, expected?, atLeast?, atMost?, onFail?}``
  (``atLeast``/``atMost``: a ``count``'s bounds);
* ``insert-human`` ``{after | before, reason?, intent}``;
* ``set-output`` ``{name, description}``;
* ``set-skill`` ``{description?, failureConditions?}`` — what a caller reads before using the skill
  (``[]`` clears the failure conditions);
* ``set-value``, ``set-url``, ``set-retry`` and ``wrap-while`` ``{steps, condition, limit}``
  (values between steps, retries, while loops: ``record.flow_edits``);
* ``bind-target`` ``{step, by, over?}`` — a click's target becomes the element of the row like its
  row (``over: "rows"``, the default) or the element like it (``over: "elements"``) whose text
  holds input ``by`` as a whole token (``record.binding``); refused for a step that is not a click
  and for an unknown or sensitive input.

Problems are :class:`EditProblem` (``SR_RECORD_EDIT_INVALID`` or ``SR_RECORD_EDIT_REFERENCE``,
naming the edit and the step; ``SR_RECORD_EDIT_SENSITIVE`` for a binding to a sensitive input); the
graph rules of the result keep their own codes.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

from pydantic import Field, StringConstraints, TypeAdapter, model_validator

from ..model.actions import (
    Action,
    AssertCheck,
    ExpectedText,
    HumanReason,
    Intent,
    OnFail,
    capability_manifest,
)
from ..model.base import ActionId, Document, ParamName
from ..model.draft import DefaultValue, Draft, FailureCondition, Parameter
from ..model.draft import Description as SkillDescription
from ..model.limits import MAX_FAILURE_CONDITIONS, MAX_SCROLL_ROUNDS, MAX_WAIT_MS, TIMEOUT_MS_RANGE
from ..model.locators import LocatorBundle
from ..model.refs import OutputName, ValueRef
from ..model.values import Description, EnumValues, OutputSpec, ValueType
from .binding import BindProblem, Over, bound_target
from .flow_edits import EditCondition, FlowEdit, FlowProblem, PresentOn, WrapWhile, apply_flow, while_block

EDIT_SCHEMA: Final = "skillreel.edit/v1"
MAX_EDITS = 256
INVALID = "SR_RECORD_EDIT_INVALID"
REFERENCE = "SR_RECORD_EDIT_REFERENCE"
SENSITIVE = "SR_RECORD_EDIT_SENSITIVE"


class EditProblem(ValueError):
    """An edit that cannot be applied: ``code``, the 1-based edit number, the step it names."""

    def __init__(self, code: str, number: int, message: str, step: str | None = None) -> None:
        super().__init__(f"edit {number}: {message}")
        self.code = code
        self.number = number
        self.step = step


class _Placed(Document):
    """An edit that inserts a step before or after a recorded one."""

    after: ActionId | None = None
    before: ActionId | None = None

    @model_validator(mode="after")
    def _one_place(self) -> _Placed:
        if (self.after is None) == (self.before is None):
            raise ValueError("give exactly one of after and before")
        return self


class SetParameter(Document):
    op: Literal["set-parameter"]
    name: ParamName
    type: ValueType | None = None
    description: Description | None = None
    default: DefaultValue | None = None
    required: bool | None = None
    values: EnumValues | None = None


class RenameParameter(Document):
    op: Literal["rename-parameter"]
    name: ParamName
    to: ParamName


class SetStep(Document):
    op: Literal["set-step"]
    step: ActionId
    optional: bool | None = None
    intent: Intent | None = None
    on_fail: OnFail | None = None


class DeleteStep(Document):
    op: Literal["delete-step"]
    step: ActionId


class MoveStep(_Placed):
    op: Literal["move-step"]
    step: ActionId


class WrapLoop(Document):
    op: Literal["wrap-loop"]
    steps: tuple[ActionId, ...] = Field(min_length=1, max_length=256)
    over: ActionId
    limit: Annotated[int, Field(ge=1, le=10**6)] | Annotated[ParamName, StringConstraints(min_length=1)]
    overflow: Literal["fail", "first"] = "fail"
    collect: OutputName | None = None
    bind: dict[ParamName, OutputName] = Field(default_factory=dict, max_length=32)


class WrapBranch(Document):
    op: Literal["wrap-branch"]
    steps: tuple[ActionId, ...] = Field(min_length=1, max_length=256)
    condition: EditCondition
    otherwise: tuple[ActionId, ...] = Field(default=(), max_length=256, alias="else")


class AddWait(_Placed):
    """A wait until the target of a recorded step appears or disappears, the page URL matches
    ``expected`` (``url``: no target), or the target's text holds ``value`` (``text``: an input or
    a literal)."""

    op: Literal["add-wait"]
    target: ActionId | None = None
    until: Literal["appears", "disappears", "url", "text"] = "appears"
    expected: ExpectedText | None = None
    value: ValueRef | None = None
    timeout_ms: Annotated[int, Field(ge=TIMEOUT_MS_RANGE[0], le=MAX_WAIT_MS)] | None = None
    on_fail: OnFail = "fail"


class AddScroll(_Placed):
    """Scroll the target of a recorded step into view, or (``to: end``) a scroll container to its
    end while it grows (a lazy list), at most ``maxRounds`` times."""

    op: Literal["add-scroll"]
    target: ActionId
    to: Literal["into-view", "end"] = "into-view"
    max_rounds: Annotated[int, Field(ge=1, le=MAX_SCROLL_ROUNDS)] | None = None
    optional: bool = False


class AddAssert(_Placed):
    op: Literal["add-assert"]
    check: AssertCheck
    target: ActionId | None = None
    expected: ExpectedText | Annotated[int, Field(ge=0, le=100_000)] | None = None
    at_least: Annotated[int, Field(ge=0, le=100_000)] | None = None
    at_most: Annotated[int, Field(ge=0, le=100_000)] | None = None
    on_fail: OnFail = "fail"


class InsertHuman(_Placed):
    op: Literal["insert-human"]
    reason: HumanReason = "other"
    intent: Intent


class SetOutput(Document):
    op: Literal["set-output"]
    name: OutputName
    description: Description | None = None


class SetSkill(Document):
    """What a caller reads before using the skill: its ``description``, its ``failureConditions``."""

    op: Literal["set-skill"]
    description: SkillDescription | None = None
    failure_conditions: tuple[FailureCondition, ...] | None = Field(None, max_length=MAX_FAILURE_CONDITIONS)


class BindTarget(Document):
    op: Literal["bind-target"]
    step: ActionId
    by: ParamName
    over: Over = "rows"


Edit = Annotated[
    SetParameter
    | RenameParameter
    | SetStep
    | DeleteStep
    | MoveStep
    | WrapLoop
    | WrapBranch
    | AddWait
    | AddScroll
    | AddAssert
    | InsertHuman
    | SetOutput
    | SetSkill
    | BindTarget
    | FlowEdit
    | WrapWhile,
    Field(discriminator="op"),
]


class EditPatch(Document):
    """``{"schema": "skillreel.edit/v1", "edits": [...]}``; ``revision``: apply only to it."""

    schema_: Literal["skillreel.edit/v1"] = Field("skillreel.edit/v1", alias="schema")
    revision: Annotated[int, Field(ge=1)] | None = None
    edits: tuple[Edit, ...] = Field(min_length=1, max_length=MAX_EDITS)


@dataclass(frozen=True)
class Edited:
    """The edited draft and the parameters dropped because no step used them any more."""

    draft: Draft
    dropped: tuple[str, ...]


# ---- the step graph as JSON ------------------------------------------------------------------

_BLOCK_KEYS = ("body", "then", "else")


def _lists(actions: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    yield actions
    for step in actions:
        for key in _BLOCK_KEYS:
            if isinstance(step.get(key), list):
                yield from _lists(step[key])


def _find(actions: list[dict[str, Any]], step: str, n: int) -> tuple[list[dict[str, Any]], int]:
    for block in _lists(actions):
        for i, found in enumerate(block):
            if found.get("id") == step:
                return block, i
    raise EditProblem(REFERENCE, n, f"there is no step {step}", step)


def _next_id(actions: list[dict[str, Any]]) -> str:
    numbers = [int(m.group(1)) for b in _lists(actions) for s in b if (m := re.fullmatch(r"a(\d+)", s["id"]))]
    return f"a{max(numbers, default=0) + 1}"


def _target_of(actions: list[dict[str, Any]], step: str, n: int) -> dict[str, Any]:
    """A copy of the target a recorded step holds (its ``target``)."""
    block, i = _find(actions, step, n)
    target = block[i].get("target")
    if not isinstance(target, dict):
        raise EditProblem(REFERENCE, n, f"step {step} has no target to reuse", step)
    if target.get("within") is not None:
        raise EditProblem(INVALID, n, f"step {step}'s target is relative to a loop item", step)
    return copy.deepcopy(target)


def _place(actions: list[dict[str, Any]], edit: _Placed, new: dict[str, Any], n: int) -> None:
    anchor = edit.after or edit.before
    assert anchor is not None
    block, i = _find(actions, anchor, n)
    block.insert(i + 1 if edit.after is not None else i, new)


def _run(actions: list[dict[str, Any]], steps: tuple[str, ...], n: int) -> tuple[list[dict[str, Any]], int]:
    """The block and first index of ``steps``: consecutive, in order, in one block."""
    block, first = _find(actions, steps[0], n)
    for offset, step in enumerate(steps):
        at = first + offset
        if at >= len(block) or block[at].get("id") != step:
            raise EditProblem(
                INVALID, n, "the steps to wrap must be consecutive, in order, in one block", step
            )
    return block, first


def _replace_refs(node: Any, old: dict[str, Any], new: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if node == old:
            return copy.deepcopy(new)
        return {k: _replace_refs(v, old, new) for k, v in node.items()}
    if isinstance(node, list):
        return [_replace_refs(v, old, new) for v in node]
    return node


def _uses(node: Any, ref: dict[str, Any]) -> bool:
    if isinstance(node, dict):
        return node == ref or any(_uses(v, ref) for v in node.values())
    if isinstance(node, list):
        return any(_uses(v, ref) for v in node)
    return False


# ---- applying ------------------------------------------------------------------------------------


def apply_edits(draft: Draft, patch: EditPatch) -> Edited:
    """The draft ``patch`` makes of ``draft`` (not yet validated: build it with :func:`build`)."""
    document = draft.to_json()
    actions: list[dict[str, Any]] = document["actions"]
    parameters: list[dict[str, Any]] = document["parameters"]
    outputs: list[dict[str, Any]] = document.get("outputs", [])
    for n, edit in enumerate(patch.edits, start=1):
        if isinstance(edit, SetSkill):
            _set_skill(edit, n, document)
            continue
        actions = _apply(edit, n, actions, parameters, outputs)
    used = [p for p in parameters if _uses(actions, {"ref": "parameter", "name": p["name"]})]
    dropped = tuple(p["name"] for p in parameters if p not in used)
    document.update(actions=actions, parameters=used, outputs=outputs)
    return Edited(build(draft, document), dropped)


def _set_skill(edit: SetSkill, n: int, document: dict[str, Any]) -> None:
    if edit.description is None and edit.failure_conditions is None:
        raise EditProblem(INVALID, n, "set-skill sets the description, the failure conditions or both")
    if edit.description is not None:
        document["description"] = edit.description
    if edit.failure_conditions is not None:
        document["failureConditions"] = list(edit.failure_conditions)


def build(draft: Draft, document: dict[str, Any]) -> Draft:
    """The edited draft, built and validated (raises pydantic's ValidationError)."""
    actions = _ACTIONS.validate_json(json.dumps(document["actions"]))
    return Draft.build(
        name=draft.name,
        description=document.get("description", draft.description),
        actions=actions,
        parameters=tuple(Parameter.parse(p) for p in document["parameters"]),
        capabilities=capability_manifest(actions),
        failure_conditions=tuple(document.get("failureConditions", draft.failure_conditions)),
        environment=draft.environment,
        fingerprint_salt=draft.fingerprint_salt,
        events_digest=draft.events_digest,
        outputs=tuple(OutputSpec.parse(o) for o in document.get("outputs", ())),
    )


_ACTIONS: TypeAdapter[tuple[Action, ...]] = TypeAdapter(tuple[Action, ...])


def _apply(
    edit: Any,
    n: int,
    actions: list[dict[str, Any]],
    parameters: list[dict[str, Any]],
    outputs: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    if isinstance(edit, SetParameter | RenameParameter):
        found = next((p for p in parameters if p["name"] == edit.name), None)
        if found is None:
            names = ", ".join(p["name"] for p in parameters) or "none"
            raise EditProblem(REFERENCE, n, f"there is no parameter {edit.name!r} (parameters: {names})")
        if isinstance(edit, RenameParameter):
            if any(p["name"] == edit.to for p in parameters):
                raise EditProblem(INVALID, n, f"a parameter is already named {edit.to!r}")
            old, new = {"ref": "parameter", "name": edit.name}, {"ref": "parameter", "name": edit.to}
            found["name"] = edit.to
            return list(_replace_refs(actions, old, new))
        for key in edit.model_fields_set - {"op", "name"}:
            value = getattr(edit, key)
            if value is None:
                found.pop(key, None)
            else:
                found[key] = list(value) if isinstance(value, tuple) else value
        if (
            "default" in edit.model_fields_set
            and edit.default is not None
            and "required" not in edit.model_fields_set
        ):
            found["required"] = False
        return actions
    if isinstance(edit, SetOutput):
        spec = next((o for o in outputs if o["name"] == edit.name), None)
        if spec is None:
            raise EditProblem(REFERENCE, n, f"there is no output {edit.name!r}")
        if edit.description is None:
            spec.pop("description", None)
        else:
            spec["description"] = edit.description
        return actions
    if isinstance(edit, SetStep):
        block, i = _find(actions, edit.step, n)
        for key, wire in (("optional", "optional"), ("intent", "intent"), ("on_fail", "onFail")):
            if key in edit.model_fields_set:
                value = getattr(edit, key)
                if value is None:
                    block[i].pop(wire, None)
                else:
                    block[i][wire] = value
        return actions
    if isinstance(edit, DeleteStep):
        block, i = _find(actions, edit.step, n)
        del block[i]
        if not actions:
            raise EditProblem(INVALID, n, "a skill keeps at least one step", edit.step)
        return actions
    if isinstance(edit, MoveStep):
        block, i = _find(actions, edit.step, n)
        anchor = edit.after or edit.before
        if anchor == edit.step:
            raise EditProblem(INVALID, n, "a step moves relative to another step", edit.step)
        step = block.pop(i)
        target_block, j = _find(actions, anchor or "", n)
        if target_block is not block:
            raise EditProblem(INVALID, n, "a step moves within its own block", edit.step)
        block.insert(j + 1 if edit.after is not None else j, step)
        return actions
    if isinstance(edit, BindTarget):
        return _bind(edit, n, actions, parameters)
    if isinstance(edit, FlowEdit):
        _flow(edit, n, actions, parameters)
        return actions
    if isinstance(edit, WrapWhile):
        condition = _condition(edit, n, actions)
        block, first = _run(actions, edit.steps, n)
        body = block[first : first + len(edit.steps)]
        block[first : first + len(edit.steps)] = [while_block(_next_id(actions), condition, edit.limit, body)]
        return actions
    if isinstance(edit, WrapLoop):
        return _wrap_loop(edit, n, actions)
    if isinstance(edit, WrapBranch):
        return _wrap_branch(edit, n, actions)
    new_id = _next_id(actions)
    if isinstance(edit, AddWait):
        wait: dict[str, Any] = {"id": new_id, "kind": "wait", "until": edit.until}
        if edit.target is not None:
            wait["target"] = _target_of(actions, edit.target, n)
        if edit.expected is not None:
            wait["expected"] = edit.expected
        if edit.value is not None:
            _not_sensitive(edit.value, parameters, n)
            wait["value"] = edit.value.to_json()
        if edit.timeout_ms is not None:
            wait["timeoutMs"] = edit.timeout_ms
        if edit.on_fail != "fail":
            wait["onFail"] = edit.on_fail
        _place(actions, edit, wait, n)
    elif isinstance(edit, AddScroll):
        target = _target_of(actions, edit.target, n)
        scroll: dict[str, Any] = {"id": new_id, "kind": "scroll", "target": target, "to": edit.to}
        scroll.update(maxRounds=edit.max_rounds or 20, optional=edit.optional)
        _place(actions, edit, scroll, n)
    elif isinstance(edit, AddAssert):
        check: dict[str, Any] = {"id": new_id, "kind": "assert", "check": edit.check}
        if edit.target is not None:
            check["target"] = _target_of(actions, edit.target, n)
        check["expected"] = edit.expected
        check.update(
            {k: v for k, v in (("atLeast", edit.at_least), ("atMost", edit.at_most)) if v is not None}
        )
        if edit.on_fail != "fail":
            check["onFail"] = edit.on_fail
        _place(actions, edit, check, n)
    elif isinstance(edit, InsertHuman):
        _place(
            actions, edit, {"id": new_id, "kind": "human", "reason": edit.reason, "intent": edit.intent}, n
        )
    return actions


def _not_sensitive(value: Any, parameters: list[dict[str, Any]], n: int) -> None:
    """A wait's text is compared with the page's: never a sensitive input's."""
    name = getattr(value, "name", None) if getattr(value, "ref", None) == "parameter" else None
    if any(p["name"] == name and p.get("sensitive") for p in parameters):
        raise EditProblem(SENSITIVE, n, f"parameter {name!r} is sensitive: a wait never compares it")


def _wrap_loop(edit: WrapLoop, n: int, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    block, first = _run(actions, edit.steps, n)
    source_block, at = _find(actions, edit.over, n)
    source = source_block[at]
    if source.get("kind") != "extract" or source.get("read") not in ("list", "count"):
        raise EditProblem(INVALID, n, f"step {edit.over} is no list extraction to loop over", edit.over)
    fields = copy.deepcopy(source.get("fields", []))
    names = {f["name"] for f in fields}
    body = block[first : first + len(edit.steps)]
    for parameter, field in edit.bind.items():
        if field not in names:
            raise EditProblem(REFERENCE, n, f"step {edit.over}'s items have no field {field!r}", edit.over)
        body = _replace_refs(body, {"ref": "parameter", "name": parameter}, {"ref": "item", "field": field})
    loop: dict[str, Any] = {
        "id": _next_id(actions),
        "kind": "loop",
        "items": copy.deepcopy(source["items"]),
        "limit": edit.limit if isinstance(edit.limit, int) else {"ref": "parameter", "name": edit.limit},
        "body": body,
    }
    if fields:
        loop["fields"] = fields
    if edit.overflow != "fail":
        loop["overflow"] = edit.overflow
    if edit.collect is not None:
        loop["collect"] = edit.collect
    block[first : first + len(edit.steps)] = [loop]
    return actions


def _flow(edit: Any, n: int, actions: list[dict[str, Any]], parameters: list[dict[str, Any]]) -> None:
    block, i = _find(actions, edit.step, n)
    try:
        apply_flow(edit, block[i], [s for b in _lists(actions) for s in b], parameters)
    except FlowProblem as exc:
        raise EditProblem(REFERENCE if exc.code == "reference" else INVALID, n, str(exc), exc.step) from None


def _condition(edit: WrapBranch | WrapWhile, n: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
    cond = edit.condition
    if isinstance(cond, PresentOn):
        return {"kind": "present", "target": _target_of(actions, cond.target, n)}
    return cond.to_json()


def _wrap_branch(edit: WrapBranch, n: int, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    condition = _condition(edit, n, actions)
    block, first = _run(actions, edit.steps, n)
    then = block[first : first + len(edit.steps)]
    branch: dict[str, Any] = {"id": _next_id(actions), "kind": "branch", "condition": condition, "then": then}
    block[first : first + len(edit.steps)] = [branch]
    if edit.otherwise:
        other_block, other_first = _run(actions, edit.otherwise, n)
        if other_block is not block or other_first != first + 1:
            raise EditProblem(
                INVALID, n, "the else steps must directly follow the wrapped steps", edit.otherwise[0]
            )
        branch["else"] = other_block[other_first : other_first + len(edit.otherwise)]
        del other_block[other_first : other_first + len(edit.otherwise)]
    return actions


def _bind(
    edit: BindTarget, n: int, actions: list[dict[str, Any]], parameters: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """A click's target chosen by input ``edit.by`` (``record.binding``); never a secret."""
    block, i = _find(actions, edit.step, n)
    step = block[i]
    if step.get("kind") != "click":
        raise EditProblem(
            INVALID, n, f"step {edit.step} is not a click: only a click is chosen by an input", edit.step
        )
    parameter = next((p for p in parameters if p["name"] == edit.by), None)
    if parameter is None:
        names = ", ".join(p["name"] for p in parameters) or "none"
        raise EditProblem(REFERENCE, n, f"there is no parameter {edit.by!r} (parameters: {names})", edit.step)
    if parameter.get("sensitive"):
        raise EditProblem(
            SENSITIVE, n, f"parameter {edit.by!r} is sensitive: it never chooses a target", edit.step
        )
    try:
        step["target"] = bound_target(LocatorBundle.parse(step["target"]), edit.by, edit.over)
    except BindProblem as exc:
        raise EditProblem(INVALID, n, f"step {edit.step} cannot be bound: {exc}", edit.step) from None
    return actions
