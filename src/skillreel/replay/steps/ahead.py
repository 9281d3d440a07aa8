"""What the next step measures first, so that the current step's page summary can measure it
ahead (the driver serves that measurement only to a probe of the same bundle in the same scope on
an unchanged page): :func:`first_target` for the next step of a list, :func:`entry_target` for the
start of a loop's next item."""

from __future__ import annotations

from ...model.actions import (
    Action,
    BranchAction,
    ChooseAction,
    ClickAction,
    ExtractAction,
    PressAction,
    SelectAction,
    TypeAction,
)
from ...model.conditions import CompareCondition, UrlCondition
from ...model.locators import LocatorBundle
from ..driving import Frame
from .context import Inputs


def first_target(
    action: Action | None, inputs: Inputs, frame: Frame | None, *, in_item: bool = False
) -> LocatorBundle | None:
    """The target ``action`` (the next step of the same list) probes before anything else.

    None when the next step starts otherwise, or when measuring ahead would measure the wrong
    thing: a block (its first step depends on the page), a target chosen by a text filter
    (found by ``choose``, not a probe), a target inside the loop item (probed in the item's
    scope; allowed with ``in_item``, where the measurement is taken inside the next item), a
    type or select step whose value is missing (it is skipped; without ``frame``, the item's
    values are not known yet: never measured ahead). A target with accepted identities is first
    probed against its newest fingerprint alone, so that is what is measured ahead. What runs
    after the end of a list is the caller's ``then`` (the engine's block runner)."""
    target: LocatorBundle | None = None
    if isinstance(action, ClickAction | PressAction):
        target = action.target
    elif isinstance(action, TypeAction | SelectAction | ChooseAction) and frame is not None:
        target = action.target if inputs.text(action.value, frame) is not None else None
    elif isinstance(action, ExtractAction) and action.read in ("text", "value", "attribute"):
        target = action.target
    if target is None or target.filter is not None or (target.within is not None and not in_item):
        return None
    return target.measured_as(target.fingerprint) if target.identities else target


def entry_target(body: tuple[Action, ...], inputs: Inputs) -> LocatorBundle | None:
    """The target a loop's body most likely probes first in each item, for entering the item to
    measure ahead (a prediction: the driver serves the measurement only to a probe of that
    target in that item on an unchanged page): the first step's, or, when the body begins with
    a branch on a value or the URL (decided without measuring the page), its first list's."""
    first = body[0] if body else None
    if isinstance(first, BranchAction) and isinstance(first.condition, CompareCondition | UrlCondition):
        chosen = first.then or first.otherwise
        first = chosen[0] if chosen else None
    return first_target(first, inputs, None, in_item=True)
