"""``prune`` as a use case: skills past the retention (never enabled ones) and, first, the oldest audit
events of a nearly full log; nothing without ``approve``; the chain still verifies (and still catches
an event removed after the trim's anchor)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from skillreel.errors import StoreError
from skillreel.model.policy import Policy, PolicySettings
from skillreel.services.auditing import audit_log, verify_audit
from skillreel.services.listing import list_skills
from skillreel.services.pruning import prune_skills
from skillreel.store import AuditNote, Store
from tests.integration.services.store_checks import NAME, refused
from tests.support.factory import seed

NOTHING = {"runs": 0, "revisions": 0, "healProposals": 0, "interrupted": 0}


def test_prune(store: Store, skillreel_home: Path) -> None:
    old = "2020-01-01T00:00:00Z"
    seed(store, "old-draft", "draft", now=old)
    seed(store, "old-but-enabled", "enabled", now=old)
    seed(store, "fresh", "draft", now=store.now())
    error = refused(skillreel_home, "SR_RECORD_APPROVAL_REQUIRED", lambda: prune_skills(store, approve=False))
    history = {**NOTHING, "revisions": 3}  # the enabled skill's revisions before its current one
    assert error.details["wouldChange"] == {
        "names": ["old-draft"],
        "retentionDays": 90,
        "auditTrimmed": 0,
        "trimmed": history,
        "installsRecovered": [],
    }
    assert prune_skills(store, approve=True).to_json() == {
        "pruned": [{"name": "old-draft", "revision": 1}],
        "retentionDays": 90,
        "auditTrimmed": 0,
        "trimmed": history,
        "installsRecovered": [],
    }
    assert prune_skills(store, approve=False).to_json() == {
        "pruned": [],
        "retentionDays": 90,
        "auditTrimmed": 0,
        "trimmed": NOTHING,
        "installsRecovered": [],
    }
    assert [s["name"] for s in list_skills(store).to_json()["skills"]] == ["fresh", "old-but-enabled"]
    assert [r.revision for r in store.revisions("old-but-enabled")] == [4]
    assert store.audit_events()[-1].to_json()["kind"] == "prune"
    assert verify_audit(store).to_json()["ok"] is True


def test_prune_trims_a_full_audit_log_and_the_chain_still_verifies(
    store: Store, skillreel_home: Path
) -> None:
    store.set_policy(Policy.from_settings(PolicySettings(max_audit_events=100)))
    seed(store, NAME, "validated")
    store.audit_many(  # as full as it gets: 5 events are kept for the kill switch
        [
            AuditNote(kind="replay", name=NAME, outcome="failed", code="SR_REPLAY_UI_TIMEOUT")
            for _ in range(95 - store.audit_count())
        ]
    )
    with pytest.raises(StoreError, match=r"run `skillreel prune --approve` to trim it"):
        store.audit(AuditNote(kind="replay"))

    error = refused(skillreel_home, "SR_RECORD_APPROVAL_REQUIRED", lambda: prune_skills(store, approve=False))
    # The old skill is past retention too: the trim comes first, so its prune event fits in the log.
    assert error.details["wouldChange"] == {
        "names": [NAME],
        "retentionDays": 90,
        "auditTrimmed": 16,
        "trimmed": NOTHING,
        "installsRecovered": [],
    }
    assert "trim the 16 oldest audit event(s)" in error.message
    assert verify_audit(store).to_json() == {"ok": True, "events": 95, "brokenAt": None}

    assert prune_skills(store, approve=True).to_json() == {
        "pruned": [{"name": NAME, "revision": 3}],
        "retentionDays": 90,
        "auditTrimmed": 16,
        "trimmed": NOTHING,
        "installsRecovered": [],
    }
    assert verify_audit(store).to_json() == {"ok": True, "events": 81, "brokenAt": None}
    listed = audit_log(store, limit=2).to_json()
    assert listed["total"] == 81
    assert [(e["kind"], e["name"]) for e in listed["events"]] == [("prune", None), ("prune", NAME)]
    assert prune_skills(store, approve=False).to_json() == {
        "pruned": [],
        "retentionDays": 90,
        "auditTrimmed": 0,
        "trimmed": NOTHING,
        "installsRecovered": [],
    }
    seed(store, "another-skill", "validated")  # the store changes again
    assert verify_audit(store).to_json() == {"ok": True, "events": 84, "brokenAt": None}

    with sqlite3.connect(skillreel_home / "store.db") as conn:
        conn.execute("DELETE FROM audit WHERE seq = 60")
    assert verify_audit(store).to_json() == {"ok": False, "events": 83, "brokenAt": 60}
