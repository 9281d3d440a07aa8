"""Typed access to optional and union-typed fields in assertions: each helper asserts what the test
expects (a value is there, an action is of this kind) and hands back the narrowed value, so tests
need no ``# type: ignore``."""

from __future__ import annotations

from typing import TypeVar

from skillreel.model.actions import Action, NavigateAction
from skillreel.model.draft import Draft
from skillreel.model.locators import LocatorBundle

T = TypeVar("T")


def present(value: T | None) -> T:
    """``value``, asserted not to be None."""
    assert value is not None
    return value


def narrow(kind: type[T], value: object) -> T:
    """``value``, asserted to be a ``kind``."""
    assert isinstance(value, kind), f"expected a {kind.__name__}, got {type(value).__name__}"
    return value


def target_of(action: Action) -> LocatorBundle:
    """The element an action acts on (asserted to have one)."""
    assert not isinstance(action, NavigateAction), f"{action.id} is a navigation"
    return present(action.target)


def action(draft: Draft, action_id: str) -> Action:
    """The draft's action with this id."""
    found = [a for a in draft.actions if a.id == action_id]
    assert len(found) == 1, f"{action_id}: {len(found)} actions"
    return found[0]
