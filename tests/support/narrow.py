"""Typed access to optional and union-typed fields in assertions: each helper asserts what the test
expects (a value is there, an action is of this kind) and hands back the narrowed value, so tests
need no ``# type: ignore``."""

from __future__ import annotations

from typing import TypeVar

from skillreel.model.actions import Action
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


def target_of(action: Action | None) -> LocatorBundle:
    """The element an action acts on (asserted to be an action that has one)."""
    assert action is not None
    target = getattr(action, "target", None)
    assert isinstance(target, LocatorBundle | None), f"{action.id} ({action.kind}) has no target"
    return present(target)
