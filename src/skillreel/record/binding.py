"""PURE binding of a recorded click's target to an input (``skillreel edit``'s ``bind-target``).

A reviewer who knows that a click was "the row of the customer I searched for" says so; the
recorder could not see it (the value was not typed, or the clicked element did not show it). The
binding is derived from what the recorder stored, never from page text: the target's structural
CSS path (``fingerprint.js``'s ``cssPath``: tags, positions and an anchoring id, joined by ``>``).

* ``over: "elements"``: the elements like this one are the path without its positions (a table
  cell keeps its column); the target becomes the one of them whose text holds the input as a whole
  token, by structure only (``locators.structure_only``);
* ``over: "rows"``: the row is the nearest step of the path above the element that is a table row,
  a list item or a repeated element (a position), excluding cells; the rows are the path down to it
  without its position, and the element is found in the one row whose text holds the input, by the
  rest of the path, its role and its name (``locators.in_row``).

A path that gives no such set or row is refused (:class:`BindProblem`), nothing guessed. The sets
derived here carry ``matchCount: 0``: how many elements they held when recorded is not known.
"""

from __future__ import annotations

import re
from typing import Any, Final, Literal

from ..model.locators import (
    ElementSet,
    Fingerprint,
    LocatorBundle,
    LocatorCandidate,
    in_row,
    structure_only,
)
from ..model.refs import ParameterRef, TextFilter

Over = Literal["elements", "rows"]

_STEP: Final = re.compile(r"^(#[^\s>]+|[a-z][a-z0-9-]*(?::nth-of-type\(\d+\))?)$")
_POSITION: Final = re.compile(r":nth-of-type\(\d+\)$")
_CELLS: Final = frozenset({"td", "th"})
_ROWS: Final = frozenset({"tr", "li"})


class BindProblem(ValueError):
    """The target cannot be bound as asked (the message says why; no page text in it)."""


def _path(bundle: LocatorBundle) -> list[str]:
    """The steps of the target's structural CSS path (the last plain ``css`` candidate)."""
    for candidate in reversed(bundle.candidates):
        steps = candidate.selector.split(" > ")
        if candidate.strategy == "css" and all(_STEP.fullmatch(s) for s in steps):
            return steps
    raise BindProblem("its target has no structural path to find like elements by")


def _tag(step: str) -> str:
    return _POSITION.sub("", step)


def _candidate(selector: str, count: int = 0) -> LocatorCandidate:
    return LocatorCandidate(strategy="css", selector=selector, match_count=count)


def bound_target(bundle: LocatorBundle, parameter: str, over: Over) -> dict[str, Any]:
    """The wire form of ``bundle`` chosen by input ``parameter`` over ``over`` (see the module)."""
    chooser = TextFilter(contains_token=ParameterRef(name=parameter))
    return bound(bundle, over).model_copy(update={"filter": chooser}).to_json()


def bound(bundle: LocatorBundle, over: Over) -> LocatorBundle:
    """``bundle`` as a target to be chosen by an input over ``over``, its input not yet named (the
    recorder names it by the edit that typed it; :func:`bound_target` by a parameter)."""
    if bundle.filter is not None or bundle.row is not None:
        raise BindProblem("its target is already chosen by an input")
    if bundle.within is not None:
        raise BindProblem("its target is relative to a loop item")
    steps = _path(bundle)
    if over == "elements":
        like = [s if _tag(s) in _CELLS else _tag(s) for s in steps]
        return LocatorBundle(
            candidates=(_candidate(" > ".join(like)),), fingerprint=structure_only(bundle.fingerprint)
        )
    at = _row_step(steps)
    below = steps[at + 1 :]
    path = bundle.fingerprint.parent_path
    row = ElementSet(
        candidates=(_candidate(" > ".join([*steps[:at], _tag(steps[at])])),),
        fingerprint=Fingerprint(tag=_tag(steps[at]), parent_path=path[len(below) :]),
    )
    own = [c for c in bundle.candidates if c.strategy == "role-name" and " >>> " not in c.selector]
    return LocatorBundle(
        candidates=(*own, _candidate(":scope > " + " > ".join(below), 1)),
        fingerprint=in_row(bundle.fingerprint),
        row=row,
    )


def _row_step(steps: list[str]) -> int:
    """The index of the nearest row step above the element (see the module docstring)."""
    for at in range(len(steps) - 2, -1, -1):
        tag = _tag(steps[at])
        if tag in _CELLS or steps[at].startswith("#"):
            continue
        if tag in _ROWS or steps[at] != tag:
            return at
    raise BindProblem("its target's path shows no row (a table row, a list item, a repeated element)")
