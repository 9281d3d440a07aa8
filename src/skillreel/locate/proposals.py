"""A heal proposal's candidate draft: the approved draft with its healed steps retargeted (pure).

    candidate = proposed_draft(entry.draft, {"a4": healed_bundle})

The locators of the element a step really acted on are merged ahead of the step's approved ones,
never in their place (``model.locators.merge_heal`` keeps what the approved target is: its text
filter and item scope). Which bundles are clean enough to propose (the recorder's redaction) is the
caller's decision (``services.runs.heal_proposal``): this module only rewrites steps.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model.actions import Action, ExtractAction
from ..model.draft import Draft
from ..model.graph import replace_steps
from ..model.locators import LocatorBundle, merge_heal

__all__ = ["proposed_draft", "retarget"]


def proposed_draft(draft: Draft, healed: Mapping[str, LocatorBundle]) -> Draft:
    """``draft`` with each step named in ``healed`` (wherever it is in the graph) retargeted."""
    steps = {a.id: a for a in draft.walk() if a.id in healed}
    actions = replace_steps(draft.actions, {i: retarget(a, healed[i]) for i, a in steps.items()})
    return draft.evolve(actions=actions)


def retarget(action: Action, healed: LocatorBundle) -> Action:
    """The step with the healed element's locators merged ahead of its approved ones (never
    replaced; ``merge_heal`` keeps what the approved target is: its text filter and item scope).
    An extraction target stays content-free (no hash of what it reads), so it takes the healed
    locators without their text hashes."""
    if isinstance(action, ExtractAction):
        bare = healed.without_content(action.attribute)
        if bare is None:
            return action  # nothing content-free describes it: the proposal keeps the old target
        healed = bare
    approved = getattr(action, "target", None)
    bundle = merge_heal(approved, healed) if isinstance(approved, LocatorBundle) else healed
    data = {**action.to_json(), "target": bundle.to_json()}
    retargeted: Action = type(action).parse(data)
    return retargeted
