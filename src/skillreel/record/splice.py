"""PURE: the draft a repair makes of an approved one (``skillreel record NAME --from-step ID`` or
``--only-step ID``, issue 32 point 5).

* :func:`repair_point` finds the step a repair starts at: a top-level step of the approved draft
  (``SR_RECORD_REPAIR_STEP_UNKNOWN`` when no step has that id, ``SR_RECORD_REPAIR_STEP_INVALID``
  when it is nested in a loop or branch, or is the start page). The steps before it are the
  *prefix* a repair replays and keeps.
* :func:`spliced` keeps the prefix byte for byte (same ids, locators, fingerprints) and appends
  the steps a new demonstration recorded (:func:`skillreel.record.project.plan` of its events),
  numbered after the prefix's highest id. The kept parameters keep their names and types; a new
  parameter whose name a kept one holds is renamed ``NAME_2``, ``NAME_3``... (every reference
  follows); a new parameter named like a sensitive parameter of the approved draft stays sensitive
  (the caller passes those names to ``plan``).
* :func:`repointed` rebuilds one step's target from the element a person picked (same kind, same
  value reference, every other step unchanged).

The result is a draft of the same name, salt and environment, bound to the new events log.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import Any

from pydantic import TypeAdapter

from ..errors import InputError, RecordError
from ..model.actions import Action, NavigateAction, capability_manifest, parameter_refs, walk
from ..model.draft import Draft, Parameter
from ..model.limits import MAX_ACTIONS
from ..model.locators import LocatorBundle
from .project import _unique

STEP_UNKNOWN = "SR_RECORD_REPAIR_STEP_UNKNOWN"
STEP_INVALID = "SR_RECORD_REPAIR_STEP_INVALID"


@cache
def _action_adapter() -> TypeAdapter[Action]:
    return TypeAdapter(Action)


def repair_point(draft: Draft, step_id: str, *, needs_target: bool = False) -> int:
    """The index of ``step_id`` among the draft's top-level steps (see the module docstring);
    ``needs_target``: the step must act on an element (``--only-step`` re-points it)."""
    index = next((i for i, a in enumerate(draft.actions) if a.id == step_id), None)
    if index is None:
        if draft.action(step_id) is not None:
            raise InputError(
                STEP_INVALID,
                f"step {step_id} is inside a loop or branch; a repair starts at a top-level step "
                "(name the block's own step)",
                action_id=step_id,
            )
        ids = ", ".join(a.id for a in draft.actions)
        raise InputError(STEP_UNKNOWN, f"the approved revision has no step {step_id!r} (steps: {ids})")
    action = draft.actions[index]
    if isinstance(action, NavigateAction) and action.reason == "start":
        raise InputError(
            STEP_INVALID,
            f"step {step_id} loads the start page; record the skill again instead",
            action_id=step_id,
        )
    if needs_target and not isinstance(getattr(action, "target", None), LocatorBundle):
        raise InputError(
            STEP_INVALID,
            f"step {step_id} ({action.kind}) acts on no single element to re-point",
            action_id=step_id,
        )
    return index


def prefix_parameters(draft: Draft, prefix: Sequence[Action]) -> tuple[Parameter, ...]:
    """The approved draft's parameters the prefix uses, in the draft's order."""
    used = set(parameter_refs(prefix))
    return tuple(p for p in draft.parameters if p.name in used)


def _max_id(actions: Sequence[Action]) -> int:
    numbers = [int(m.group(1)) for a in walk(actions) if (m := re.fullmatch(r"a(\d+)", a.id))]
    return max(numbers, default=0)


def _renamed_refs(node: Any, names: dict[str, str]) -> Any:
    if isinstance(node, dict):
        if node.get("ref") == "parameter" and node.get("name") in names:
            return {**node, "name": names[node["name"]]}
        return {k: _renamed_refs(v, names) for k, v in node.items()}
    if isinstance(node, list):
        return [_renamed_refs(v, names) for v in node]
    return node


def spliced(
    approved: Draft,
    index: int,
    tail: Sequence[Action],
    tail_parameters: Sequence[Parameter],
    events_digest: str,
) -> Draft:
    """The approved draft's first ``index`` steps, then ``tail`` (see the module docstring)."""
    prefix = approved.actions[:index]
    if not tail:
        raise RecordError(
            "SR_RECORD_NOTHING_CAPTURED", "the demonstration after the kept steps produced no action"
        )
    if len(prefix) + len(tail) > MAX_ACTIONS:
        raise RecordError(
            "SR_RECORD_ACTIONS_LIMIT", f"the repaired skill would have {len(prefix) + len(tail)} actions"
        )
    kept = prefix_parameters(approved, prefix)
    used = {p.name for p in kept}
    names: dict[str, str] = {}
    parameters = list(kept)
    for param in tail_parameters:
        name = _unique(param.name, used)
        used.add(name)
        names[param.name] = name
        parameters.append(param if name == param.name else param.model_copy(update={"name": name}))
    first = _max_id(prefix) + 1
    adapter = _action_adapter()
    renumbered = tuple(
        adapter.validate_python({**_renamed_refs(a.to_json(), names), "id": f"a{first + n}"}, strict=False)
        for n, a in enumerate(tail)
    )
    actions = (*prefix, *renumbered)
    return Draft.build(
        name=approved.name,
        description=approved.description,
        actions=actions,
        parameters=tuple(parameters),
        capabilities=capability_manifest(actions),
        failure_conditions=approved.failure_conditions,
        environment=approved.environment,
        fingerprint_salt=approved.fingerprint_salt,
        events_digest=events_digest,
        outputs=approved.outputs,
    )


def repointed(approved: Draft, index: int, target: LocatorBundle) -> Draft:
    """The approved draft with step ``index`` acting on ``target`` (nothing else changed; the
    draft stays bound to the approved events log, as an edit does)."""
    step = approved.actions[index]
    data = {**step.to_json(), "target": target.to_json()}
    actions = list(approved.actions)
    actions[index] = _action_adapter().validate_python(data, strict=False)
    return approved.evolve(actions=tuple(actions))
