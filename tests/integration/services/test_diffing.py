"""``diff`` as a use case: its defaults, explicit sides, and refusals of sides that do not exist."""

from __future__ import annotations

from pathlib import Path

from skillreel.services.diffing import diff_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.integration.services.store_checks import NAME, refused
from tests.support.factory import T1, proposal_for, record_run, seed


def _validated_with_proposal(store: Store) -> None:
    seed(store)
    review_skill(store, NAME, "alice", approve=True, expected_revision=store.get(NAME).revision)
    record_run(store, NAME)
    record_run(store, NAME, healed=True, proposal=proposal_for(store.get(NAME), T1))


def test_the_default_is_the_heal_proposal_against_the_approved_version(store: Store) -> None:
    _validated_with_proposal(store)
    data = diff_skill(store, NAME).to_json()
    assert (data["from"]["label"], data["from"]["version"], data["to"]["label"]) == (
        "approved",
        "1.0.0",
        "proposal",
    )
    assert [(s["id"], s["categories"]) for s in data["steps"]] == [("a4", ["locators"])]
    assert (data["bump"], data["nextVersion"]) == ("patch", "1.0.1")


def test_a_new_draft_is_compared_with_nothing_before_the_first_approval(store: Store) -> None:
    seed(store)
    data = diff_skill(store, NAME).to_json()
    assert data["from"]["label"] == "nothing"
    assert {s["change"] for s in data["steps"]} == {"added"}
    assert data["nextVersion"] == "1.0.0"


def test_explicit_sides_and_an_accepted_heal(store: Store) -> None:
    _validated_with_proposal(store)
    review_skill(
        store, NAME, "bob", approve=True, expected_revision=store.get(NAME).revision, heal_proposal=True
    )
    last = diff_skill(store, NAME).to_json()  # nothing pending: the last version against the one before
    assert (last["from"]["version"], last["to"]["version"]) == ("1.0.0", "1.0.1")
    assert [s["id"] for s in last["steps"]] == ["a4"]
    same = diff_skill(store, NAME, "2", "3").to_json()
    assert same["sameDraft"]
    assert same["steps"] == []
    back = diff_skill(store, NAME, "current", "1").to_json()
    assert [s["id"] for s in back["steps"]] == ["a4"]


def test_sides_that_do_not_exist_are_refused(store: Store, skillreel_home: Path) -> None:
    seed(store)
    refused(skillreel_home, "SR_RECORD_REVISION_NOT_FOUND", lambda: diff_skill(store, NAME, "7"))
    refused(skillreel_home, "SR_RECORD_STATE_INVALID", lambda: diff_skill(store, NAME, "1", "proposal"))
    refused(skillreel_home, "SR_RECORD_REVISION_NOT_FOUND", lambda: diff_skill(store, NAME, "approved"))
    refused(skillreel_home, "SR_RECORD_USAGE", lambda: diff_skill(store, NAME, "HEAD~1"), exit_status=2)
    refused(skillreel_home, "SR_RECORD_NOT_FOUND", lambda: diff_skill(store, "missing-skill"))
    refused(skillreel_home, "SR_RECORD_NAME_INVALID", lambda: diff_skill(store, "Bad Name"), exit_status=2)
