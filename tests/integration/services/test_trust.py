"""The trust score from run history, over a real store (issue 33): computed by one query over the
run rows of each skill's current draft (no write of its own), shown by ``list``, ``show``, the MCP
listing (``enabled_skills``) and SKILL.md's "Track record" line at ``enable``. On main no trust
score existed. The real MCP server on a real page: tests/integration/mcp/test_trust.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillreel.agent_skills.package import SKILL_MD
from skillreel.model.runs import StepTally
from skillreel.record.edits import EditPatch
from skillreel.services.agent_access import enabled_skills
from skillreel.services.editing import edit_skill
from skillreel.services.listing import list_skills
from skillreel.services.packaging import enable_skill
from skillreel.services.runs import end_run
from skillreel.services.showing import show_skill
from skillreel.store import Store
from tests.support import factory

GOOD, BAD = "good-skill", "bad-skill"


def runs(store: Store, name: str, *ends: tuple[str, str | None, bool]) -> None:
    """Runs of ``name``'s current draft, oldest first: (outcome, code, healed)."""
    for outcome, code, healed in ends:
        run = factory.started_run(store, name)
        tally = StepTally(steps_run=1, healed_steps=("a1",) if healed else ())
        report = factory.report_for(store.get(name), healed=healed) if outcome == "succeeded" else None
        assert end_run(store, run, outcome, tally, code=code, report=report).recorded  # type: ignore[arg-type]


@pytest.fixture
def two(store: Store) -> Store:
    factory.seed(store, GOOD, "validated")
    factory.seed(store, BAD, "validated")
    ok: tuple[str, str | None, bool] = ("succeeded", None, False)
    runs(store, GOOD, ok, ("succeeded", None, True), ok)
    runs(
        store,
        BAD,
        ok,
        ("failed", "SR_REPLAY_UI_TARGET_NOT_FOUND", False),
        ("failed", "SR_REPLAY_UI_ASSERTION_FAILED", False),
        ("cancelled", "SR_REPLAY_CANCELLED", False),
    )
    return store


def test_the_store_scores_each_current_draft_from_its_runs(two: Store) -> None:
    scores = {name: score.to_json() for name, score in two.trust().items()}
    assert scores[GOOD]["runs"] == 3
    assert (scores[GOOD]["successRate"], scores[GOOD]["heals"], scores[GOOD]["lastFailureCode"]) == (
        1.0,
        1,
        None,
    )
    assert scores[GOOD]["lastSuccessAt"] is not None
    # a cancelled run counts as a run, not in the success rate: 1 of 3
    assert (scores[BAD]["runs"], scores[BAD]["recentRuns"], scores[BAD]["successRate"]) == (4, 3, 0.33)
    assert scores[BAD]["lastFailureCode"] == "SR_REPLAY_UI_ASSERTION_FAILED"  # the newest failure
    assert set(two.trust(GOOD)) == {GOOD}


def test_a_new_draft_starts_a_new_record(two: Store) -> None:
    """Runs of an older draft are not the new draft's record (the trust is per approved draft)."""
    step = two.get(GOOD).draft.actions[0].id
    patch = EditPatch.parse(
        {"schema": "skillreel.edit/v1", "edits": [{"op": "set-step", "step": step, "intent": "Open it."}]}
    )
    edit_skill(two, GOOD, patch, expected_revision=two.get(GOOD).revision)
    assert GOOD not in two.trust()
    assert show_skill(two, GOOD).to_json()["trust"]["runs"] == 0


def test_list_show_and_the_mcp_listing_carry_the_score(two: Store, project_dir: Path) -> None:
    listed = {s["name"]: s["trust"] for s in list_skills(two).to_json()["skills"]}
    assert (listed[GOOD]["successRate"], listed[BAD]["successRate"]) == (1.0, 0.33)
    shown = show_skill(two, BAD).to_json()["trust"]
    assert shown == listed[BAD]
    for name in (GOOD, BAD):
        enable_skill(
            two, name, "project", project_dir, approve=True, expected_revision=two.get(name).revision
        )
    agent = {s["name"]: s["trust"] for s in enabled_skills(two).to_json()["skills"]}
    assert agent[GOOD]["successRate"] > agent[BAD]["successRate"]
    assert agent[BAD]["lastFailureCode"] == "SR_REPLAY_UI_ASSERTION_FAILED"


def test_skill_md_says_the_track_record_when_enabled(two: Store, project_dir: Path) -> None:
    enable_skill(two, BAD, "project", project_dir, approve=True, expected_revision=two.get(BAD).revision)
    text = (project_dir / ".agents" / "skills" / BAD / SKILL_MD).read_text(encoding="utf-8")
    (line,) = [line for line in text.splitlines() if line.startswith("Track record")]
    assert line.startswith("Track record when enabled: 4 runs, 33% of the last 3 succeeded, last success ")
    assert line.endswith(", last failure SR_REPLAY_UI_ASSERTION_FAILED.")
