"""Events cut off the end of the audit log are detected (issue 11, item 5): the store keeps the chain
head (the last event's seq and digest, moved with every append) beside the log, so deleting the
newest events leaves a head that no longer agrees, even when the deleted events attested nothing that
is still kept (refusals, failed runs' ends, exports). Deleting or editing the head is detected too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from skillreel.store import AuditNote, Store
from tests.support.factory import record_run, seed
from tests.support.readback import sql

NAME = "search-invoices"


@pytest.fixture
def store(skillreel_home: Path) -> Iterator[Store]:
    with Store.open() as opened:
        seed(opened, NAME, "validated")
        for outcome in ("succeeded", "failed", "cancelled"):
            record_run(opened, NAME, outcome)
        for _ in range(12):  # refusals and exports attest nothing that is kept
            opened.audit_refusal(
                AuditNote(
                    kind="replay-refused", name=NAME, outcome="failed", code="SR_REPLAY_PARAMETER_UNKNOWN"
                )
            )
        opened.audit(AuditNote(kind="export", name=NAME, revision=3))
        assert opened.verify_audit().ok
        yield opened


@pytest.mark.parametrize("cut", [1, 2, 10])
def test_deleting_the_newest_events_is_detected(store: Store, skillreel_home: Path, cut: int) -> None:
    total = store.audit_count()
    sql(skillreel_home, "DELETE FROM audit WHERE seq > ?", total - cut)
    result = store.verify_audit().to_json()
    assert result == {"ok": False, "events": total - cut, "brokenAt": total - cut + 1}


def test_deleting_every_event_is_detected(store: Store, skillreel_home: Path) -> None:
    sql(skillreel_home, "DELETE FROM revisions WHERE name != ?", "x")  # nothing left to attest either
    sql(skillreel_home, "DELETE FROM runs")
    sql(skillreel_home, "DELETE FROM entries")
    sql(skillreel_home, "DELETE FROM audit")
    assert store.verify_audit().to_json() == {"ok": False, "events": 0, "brokenAt": 1}


def test_deleting_the_head_with_the_tail_is_detected(store: Store, skillreel_home: Path) -> None:
    total = store.audit_count()
    sql(skillreel_home, "DELETE FROM audit WHERE seq > ?", total - 2)
    sql(skillreel_home, "DELETE FROM audit_head")
    assert store.verify_audit().to_json() == {"ok": False, "events": total - 2, "brokenAt": total - 1}


def test_an_event_appended_behind_the_heads_back_is_detected(store: Store, skillreel_home: Path) -> None:
    total = store.audit_count()
    sql(skillreel_home, "UPDATE audit_head SET seq = seq - 1")
    assert store.verify_audit().to_json() == {"ok": False, "events": total, "brokenAt": total}
    sql(skillreel_home, "UPDATE audit_head SET seq = seq + 1, event_digest = 'sha256:' || printf('%064d', 0)")
    assert store.verify_audit().to_json() == {"ok": False, "events": total, "brokenAt": total}


def test_the_head_moves_with_every_append_and_a_trim(store: Store, skillreel_home: Path) -> None:
    last = store.audit_events()[-1]
    assert sql(skillreel_home, "SELECT seq, event_digest FROM audit_head") == [(last.seq, last.event_digest)]
    store.audit(AuditNote(kind="export", name=NAME, revision=3))
    last = store.audit_events()[-1]
    assert sql(skillreel_home, "SELECT seq, event_digest FROM audit_head") == [(last.seq, last.event_digest)]
    assert store.verify_audit().ok
