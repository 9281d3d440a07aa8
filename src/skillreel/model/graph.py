"""The rules of a skill's step graph (ARCHITECTURE section 15), checked whenever a draft is built
or parsed: a graph that breaks one cannot exist in memory, in the store or in an export.

* **Shape.** Steps form a list; ``loop`` and ``branch`` hold nested lists, at most
  :data:`~skillreel.model.limits.MAX_GRAPH_DEPTH` levels deep and
  :data:`~skillreel.model.limits.MAX_ACTIONS` steps in all; every id is unique in the whole graph.
  There are no jumps, so there are no cycles; a loop runs at most its limit (at most 1,000).
* **References.** A parameter reference names a declared parameter (a loop's ``limit`` an integer
  one). An output reference names an ``extract`` step that has certainly run before: an earlier
  step of the same list or of a list enclosing the referring step, not optional, reading a single
  value (not a list). An item reference names a field of the nearest enclosing loop; a target
  marked ``within: "item"`` is inside a loop. A ``dialog`` step follows the step that opens it.
* **Outputs.** The skill's outputs are what its ``extract`` steps outside loops read, and what each
  collecting loop gathers (its item fields and the values its body extracts, one flat object per
  iteration). Each has a unique name; it is nullable when a run may skip the step that produces it
  (in a branch, an optional step, after an assertion or wait that skips on failure).

Each problem is a :class:`~skillreel.model.actions.GraphProblem` with a code
(``SR_RECORD_GRAPH_INVALID``, ``SR_RECORD_GRAPH_REFERENCE``, ``SR_RECORD_LOOP_BOUND``) and a
message naming the step id, never a value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .actions import (
    V1_KINDS,
    Action,
    AssertAction,
    BranchAction,
    DialogAction,
    DownloadAction,
    ExtractAction,
    LoopAction,
    NavigateAction,
    WaitAction,
    WhileAction,
    children,
    value_refs,
    walk,
)
from .conditions import PresentCondition
from .graph_problem import GraphProblem
from .limits import MAX_ACTIONS, MAX_GRAPH_DEPTH, MAX_OUTPUTS
from .locators import ElementSet, LocatorBundle
from .reads import FieldSpec
from .refs import ItemRef, OutputRef, ParameterRef
from .values import InputType, OutputField, OutputSpec

INVALID = "SR_RECORD_GRAPH_INVALID"
REFERENCE = "SR_RECORD_GRAPH_REFERENCE"
_OPENS_DIALOG = frozenset({"click", "press", "type", "select", "choose", "navigate"})


class TypedParameter(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def type(self) -> InputType | None: ...
    @property
    def sensitive(self) -> bool: ...


# The steps that put a value into the page or a URL: a value from an output or an item field
# must be text-like there (a boolean or a list is refused when the skill is saved).
_TAKES_TEXT = frozenset({"type", "select", "choose", "navigate"})


@dataclass
class _Scope:
    """What a step may refer to: outputs certainly produced before it, the enclosing loop's fields."""

    outputs: dict[str, ExtractAction] = field(default_factory=dict)
    item_fields: frozenset[str] | None = None

    def enter(self, *, item_fields: frozenset[str] | None = None) -> _Scope:
        return _Scope(dict(self.outputs), self.item_fields if item_fields is None else item_fields)


def targets(action: Action) -> list[LocatorBundle]:
    """The locator bundles a step holds itself (its target, a condition's target, its fields')."""
    found: list[LocatorBundle] = []
    target = getattr(action, "target", None)
    if isinstance(target, LocatorBundle):
        found.append(target)
    if isinstance(action, BranchAction) and isinstance(action.condition, PresentCondition):
        found.append(action.condition.target)
    fields: Sequence[FieldSpec] = getattr(action, "fields", ())
    found += [f.target for f in fields if f.target is not None]
    return found


def element_sets(action: Action) -> list[ElementSet]:
    """The repeating structures a step holds (a loop's items, a count or list extraction's)."""
    items = getattr(action, "items", None)
    return [items] if isinstance(items, ElementSet) else []


def _located(action: Action) -> list[LocatorBundle | ElementSet]:
    return [*targets(action), *element_sets(action)]


def check_graph(actions: Sequence[Action], parameters: Iterable[TypedParameter]) -> None:
    """Every rule of the module docstring; raises :class:`GraphProblem`."""
    everything = list(walk(actions))
    if len(everything) > MAX_ACTIONS:
        raise GraphProblem(INVALID, None, f"the graph has {len(everything)} steps; at most {MAX_ACTIONS}")
    seen: set[str] = set()
    for action in everything:
        if action.id in seen:
            raise GraphProblem(INVALID, action.id, "two steps have this id")
        seen.add(action.id)
    _check_names(everything)
    params = {p.name: p for p in parameters}
    extracts = {a.id: a for a in everything if isinstance(a, ExtractAction)}
    _check_block(actions, _Scope(), params, extracts, depth=1, in_loop=False)


def _check_names(everything: Sequence[Action]) -> None:
    names: set[str] = set()
    for action in everything:
        name = (
            action.output
            if isinstance(action, ExtractAction | DownloadAction)
            else getattr(action, "collect", None)
        )
        if name is None:
            continue
        if name in names:
            raise GraphProblem(INVALID, action.id, f"another step already produces the output {name!r}")
        names.add(name)


def _check_block(
    block: Sequence[Action],
    scope: _Scope,
    params: Mapping[str, TypedParameter],
    extracts: Mapping[str, ExtractAction],
    *,
    depth: int,
    in_loop: bool,
) -> None:
    if depth > MAX_GRAPH_DEPTH:
        raise GraphProblem(INVALID, block[0].id, f"blocks nest at most {MAX_GRAPH_DEPTH - 1} deep")
    previous: Action | None = None
    for action in block:
        _check_step(action, previous, scope, params, extracts, in_loop=in_loop)
        if in_loop and isinstance(action, DownloadAction):
            raise GraphProblem(INVALID, action.id, "a download keeps one file: it cannot run in a loop")
        if isinstance(action, LoopAction):
            if action.collect is not None and in_loop:
                raise GraphProblem(
                    INVALID, action.id, "a loop inside a loop cannot collect (outputs are flat)"
                )
            inner = scope.enter(item_fields=frozenset(f.name for f in action.fields))
            _check_block(action.body, inner, params, extracts, depth=depth + 1, in_loop=True)
        for branch in children(action) if isinstance(action, BranchAction | WhileAction) else ():
            if branch:
                _check_block(branch, scope.enter(), params, extracts, depth=depth + 1, in_loop=in_loop)
        if isinstance(action, ExtractAction) and action.read != "list" and not action.optional:
            scope.outputs[action.id] = action
        previous = action


def _check_step(
    action: Action,
    previous: Action | None,
    scope: _Scope,
    params: Mapping[str, TypedParameter],
    extracts: Mapping[str, ExtractAction],
    *,
    in_loop: bool,
) -> None:
    for ref in value_refs(action):
        if isinstance(ref, ParameterRef):
            if ref.name not in params:
                raise GraphProblem(REFERENCE, action.id, f"parameter {ref.name!r} is not declared")
        elif isinstance(ref, OutputRef):
            _check_output_ref(action.id, ref, scope, extracts)
            if action.kind in _TAKES_TEXT and extracts[ref.step].value_type == "boolean":
                raise GraphProblem(
                    INVALID, action.id, f"output {ref.field!r} is a boolean: a {action.kind} step takes text"
                )
        elif isinstance(ref, ItemRef):
            if scope.item_fields is None:
                raise GraphProblem(REFERENCE, action.id, "an item reference is used outside a loop")
            if ref.field not in scope.item_fields:
                raise GraphProblem(
                    REFERENCE, action.id, f"the enclosing loop has no item field {ref.field!r}"
                )
    _check_files(action, params)
    if isinstance(action, NavigateAction):
        for ref in action.parts.values():
            if isinstance(ref, ParameterRef) and (param := params.get(ref.name)) and param.sensitive:
                raise GraphProblem(
                    INVALID, action.id, f"parameter {ref.name!r} is sensitive: it never goes into a URL"
                )
    if isinstance(action, LoopAction) and isinstance(action.limit, ParameterRef):
        param = params.get(action.limit.name)
        if param is not None and param.type != "integer":
            raise GraphProblem(
                REFERENCE, action.id, f"the loop's limit parameter {action.limit.name!r} must be an integer"
            )
    if not in_loop and any(t.within == "item" for t in _located(action)):
        raise GraphProblem(INVALID, action.id, "a target inside the item is used outside a loop")
    if isinstance(action, DialogAction) and (previous is None or previous.kind not in _OPENS_DIALOG):
        raise GraphProblem(
            INVALID, action.id, "a dialog step follows the click, key press, edit or navigation that opens it"
        )


def _check_files(action: Action, params: Mapping[str, TypedParameter]) -> None:
    """A ``file`` parameter is set by upload steps only, and an upload sets only a file (issue 32):
    a path is never typed, compared or waited for."""
    upload = action.kind == "upload"
    for ref in value_refs(action):
        if not isinstance(ref, ParameterRef) or ref.name not in params:
            continue
        if (params[ref.name].type == "file") != upload:
            why = "an upload's parameter must be a file" if upload else "only an upload uses a file parameter"
            raise GraphProblem(REFERENCE, action.id, f"{why} ({ref.name!r})")


def _check_output_ref(
    step: str, ref: OutputRef, scope: _Scope, extracts: Mapping[str, ExtractAction]
) -> None:
    producer = extracts.get(ref.step)
    if producer is None or producer.output != ref.field:
        raise GraphProblem(REFERENCE, step, f"no extract step {ref.step} produces an output {ref.field!r}")
    if producer.read == "list":
        raise GraphProblem(REFERENCE, step, f"output {ref.field!r} is a list, not a single value")
    if ref.step not in scope.outputs:
        raise GraphProblem(
            REFERENCE,
            step,
            f"output {ref.field!r} of step {ref.step} is used before it is certainly produced "
            "(a later step, inside a block that has ended, or an optional step)",
        )


# ---- outputs ------------------------------------------------------------------------------------


def _skips(action: Action) -> bool:
    return isinstance(action, AssertAction | WaitAction) and action.on_fail == "skip"


def derive_outputs(actions: Sequence[Action]) -> tuple[OutputSpec, ...]:
    """The outputs the steps produce, in document order, without descriptions (see the module)."""
    found: list[OutputSpec] = []
    _outputs_of(actions, nullable=False, into=found)
    if len(found) > MAX_OUTPUTS:
        raise GraphProblem(INVALID, None, f"the skill has {len(found)} outputs; at most {MAX_OUTPUTS}")
    return tuple(found)


def _outputs_of(block: Sequence[Action], *, nullable: bool, into: list[OutputSpec]) -> None:
    for action in block:
        if isinstance(action, ExtractAction):
            into.append(_extract_output(action, nullable=nullable or action.optional))
        elif isinstance(action, DownloadAction):
            into.append(OutputSpec(name=action.output, type="download", nullable=nullable))
        elif isinstance(action, LoopAction):
            if action.collect is not None:
                into.append(_collected(action, nullable=nullable))
        elif isinstance(action, BranchAction):
            for branch in (action.then, action.otherwise):
                _outputs_of(branch, nullable=True, into=into)
        elif isinstance(action, WhileAction):
            _outputs_of(action.body, nullable=True, into=into)
        nullable = nullable or _skips(action)


def _field(spec: FieldSpec) -> OutputField:
    return OutputField(name=spec.name, type=spec.value_type, values=spec.values, nullable=spec.optional)


def _extract_output(action: ExtractAction, *, nullable: bool) -> OutputSpec:
    kind = action.value_type
    return OutputSpec(
        name=action.output,
        type=kind,
        values=action.values,
        fields=tuple(_field(f) for f in action.fields),
        nullable=nullable,
    )


def _collected(loop: LoopAction, *, nullable: bool) -> OutputSpec:
    fields = [_field(f) for f in loop.fields]
    _body_fields(loop.id, loop.body, nullable=False, into=fields)
    names = [f.name for f in fields]
    for name in names:
        if names.count(name) > 1:
            raise GraphProblem(INVALID, loop.id, f"the collected objects would have two fields {name!r}")
    assert loop.collect is not None
    return OutputSpec(name=loop.collect, type="list", fields=tuple(fields), nullable=nullable)


def _body_fields(loop: str, block: Sequence[Action], *, nullable: bool, into: list[OutputField]) -> None:
    for action in block:
        if isinstance(action, ExtractAction):
            if action.read == "list":
                raise GraphProblem(
                    INVALID, action.id, "a collecting loop's body reads single values, not lists"
                )
            kind = action.value_type
            assert kind != "list"
            into.append(
                OutputField(
                    name=action.output, type=kind, values=action.values, nullable=nullable or action.optional
                )
            )
        elif isinstance(action, BranchAction):
            for branch in (action.then, action.otherwise):
                _body_fields(loop, branch, nullable=True, into=into)
        elif isinstance(action, WhileAction):
            _body_fields(loop, action.body, nullable=True, into=into)
        nullable = nullable or _skips(action)


# ---- which schema a draft needs ------------------------------------------------------------------


def v2_features(actions: Sequence[Action]) -> list[str]:
    """What in ``actions`` only schema v2 can express (kinds, step flags, non-parameter references,
    target filters or item scopes), each as ``"<step id>: <what>"``; empty for a v1 graph."""
    found: list[str] = []
    for action in walk(actions):
        if action.kind not in V1_KINDS:
            found.append(f"{action.id}: kind {action.kind}")
        found += [f"{action.id}: {name}" for name in action.v2_fields()]
        if any(not isinstance(ref, ParameterRef) for ref in value_refs(action)):
            found.append(f"{action.id}: a reference other than a parameter")
        for target in _located(action):
            if target.filter is not None or target.within is not None:
                found.append(f"{action.id}: a filtered or item-relative target")
    return found


def replace_steps(actions: Sequence[Action], replacements: Mapping[str, Action]) -> tuple[Action, ...]:
    """``actions`` with each step whose id is in ``replacements`` replaced, at any depth (blocks
    are rebuilt around replaced steps); everything else is kept as it is."""
    out: list[Action] = []
    for action in actions:
        if action.id in replacements:
            out.append(replacements[action.id])
        elif isinstance(action, LoopAction | WhileAction):
            out.append(action.model_copy(update={"body": replace_steps(action.body, replacements)}))
        elif isinstance(action, BranchAction):
            out.append(
                action.model_copy(
                    update={
                        "then": replace_steps(action.then, replacements),
                        "otherwise": replace_steps(action.otherwise, replacements),
                    }
                )
            )
        else:
            out.append(action)
    return tuple(out)
