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


@dataclass(frozen=True)
class _Target:
    """What identifies a target: its candidate selectors (salted ones only when ``hashed``), its
    display name (issue 31, when bundles keep one) and its role."""

    selectors: frozenset[tuple[str, str]]
    name: str | None
    role: str | None

    def same(self, other: _Target) -> bool:
        if self.name is not None and self.name == other.name and self.role == other.role:
            return True
        return bool(self.selectors & other.selectors)


def _target(target: object, hashed: bool) -> _Target | None:
    if not isinstance(target, LocatorBundle | ElementSet):
        return None
    selectors = frozenset(
        (c.strategy, c.selector) for c in target.candidates if hashed or c.text_hash is None
    )
    name = getattr(target, "display_name", None)
    return _Target(selectors, name if isinstance(name, str) else None, target.fingerprint.role)


_OWN_KEYS = ("url", "key", "check", "output", "until", "accept", "reason", "to", "collect")


@dataclass(frozen=True)
class StepKey:
    """A step's key: its kind, what besides its targets says what it does (wire fields, the value
    reference), and its targets (its own, its items, a branch condition's)."""

    kind: str
    plain: dict[str, Any]
    targets: tuple[_Target | None, ...]

    def same(self, other: StepKey) -> bool:
        if self.kind != other.kind or self.plain != other.plain:
            return False
        for a, b in zip(self.targets, other.targets, strict=True):
            if (a is None) != (b is None) or (a is not None and b is not None and not a.same(b)):
                return False
        return True


def step_key(step: Action, *, hashed: bool) -> StepKey:
    data = step.to_json()
    plain = {k: data.get(k) for k in _OWN_KEYS}
    plain["value"] = data.get("value") or data.get("text")
    condition = data.get("condition")
    if isinstance(condition, dict):  # a branch: what it tests, without its target
        plain["condition"] = {k: v for k, v in condition.items() if k != "target"}
    targets = (
        getattr(step, "target", None),
        getattr(step, "items", None),
        getattr(getattr(step, "condition", None), "target", None),
    )
    return StepKey(step.kind, plain, tuple(_target(t, hashed) for t in targets))


def same_step(a: Action, b: Action, *, hashed: bool) -> bool:
    """Whether ``a`` and ``b`` do the same thing (their step keys are equal)."""
    return step_key(a, hashed=hashed).same(step_key(b, hashed=hashed))


def _common(same: list[list[bool]], n: int, m: int) -> list[tuple[int, int]]:
    """The longest common subsequence under ``same`` (on a tie, skip the new step)."""
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
    old_keys = [step_key(a, hashed=hashed) for a in old]
    new_keys = [step_key(b, hashed=hashed) for b in new]
    same = [[a.same(b) for b in new_keys] for a in old_keys]
    common = _common(same, len(old), len(new))
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
        match = next((i for i in left_old if same[i][j]), None)
        if match is not None:
            rows.append(Aligned(match, j, "moved"))
            left_old.remove(match)
            left_new.remove(j)
    rows += [Aligned(i, None, "removed") for i in left_old]
    rows += [Aligned(None, j, "added") for j in left_new]
    return rows
