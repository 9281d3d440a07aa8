"""PURE edits of values between steps, retries and while loops (``skillreel edit``; issue 33).

The edit operations ``record.edits`` applies for data flow and repetition:

* ``set-value`` ``{step, from}`` — a ``type``, ``select`` or ``choose`` step takes its value from
  ``"output:NAME"`` (what an earlier ``extract`` step read into output NAME), ``"input:NAME"``
  (a replay input; a new required one when none has that name) or ``"literal:TEXT"`` (a constant
  the reviewer writes); refused where the step typed a sensitive input (a secret field takes an
  input only);
* ``set-url`` ``{step, url, parts}`` — an address-bar navigation loads a URL template
  (``https://host/orders/{order_id}``): ``parts`` maps each placeholder to a ``from`` as above
  (``model.url_template``: each value percent-encoded, the origin fixed);
* ``set-retry`` ``{step, times, intervalMs?}`` — an ``extract``, ``wait``, ``navigate`` or
  ``assert`` runs again on failure, at most ``times`` (1 to 5) more times; ``times: 0`` removes it;
  refused on a step that acts on the page;
* ``wrap-while`` ``{steps, condition, limit}`` — the steps (consecutive, one block) run again
  while the condition (as ``wrap-branch``'s) holds, at most ``limit`` (1 to 1,000) times.

Whether an output exists, comes before the step and has a text-like type is the graph's rule
(``model.graph``: ``SR_RECORD_GRAPH_REFERENCE`` / ``SR_RECORD_GRAPH_INVALID`` with the step id).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from ..model.actions import RETRYABLE, PartName
from ..model.base import ActionId, Document
from ..model.limits import (
    MAX_LOOP_ITEMS,
    MAX_RETRY_INTERVAL_MS,
    MAX_RETRY_TIMES,
    MAX_URL_CHARS,
    MAX_URL_PARTS,
)
from ..model.refs import DataRef, ValueRef
from ..model.values import CompareOp

# ``output:NAME``, ``input:NAME`` or ``literal:TEXT``.
ValueSource = Annotated[
    str, StringConstraints(pattern=r"^(output|input):[a-z][a-z0-9_]{0,63}$|^literal:[\s\S]{0,1024}$")
]
WhileLimit = Annotated[int, Field(ge=1, le=MAX_LOOP_ITEMS)]
_TAKES_VALUE = frozenset({"type", "select", "choose"})

Find = Callable[[list[dict[str, Any]], str, int], tuple[list[dict[str, Any]], int]]


class FlowProblem(ValueError):
    """An edit of this module that cannot be applied: ``code`` (``INVALID`` / ``REFERENCE``)."""

    def __init__(self, code: Literal["invalid", "reference"], message: str, step: str | None) -> None:
        super().__init__(message)
        self.code = code
        self.step = step


class SetValue(Document):
    op: Literal["set-value"]
    step: ActionId
    from_: ValueSource = Field(alias="from")


class SetUrl(Document):
    op: Literal["set-url"]
    step: ActionId
    url: Annotated[str, StringConstraints(min_length=1, max_length=MAX_URL_CHARS)]
    parts: dict[PartName, ValueSource] = Field(min_length=1, max_length=MAX_URL_PARTS)


class SetRetry(Document):
    op: Literal["set-retry"]
    step: ActionId
    times: Annotated[int, Field(ge=0, le=MAX_RETRY_TIMES)]
    interval_ms: Annotated[int, Field(ge=0, le=MAX_RETRY_INTERVAL_MS)] | None = None


class PresentOn(Document):
    kind: Literal["present"]
    target: ActionId


class UrlIs(Document):
    kind: Literal["url"]
    expected: Annotated[str, StringConstraints(min_length=1, max_length=1024)]


class Compare(Document):
    kind: Literal["compare"]
    value: DataRef
    op: CompareOp
    expected: ValueRef | None = None


EditCondition = Annotated[PresentOn | UrlIs | Compare, Field(discriminator="kind")]


class WrapWhile(Document):
    op: Literal["wrap-while"]
    steps: tuple[ActionId, ...] = Field(min_length=1, max_length=256)
    condition: EditCondition
    limit: WhileLimit


def value_ref(
    source: str, steps: list[dict[str, Any]], parameters: list[dict[str, Any]], step: str
) -> dict[str, Any]:
    """The value reference ``source`` names (a missing input is added as a required one);
    ``steps``: every step of the graph, blocks' steps included."""
    kind, _, name = source.partition(":")
    if kind == "literal":
        return {"ref": "literal", "value": name}
    if kind == "input":
        if not any(p["name"] == name for p in parameters):
            parameters.append({"name": name, "required": True, "sensitive": False})
        return {"ref": "parameter", "name": name}
    producer = next((a for a in steps if a.get("kind") == "extract" and a.get("output") == name), None)
    if producer is None:
        raise FlowProblem("reference", f"no extract step produces an output {name!r}", step)
    return {"ref": "output", "step": producer["id"], "field": name}


def _sensitive_value(step: dict[str, Any], parameters: list[dict[str, Any]]) -> bool:
    value = step.get("value")
    if not isinstance(value, dict) or value.get("ref") != "parameter":
        return False
    return any(p["name"] == value.get("name") and p.get("sensitive") for p in parameters)


def set_value(
    edit: SetValue, step: dict[str, Any], steps: list[dict[str, Any]], parameters: list[dict[str, Any]]
) -> None:
    if step.get("kind") not in _TAKES_VALUE:
        raise FlowProblem("invalid", f"step {edit.step} is no type, select or choose step", edit.step)
    if _sensitive_value(step, parameters):
        raise FlowProblem(
            "invalid", f"step {edit.step} types a sensitive input: it takes an input only", edit.step
        )
    step["value"] = value_ref(edit.from_, steps, parameters, edit.step)


def set_url(
    edit: SetUrl, step: dict[str, Any], steps: list[dict[str, Any]], parameters: list[dict[str, Any]]
) -> None:
    if step.get("kind") != "navigate" or step.get("reason") == "start":
        raise FlowProblem(
            "invalid", f"step {edit.step} is no navigation to a page after the start", edit.step
        )
    step["url"] = edit.url
    step["reason"] = "address-bar"
    step["parts"] = {name: value_ref(src, steps, parameters, edit.step) for name, src in edit.parts.items()}


def set_retry(edit: SetRetry, step: dict[str, Any]) -> None:
    if step.get("kind") not in RETRYABLE:
        raise FlowProblem(
            "invalid",
            f"step {edit.step} is a {step.get('kind')}: only extract, wait, navigate and assert steps "
            "retry (they change nothing)",
            edit.step,
        )
    if edit.times == 0:
        step.pop("retry", None)
        return
    step["retry"] = {
        "times": edit.times,
        "intervalMs": 1000 if edit.interval_ms is None else edit.interval_ms,
    }


def while_block(
    new_id: str, condition: dict[str, Any], limit: int, body: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "id": new_id,
        "kind": "while",
        "condition": copy.deepcopy(condition),
        "limit": limit,
        "body": body,
    }


FlowEdit = SetValue | SetUrl | SetRetry


def apply_flow(
    edit: FlowEdit, step: dict[str, Any], steps: list[dict[str, Any]], parameters: list[dict[str, Any]]
) -> None:
    """Apply one edit of this module to ``step`` (raises :class:`FlowProblem`)."""
    if isinstance(edit, SetValue):
        set_value(edit, step, steps, parameters)
    elif isinstance(edit, SetUrl):
        set_url(edit, step, steps, parameters)
    else:
        set_retry(edit, step)
