"""Which step of one draft is which step of another, by what the steps do (issue 32 point 6). Pure.

Ids are no identity between two recordings: a step inserted in the middle renumbers every step
after it. So ``model.diff`` aligns two step lists (one level: a loop's body, a branch's arm) by a
**step key**: the step's kind, its target's identity and the value it types or chooses.

* Two targets are the same element when their candidates share a selector (strategy and
  selector); a candidate holding a salted hash (``role-name``, ``href``) counts only when both
  drafts hash with the same salt (``hashed``), as a skill's re-recordings do (a per-skill salt),
  else it could never match. A display name (issue 31, when bundles keep one) equal on both sides
  is the same element too. Two missing targets are the same.
* The value is the reference itself (``inputs.q``, ``steps.a5.total``, a literal), never a value.
* A navigation compares its URL; a key press its key; an assertion its check; an extraction its
  output; a wait what it waits for; a dialog its answer.

The alignment is the longest common subsequence of the two lists under "same key" (on a tie, the
earlier old steps stay: the step that moved is the later one). Between two aligned steps, what
is left of each side is paired once more, a step with the same id first, then one of the same kind
in order: those are the same step edited (a replaced target, a renamed input). What is still left
is matched across the whole list by key (a step that moved), and the rest is added or removed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Literal

from .actions import Action
from .locators import ElementSet, LocatorBundle

How = Literal["kept", "paired", "moved", "added", "removed"]


@dataclass(frozen=True)
class Aligned:
    """One row of an alignment: indexes into the old and the new list (None on the side that lacks it)."""

    old: int | None
    new: int | None
    how: How


def _selectors(target: LocatorBundle | ElementSet, hashed: bool) -> set[tuple[str, str]]:
    return {(c.strategy, c.selector) for c in target.candidates if hashed or c.text_hash is None}


def same_target(a: object, b: object, *, hashed: bool) -> bool:
    """Whether two targets (bundles, element sets, or None) designate the same element."""
    if a is None or b is None:
        return a is b
    if not isinstance(a, LocatorBundle | ElementSet) or not isinstance(b, LocatorBundle | ElementSet):
        return False
    name_a, name_b = getattr(a, "display_name", None), getattr(b, "display_name", None)
    if name_a is not None and name_a == name_b and a.fingerprint.role == b.fingerprint.role:
        return True
    return bool(_selectors(a, hashed) & _selectors(b, hashed))


_OWN_KEYS = ("url", "key", "check", "output", "until", "accept", "reason", "to", "collect")


def _plain(step: Action) -> dict[str, Any]:
    """What besides its target and nested steps says what a step does (its wire fields)."""
    data = step.to_json()
    found = {k: data.get(k) for k in _OWN_KEYS}
    found["value"] = data.get("value") or data.get("text")
    condition = data.get("condition")
    if isinstance(condition, dict):  # a branch: what it tests, without its target
        found["condition"] = {k: v for k, v in condition.items() if k != "target"}
    return found


def same_step(a: Action, b: Action, *, hashed: bool) -> bool:
    """Whether ``a`` and ``b`` do the same thing (their step keys are equal)."""
    if a.kind != b.kind or _plain(a) != _plain(b):
        return False
    for field in ("target", "items"):
        if not same_target(getattr(a, field, None), getattr(b, field, None), hashed=hashed):
            return False
    cond_a, cond_b = getattr(a, "condition", None), getattr(b, "condition", None)
    return same_target(getattr(cond_a, "target", None), getattr(cond_b, "target", None), hashed=hashed)


def _common(old: Sequence[Action], new: Sequence[Action], hashed: bool) -> list[tuple[int, int]]:
    """The longest common subsequence under :func:`same_step` (on a tie, skip the new step)."""
    n, m = len(old), len(new)
    same = [[same_step(a, b, hashed=hashed) for b in new] for a in old]
    length = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n):
        for j in range(m):
            length[i + 1][j + 1] = length[i][j] + 1 if same[i][j] else max(length[i][j + 1], length[i + 1][j])
    pairs: list[tuple[int, int]] = []
    i, j = n, m
    while i and j:
        if same[i - 1][j - 1] and length[i][j] == length[i - 1][j - 1] + 1:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif length[i][j - 1] >= length[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return pairs[::-1]


def _pair_gap(
    old: Sequence[Action], new: Sequence[Action], olds: list[int], news: list[int]
) -> list[Aligned]:
    """Pair what is left between two aligned steps: the same id first, then the same kind in order."""
    found: list[Aligned] = []
    for rule in ("id", "kind"):
        for j in list(news):
            match = next((i for i in olds if getattr(old[i], rule) == getattr(new[j], rule)), None)
            if match is not None:
                found.append(Aligned(match, j, "paired"))
                olds.remove(match)
                news.remove(j)
    return found


def align(old: Sequence[Action], new: Sequence[Action], *, hashed: bool) -> list[Aligned]:
    """Every step of both lists, aligned (see the module docstring); in no particular order."""
    common = _common(old, new, hashed)
    rows = [Aligned(i, j, "kept") for i, j in common]
    left_old: list[int] = []
    left_new: list[int] = []
    bounds = [(-1, -1), *common, (len(old), len(new))]
    for (i0, j0), (i1, j1) in pairwise(bounds):
        olds, news = list(range(i0 + 1, i1)), list(range(j0 + 1, j1))
        rows += _pair_gap(old, new, olds, news)
        left_old += olds
        left_new += news
    for j in list(left_new):
        match = next((i for i in left_old if same_step(old[i], new[j], hashed=hashed)), None)
        if match is not None:
            rows.append(Aligned(match, j, "moved"))
            left_old.remove(match)
            left_new.remove(j)
    rows += [Aligned(i, None, "removed") for i in left_old]
    rows += [Aligned(None, j, "added") for j in left_new]
    return rows
