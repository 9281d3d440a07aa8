"""A heal proposal's candidate draft: the approved draft with its healed steps retargeted (pure).

    candidate = proposed_draft(entry.draft, {"a4": healed_bundle})

The locators of the element a step really acted on are merged ahead of the step's approved ones,
never in their place (``model.locators.merge_heal`` keeps what the approved target is: its text
filter and item scope). Which bundles are clean enough to propose (the recorder's redaction) is the
caller's decision (``services.runs.heal_proposal``): this module only rewrites steps.

A rank proposal (issue 33) reorders instead: a step whose target a lower-ranked locator found, while
the ones above it found nothing that agrees, in ``RANK_RUNS`` runs of the same draft or more
(:func:`rank_promotions` over the runs' ``matchedRanks``), gets that locator moved to the top
(:func:`reranked_draft`); nothing is added or dropped. It is reviewed and adopted as heals are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Final

from ..model.actions import Action, ExtractAction
from ..model.draft import Draft
from ..model.graph import replace_steps
from ..model.locators import LocatorBundle, merge_heal

__all__ = ["RANK_RUNS", "proposed_draft", "rank_promotions", "reranked_draft", "retarget"]

RANK_RUNS: Final = 3  # runs in which a lower locator found the target before its ranks are reordered


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


def rank_promotions(runs: Iterable[Mapping[str, int]], at_least: int = RANK_RUNS) -> dict[str, int]:
    """The steps whose target the same lower-ranked locator found in ``at_least`` of ``runs`` (each
    a run's ``matchedRanks``: step id -> rank), with that rank (the most frequent, when several
    are)."""
    counts: Counter[tuple[str, int]] = Counter()
    for ranks in runs:
        counts.update(ranks.items())
    promoted: dict[str, int] = {}
    for (step, rank), n in counts.most_common():
        if n >= at_least and step not in promoted:
            promoted[step] = rank
    return promoted


def reranked_draft(draft: Draft, promotions: Mapping[str, int]) -> Draft:
    """``draft`` with each promoted step's locator at that rank moved to the top of its target's
    candidates (the others keep their order). A step without such a candidate is left as it is."""
    replaced: dict[str, Action] = {}
    for action in draft.walk():
        rank = promotions.get(action.id)
        target = getattr(action, "target", None)
        if rank is None or not isinstance(target, LocatorBundle) or not 0 < rank < len(target.candidates):
            continue
        moved = (target.candidates[rank], *target.candidates[:rank], *target.candidates[rank + 1 :])
        bundle = target.model_copy(update={"candidates": moved})
        replaced[action.id] = type(action).parse({**action.to_json(), "target": bundle.to_json()})
    return draft.evolve(actions=replace_steps(draft.actions, replaced)) if replaced else draft
