"""``rollback`` as a use case: a new draft from an older revision, reviewed like any draft, audited
with where it came from; revisions that do not exist and enabled skills are refused."""

from __future__ import annotations

from pathlib import Path

from skillreel.services.diffing import diff_skill
from skillreel.services.reviewing import review_skill
from skillreel.services.rolling_back import rollback_skill
from skillreel.services.showing import show_skill
from skillreel.store import Store
from tests.integration.services.store_checks import NAME, refused
from tests.support.factory import T1, proposal_for, record_run, seed


def _healed(store: Store) -> None:
    """1.0.0 at revision 2, validated by a run (3), a run that healed, the heal adopted as 1.0.1 at
    revision 4 (runs are not revisions)."""
    seed(store)
    review_skill(store, NAME, "alice", approve=True, expected_revision=store.get(NAME).revision)
    record_run(store, NAME)
    record_run(store, NAME, healed=True, proposal=proposal_for(store.get(NAME), T1))
    review_skill(
        store, NAME, "bob", approve=True, expected_revision=store.get(NAME).revision, heal_proposal=True
    )


def test_a_rollback_is_a_draft_that_needs_a_review(store: Store, skillreel_home: Path) -> None:
    _healed(store)
    error = refused(
        skillreel_home, "SR_RECORD_APPROVAL_REQUIRED", lambda: rollback_skill(store, NAME, 2, approve=False)
    )
    assert error.details["wouldChange"]["restoredVersion"] == "1.0.0"
    assert "(repeat with --expected-revision 4 --approve to do it)" in error.message
    unpinned = refused(
        skillreel_home, "SR_RECORD_REVISION_UNPINNED", lambda: rollback_skill(store, NAME, 2, approve=True), 2
    )
    assert f"run `skillreel rollback {NAME} --to 2 --expected-revision 4 --approve`" in unpinned.message
    result = rollback_skill(store, NAME, 2, approve=True, expected_revision=4).to_json()
    assert (result["status"], result["revision"], result["rolledBackTo"]) == ("draft", 5, 2)
    shown = show_skill(store, NAME).to_json()
    assert shown["status"] == "draft"
    assert shown["origin"]["revision"] == 2
    assert shown["digests"]["draft"] == store.revision(NAME, 2).draft.draft_digest
    event = store.audit_events(NAME)[-1]
    assert (event.kind, event.revision) == ("rollback", 5)
    assert event.digests["from"] == store.revision(NAME, 2).entry_digest
    pending = diff_skill(store, NAME).to_json()  # the rollback against the version it replaces
    assert (pending["from"]["version"], pending["to"]["label"]) == ("1.0.1", "draft")
    assert [s["id"] for s in pending["steps"]] == ["a4"]
    approved = review_skill(store, NAME, "carol", approve=True, expected_revision=store.get(NAME).revision)
    assert (approved.version, approved.bump) == ("1.0.2", "patch")
    record = show_skill(store, NAME).to_json()["provenance"][-1]
    assert (record["source"], record["rolledBackFrom"]) == ("rollback", 2)
    assert show_skill(store, NAME).to_json()["origin"] is None


def test_a_rollback_does_not_offer_an_adopted_heal_again(store: Store, skillreel_home: Path) -> None:
    _healed(store)
    assert store.heal_proposals(NAME) == []  # adopted: consumed
    rollback_skill(store, NAME, 2, approve=True, expected_revision=4)
    assert store.get(NAME).draft.draft_digest == store.revision(NAME, 2).draft.draft_digest
    assert store.heal_proposals(NAME) == []  # the restored draft's adopted proposal stays consumed
    assert show_skill(store, NAME).to_json()["healProposals"] == []


def test_a_rollback_to_a_missing_revision_is_refused(store: Store, skillreel_home: Path) -> None:
    _healed(store)
    refused(
        skillreel_home,
        "SR_RECORD_REVISION_NOT_FOUND",
        lambda: rollback_skill(store, NAME, 9, approve=True, expected_revision=store.get(NAME).revision),
    )
    current = refused(  # kept, and the current one: not "no earlier revision" (the guide's code)
        skillreel_home,
        "SR_RECORD_STATE_INVALID",
        lambda: rollback_skill(store, NAME, 4, approve=True, expected_revision=store.get(NAME).revision),
    )
    assert "revision 4 is the current one" in current.message
    refused(
        skillreel_home,
        "SR_RECORD_REVISION_CONFLICT",
        lambda: rollback_skill(store, NAME, 2, approve=True, expected_revision=3),
    )
    refused(
        skillreel_home,
        "SR_RECORD_NOT_FOUND",
        lambda: rollback_skill(
            store, "missing-skill", 1, approve=True, expected_revision=store.get("missing-skill").revision
        ),
    )


def test_a_rollback_to_a_revision_that_is_no_longer_kept_says_so(store: Store, skillreel_home: Path) -> None:
    import sqlite3

    _healed(store)
    db = sqlite3.connect(skillreel_home / "store.db")
    try:
        db.execute("DELETE FROM revisions WHERE name = ? AND revision = 2", (NAME,))
        db.commit()
    finally:
        db.close()
    error = refused(
        skillreel_home,
        "SR_RECORD_REVISION_NOT_FOUND",
        lambda: rollback_skill(store, NAME, 2, approve=True, expected_revision=store.get(NAME).revision),
    )
    assert "no longer kept" in error.message


def test_an_enabled_skill_is_revoked_before_a_rollback(store: Store, skillreel_home: Path) -> None:
    seed(store, status="enabled")
    refused(
        skillreel_home,
        "SR_RECORD_STATE_INVALID",
        lambda: rollback_skill(store, NAME, 1, approve=True, expected_revision=store.get(NAME).revision),
    )
