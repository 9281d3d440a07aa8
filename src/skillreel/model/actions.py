"""The bounded action vocabulary and the capability each action needs (ARCHITECTURE section 5).

Every action has a stable ``id`` so later schema versions can refer to a step's outputs
(``${steps.<id>.out.<field>}`` in source document 003). Values are typed references, never string
templates: a ``type`` or ``select`` action holds ``{"ref": "parameter", "name": ...}``. A future
schema version adds further reference kinds (a step output) and node kinds (extract, wait, scroll,
loop, branch) as new members of these discriminated unions; v1 documents stay valid unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from .base import ActionId, Document, ParamName
from .limits import MAX_URL_CHARS
from .locators import LocatorBundle

Capability = Literal["ui.observe", "ui.interact", "net.navigate"]
ALL_CAPABILITIES: tuple[Capability, ...] = ("net.navigate", "ui.interact", "ui.observe")

ExpectedText = Annotated[str, StringConstraints(max_length=1024)]


class ParameterRef(Document):
    """A reference to a replay input. (v2 adds ``StepOutputRef`` beside it.)"""

    ref: Literal["parameter"] = "parameter"
    name: ParamName


ValueRef = ParameterRef


class NavigateAction(Document):
    """Load a page: the target's first page, an address-bar navigation or a reload."""

    id: ActionId
    kind: Literal["navigate"] = "navigate"
    url: Annotated[str, StringConstraints(min_length=1, max_length=MAX_URL_CHARS)]
    reason: Literal["start", "address-bar", "reload"] = "start"


class ClickAction(Document):
    id: ActionId
    kind: Literal["click"] = "click"
    target: LocatorBundle


class TypeAction(Document):
    """Set a text field's value to a parameter (the whole final value of one field edit)."""

    id: ActionId
    kind: Literal["type"] = "type"
    target: LocatorBundle
    value: ValueRef


class SelectAction(Document):
    id: ActionId
    kind: Literal["select"] = "select"
    target: LocatorBundle
    value: ValueRef


class PressAction(Document):
    """Press Enter, Tab or Escape on the focused target (or the page when target is None)."""

    id: ActionId
    kind: Literal["press"] = "press"
    key: Literal["Enter", "Tab", "Escape"]
    target: LocatorBundle | None = None


class ObserveAction(Document):
    """Wait for the target to be visible and record before/after/page/screenshot digests."""

    id: ActionId
    kind: Literal["observe"] = "observe"
    target: LocatorBundle


AssertCheck = Literal["visible", "text_equals", "text_contains", "value_equals", "url_matches", "count"]


class AssertAction(Document):
    """A check the user added. ``url_matches`` needs no target; ``count`` expects an integer."""

    id: ActionId
    kind: Literal["assert"] = "assert"
    check: AssertCheck
    target: LocatorBundle | None = None
    expected: ExpectedText | Annotated[int, Field(ge=0, le=100_000)] | None = None


HumanReason = Literal["iframe", "closed-shadow", "drag", "upload", "rich-text", "otp", "other"]


class HumanAction(Document):
    """A step only a person may perform; replay pauses here or fails closed."""

    id: ActionId
    kind: Literal["human"] = "human"
    reason: HumanReason
    target: LocatorBundle | None = None


Action = Annotated[
    NavigateAction
    | ClickAction
    | TypeAction
    | SelectAction
    | PressAction
    | ObserveAction
    | AssertAction
    | HumanAction,
    Field(discriminator="kind"),
]

CAPABILITY_OF_KIND: dict[str, Capability] = {
    "navigate": "net.navigate",
    "click": "ui.interact",
    "type": "ui.interact",
    "select": "ui.interact",
    "press": "ui.interact",
    "human": "ui.interact",
    "observe": "ui.observe",
    "assert": "ui.observe",
}


def capability_manifest(actions: Iterable[Action]) -> tuple[Capability, ...]:
    """The sorted set of capabilities the actions need."""
    return tuple(sorted({CAPABILITY_OF_KIND[a.kind] for a in actions}))


def parameter_refs(actions: Iterable[Action]) -> list[str]:
    """Names of the parameters referenced by the actions, in order of first use."""
    seen: dict[str, None] = {}
    for action in actions:
        value = getattr(action, "value", None)
        if isinstance(value, ParameterRef):
            seen.setdefault(value.name, None)
    return list(seen)
