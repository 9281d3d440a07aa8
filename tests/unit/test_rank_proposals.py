"""The rank proposal's pure rule (``locate.proposals``): a step whose target the same lower-ranked
locator found in three runs gets that locator moved to the top, nothing added or dropped."""

from __future__ import annotations

from skillreel.locate.proposals import RANK_RUNS, rank_promotions, reranked_draft
from skillreel.model.actions import ClickAction, NavigateAction
from skillreel.model.locators import LocatorCandidate
from tests.support import factory


def test_three_runs_of_the_same_rank_promote_it() -> None:
    assert RANK_RUNS == 3
    assert rank_promotions([{"a2": 1}, {"a2": 1}]) == {}
    assert rank_promotions([{"a2": 1}, {"a2": 1}, {"a2": 1, "a4": 2}]) == {"a2": 1}
    assert rank_promotions([{"a2": 1}, {"a2": 2}, {"a2": 1}]) == {}  # not the same locator


def test_the_promoted_locator_moves_to_the_top() -> None:
    target = factory.target("#save", tag="button")
    extra = LocatorCandidate(strategy="css", selector="main > button", match_count=1)
    target = target.model_copy(update={"candidates": (*target.candidates, extra)})
    draft = factory.graph_draft(
        [NavigateAction(id="a1", url="https://app.test/"), ClickAction(id="a2", target=target)]
    )
    moved = reranked_draft(draft, {"a2": len(target.candidates) - 1}).action("a2")
    assert moved.target.candidates == (extra, *target.candidates[:-1])  # type: ignore[union-attr]
    assert reranked_draft(draft, {"a2": 9}) == draft  # no such rank: unchanged
    assert reranked_draft(draft, {}) == draft
