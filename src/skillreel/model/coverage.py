"""Whether a skill's side effects are followed by a check (pure; issue 33).

A skill that clicks "Refund" and stops has no proof the refund happened: a replay that reaches its
end succeeds whatever the page said. The last step that changes something a site keeps (a click, a
field edit, a choice, a key press, a dialog answer; a navigation by click is a click) should be
followed by a check: an assertion, a wait, an observation, or an extraction that fails on a page
that does not match (a typed read, a pattern or a set of values). ``review`` warns and ``show``
flags a skill whose last side effect is not; the policy's ``requireFinalCheck`` refuses to approve
it (``SR_RECORD_FINAL_CHECK_MISSING``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from .actions import Action, ExtractAction, walk

__all__ = ["FINAL_CHECK_MISSING", "SIDE_EFFECT_KINDS", "unchecked_side_effect"]

# What changes something a site keeps, or answers for the person (``upload``: a later kind).
SIDE_EFFECT_KINDS: Final = frozenset({"click", "type", "select", "choose", "press", "dialog", "upload"})
CHECK_KINDS: Final = frozenset({"assert", "wait", "observe"})

FINAL_CHECK_MISSING: Final = (
    "no check follows it: a replay that reaches the end succeeds whatever the page then says"
)


def _checks(action: Action) -> bool:
    if action.kind in CHECK_KINDS:
        return True
    if isinstance(action, ExtractAction):
        typed = action.type is not None and action.type != "string"
        return typed or action.pattern is not None or action.values is not None
    return False


def unchecked_side_effect(actions: Iterable[Action]) -> str | None:
    """The id of the skill's last side-effecting step when no check comes after it (in document
    order, blocks included), else None (no side effect, or one followed by a check)."""
    last: str | None = None
    for action in walk(actions):
        if action.kind in SIDE_EFFECT_KINDS:
            last = action.id
        elif last is not None and _checks(action):
            last = None
    return last
