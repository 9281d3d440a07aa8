"""A full audit log through the real console script: the refusal says how to trim, ``prune`` says how
many events it would trim, ``prune --approve`` trims them, and ``audit --verify`` still holds (and
still catches an event removed after the anchor)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from skillreel.errors import StoreError
from skillreel.model.policy import Policy, PolicySettings
from skillreel.store import AuditNote, Store
from tests.cli import cli, ok, refused
from tests.factory import seed

NAME = "search-invoices"


def test_prune_trims_a_full_audit_log_and_the_chain_still_verifies(skillreel_home: Path) -> None:
    with Store.open() as store:
        store.set_policy(Policy.from_settings(PolicySettings(max_audit_events=100)))
        seed(store, NAME, "validated")
        store.audit_many([AuditNote(kind="replay", name=NAME, outcome="failed", code="SR_REPLAY_UI_TIMEOUT")
                          for _ in range(100 - store.audit_count())])
        with pytest.raises(StoreError, match=r"run `skillreel prune --approve` to trim it"):
            store.audit(AuditNote(kind="replay"))

    error = refused(skillreel_home, "prune", code="SR_RECORD_APPROVAL_REQUIRED")
    # The old skill is past retention too: the trim comes first, so its prune event fits in the log.
    assert error["details"]["wouldChange"] == {"names": [NAME], "retentionDays": 90, "auditTrimmed": 21}
    assert "trim the 21 oldest audit event(s)" in error["message"]
    assert ok(skillreel_home, "audit", "--verify") == {"ok": True, "events": 100, "brokenAt": None}

    assert ok(skillreel_home, "prune", "--approve") == {"pruned": [{"name": NAME, "revision": 3}],
                                                       "retentionDays": 90, "auditTrimmed": 21}
    assert ok(skillreel_home, "audit", "--verify") == {"ok": True, "events": 81, "brokenAt": None}
    listed = ok(skillreel_home, "audit", "--limit", "2")
    assert listed["total"] == 81
    assert [(e["kind"], e["name"]) for e in listed["events"]] == [("prune", None), ("prune", NAME)]
    assert ok(skillreel_home, "prune") == {"pruned": [], "retentionDays": 90, "auditTrimmed": 0}
    with Store.open() as store:
        seed(store, "another-skill", "validated")  # the store changes again
    assert ok(skillreel_home, "audit", "--verify") == {"ok": True, "events": 84, "brokenAt": None}

    with sqlite3.connect(skillreel_home / "store.db") as conn:
        conn.execute("DELETE FROM audit WHERE seq = 60")
    result = cli(skillreel_home, "audit", "--verify")
    assert result.exit_code == 1
    assert result.json() == {"ok": False, "events": 83, "brokenAt": 60, "code": "SR_RECORD_STORE_CORRUPT"}
