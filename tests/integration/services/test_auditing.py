"""``audit`` as a use case: content-free events, newest last, a limit, a per-skill total, the chain."""

from __future__ import annotations

from skillreel.services.auditing import audit_log, verify_audit
from skillreel.store import Store
from tests.support.factory import seed


def test_audit_and_verify(store: Store) -> None:
    seed(store, "search-invoices", "revoked")
    events = audit_log(store).to_json()
    assert events["total"] == 5
    assert [e["kind"] for e in events["events"]] == ["record", "review", "validate", "enable", "revoke"]
    fields = {
        "schema",
        "seq",
        "kind",
        "name",
        "revision",
        "outcome",
        "code",
        "digests",
        "reviewer",
        "actor",
        "at",
        "prevDigest",
        "eventDigest",
    }
    assert all(set(e) == fields for e in events["events"])
    assert {e["actor"] for e in events["events"]} == {"cli"}
    assert events["unloggedRefusals"] == 0
    assert [e["seq"] for e in audit_log(store, limit=2).to_json()["events"]] == [4, 5]
    assert verify_audit(store).to_json() == {"ok": True, "events": 5, "brokenAt": None}


def test_audit_total_counts_only_the_named_skill(store: Store) -> None:
    seed(store, "search-invoices", "revoked")
    seed(store, "other", "draft")
    assert audit_log(store).to_json()["total"] == 6
    named = audit_log(store, "other").to_json()
    assert named["total"] == 1
    assert [e["name"] for e in named["events"]] == ["other"]
