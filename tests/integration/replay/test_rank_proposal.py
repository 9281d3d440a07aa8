"""Locator ranks that learn (issue 33), in real Chromium: a button whose first locator broke (its
test id was renamed) is still found by its second (its id), and each run records that rank in its
row (``matchedRanks``, a strategy index, no content); after three such runs of the draft the third
leaves a heal proposal that moves the working locator to the top, reviewed and adopted as heals
are, after which the target is found by its first locator again. On main no run recorded which
locator matched and no proposal was made."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from skillreel.model.actions import Action, AssertAction, ClickAction, NavigateAction
from skillreel.services.replaying import ReplayOutcome, ReplayRequest, replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.support.describe import describe_on
from tests.support.factory import graph_draft, store_approved, url_environment
from tests.support.live_server import LiveServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><head><title>Orders</title></head><body><main><h1>Orders</h1>
<button id="save" data-testid="{testid}" type="button"
 onclick="document.getElementById('out').textContent = 'Saved'">Save</button>
<p id="out"></p></main></body></html>"""


@pytest.fixture
def live() -> Iterator[LiveServer]:
    with LiveServer() as server:
        yield server


async def play(store: Store, sessions: WarmSessions) -> ReplayOutcome:
    request = ReplayRequest(name="save", inputs={}, timeout_ms=3_000, heal=False)
    outcome = await replay_skill(store, request, session_factory=sessions)
    assert outcome.error is None, outcome.error
    return outcome


async def test_a_lower_locator_that_keeps_working_is_proposed_first(
    live: LiveServer, store: Store, sessions: WarmSessions
) -> None:
    live.pages["/"] = PAGE.format(testid="save-order")
    url = live.url("/")
    environment = url_environment(url)
    b = await describe_on(environment, {"save": "#save", "out": "#out"})
    strategies = [c.strategy for c in b["save"].candidates]
    assert strategies[0] == "testid"
    actions: list[Action] = [
        NavigateAction(id="a1", url=url),
        ClickAction(id="a2", target=b["save"]),
        AssertAction(id="a3", check="text_contains", target=b["out"].without_content(), expected="Saved"),
    ]
    store_approved(store, graph_draft(actions, name="save", environment=environment))
    live.pages["/"] = PAGE.format(testid="order-save")  # the test id was renamed: rank 0 finds nothing

    for n in (1, 2, 3):
        outcome = await play(store, sessions)
        run = store.run(str(outcome.run_id))
        assert run is not None
        assert run.record.matched_ranks == {"a2": 1}
        proposals = store.heal_proposals("save")
        assert len(proposals) == (1 if n == 3 else 0)
    (proposal,) = proposals
    assert proposal.healed_actions == ("a2",)
    moved = proposal.draft.action("a2")
    assert [c.strategy for c in moved.target.candidates] == [strategies[1], strategies[0], *strategies[2:]]  # type: ignore[union-attr]

    entry = store.get("save")
    review_skill(
        store, "save", "alice", approve=True, heal_proposal=True, draft_digest=proposal.draft.draft_digest
    )
    assert store.get("save").draft.draft_digest == proposal.draft.draft_digest != entry.draft.draft_digest
    outcome = await play(store, sessions)
    run = store.run(str(outcome.run_id))
    assert run is not None
    assert run.record.matched_ranks is None  # the first locator finds it now
