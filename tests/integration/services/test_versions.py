"""Versions through the store: every approval is versioned, ``list`` and ``show`` say which, a heal
adopted is a patch in the provenance, and a store written before versions existed reads as 1.0.0."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from skillreel.model import lifecycle
from skillreel.model.actions import TypeAction, capability_manifest
from skillreel.model.draft import Parameter
from skillreel.model.refs import ParameterRef
from skillreel.services.listing import list_skills
from skillreel.services.reviewing import review_skill
from skillreel.services.showing import show_skill
from skillreel.store import AuditNote, Store
from tests.integration.services.store_checks import NAME, refused
from tests.support import factory
from tests.support.factory import T1, bundle, proposal_for, record_run, seed


def _record_again(store: Store, draft_change: dict[str, Any]) -> None:
    current = store.get(NAME)
    draft = current.draft.evolve(**draft_change)
    store.update(NAME, lambda e: lifecycle.replace_draft(e, draft, e.events, T1), AuditNote(kind="record"))


def test_each_approval_gets_the_next_version(store: Store) -> None:
    seed(store)
    first = review_skill(store, NAME, "alice", approve=True, expected_revision=store.get(NAME).revision)
    assert (first.version, first.bump) == ("1.0.0", "initial")
    assert list_skills(store).to_json()["skills"][0]["version"] == "1.0.0"
    draft = store.get(NAME).draft
    actions = (*draft.actions, TypeAction(id="a5", target=bundle("#note"), value=ParameterRef(name="note")))
    _record_again(
        store,
        {
            "actions": actions,
            "capabilities": capability_manifest(actions),
            "parameters": (*draft.parameters, Parameter(name="note", required=False)),
        },
    )
    assert list_skills(store).to_json()["skills"][0]["version"] is None  # a draft waits for review
    shown = show_skill(store, NAME).to_json()
    assert (shown["version"], shown["lastVersion"]) == (None, "1.0.0")
    second = review_skill(store, NAME, "bob", approve=True, expected_revision=store.get(NAME).revision)
    assert (second.version, second.bump) == ("1.1.0", "minor")
    provenance = show_skill(store, NAME).to_json()["provenance"]
    assert [(r["version"], r["source"], r["reviewer"]) for r in provenance] == [
        ("1.0.0", "review", "alice"),
        ("1.1.0", "review", "bob"),
    ]
    assert "optional input note added" in provenance[1]["reasons"]


def test_the_review_preview_names_the_version(store: Store, skillreel_home: Path) -> None:
    seed(store)
    error = refused(
        skillreel_home, "SR_RECORD_APPROVAL_REQUIRED", lambda: review_skill(store, NAME, "al", approve=False)
    )
    details = error.details["wouldChange"]
    assert (details["version"], details["bump"]) == ("1.0.0", "initial")
    assert "as version 1.0.0" in error.message


def test_an_adopted_heal_is_a_patch_with_its_history(store: Store) -> None:
    seed(store)
    review_skill(store, NAME, "alice", approve=True, expected_revision=store.get(NAME).revision)
    record_run(store, NAME)
    proposal = proposal_for(store.get(NAME), T1)
    record_run(store, NAME, healed=True, proposal=proposal)
    result = review_skill(
        store, NAME, "bob", approve=True, expected_revision=store.get(NAME).revision, heal_proposal=True
    )
    assert (result.version, result.bump) == ("1.0.1", "patch")
    record = show_skill(store, NAME).to_json()["provenance"][-1]
    assert record["source"] == "heal"
    assert record["healed"] == [{"step": "a4", "changed": ["locators"]}]
    assert proposal is not None
    assert record["proposedBy"] == proposal.report_digest


def test_a_store_from_before_versions_reads_as_1_0_0(skillreel_home: Path) -> None:
    with Store.open() as store:
        factory.seed(store, status="validated")
        factory.seed(store, "a-draft")
    db = sqlite3.connect(skillreel_home / "store.db")
    try:  # what a store written before migration 0009 looks like
        db.execute("ALTER TABLE entries DROP COLUMN version")
        db.execute("DELETE FROM schema_migrations WHERE name = '0009-entry-version'")
        db.commit()
    finally:
        db.close()
    with Store.open() as store:
        listed = {s["name"]: s["version"] for s in list_skills(store).to_json()["skills"]}
        assert listed == {NAME: "1.0.0", "a-draft": None}
        assert store.get(NAME).version == "1.0.0"
        _record_again(store, {"description": "Search invoices by customer name."})
        result = review_skill(store, NAME, "alice", approve=True, expected_revision=store.get(NAME).revision)
        assert (result.version, result.bump) == ("1.0.1", "patch")


def test_a_rejected_heal_proposal_is_dropped_and_audited(store: Store, skillreel_home: Path) -> None:
    from skillreel.services.reviewing import reject_heal_proposal

    seed(store)
    review_skill(store, NAME, "alice", approve=True, expected_revision=store.get(NAME).revision)
    refused(
        skillreel_home,
        "SR_RECORD_STATE_INVALID",
        lambda: reject_heal_proposal(store, NAME, "bob", approve=True),
    )
    record_run(store, NAME, healed=True, proposal=proposal_for(store.get(NAME), T1))
    rejected_digest = store.heal_proposals(NAME)[0].draft.draft_digest
    refused(
        skillreel_home,
        "SR_RECORD_APPROVAL_REQUIRED",
        lambda: reject_heal_proposal(store, NAME, "bob", approve=False),
    )
    refused(
        skillreel_home,
        "SR_RECORD_REVIEW_UNPINNED",
        lambda: reject_heal_proposal(store, NAME, "bob", approve=True),
        exit_status=2,
    )
    refused(
        skillreel_home,
        "SR_RECORD_REVISION_CONFLICT",
        lambda: reject_heal_proposal(store, NAME, "bob", approve=True, draft_digest="sha256:" + "0" * 64),
    )
    refused(
        skillreel_home,
        "SR_RECORD_USAGE",
        lambda: reject_heal_proposal(store, NAME, "bob", approve=True, draft_digest="not-a-digest"),
        exit_status=2,
    )
    result = reject_heal_proposal(store, NAME, "bob", approve=True, draft_digest=rejected_digest).to_json()
    assert result == {
        "name": NAME,
        "revision": 4,
        "healProposalRejected": True,
        "rejectedDraftDigest": rejected_digest,
    }
    entry = store.get(NAME)
    assert (store.heal_proposals(NAME), entry.version, entry.status) == ([], "1.0.0", "validated")
    event = store.audit_events(NAME)[-1]
    assert (event.kind, event.reviewer, event.digests["rejected"]) == ("review", "bob", rejected_digest)
