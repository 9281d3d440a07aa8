"""Trimming the audit log (``Store.trim_audit``, behind ``prune --approve``): the kept chain verifies
from its anchor, the anchor and the pinned revisions are themselves attested by the trim event, and
every way of hiding a removed event or a forged revision behind the anchor is detected."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillreel.errors import StoreError
from skillreel.model import lifecycle
from skillreel.model.policy import Policy, PolicySettings
from skillreel.store import AuditNote, Store
from skillreel.store import audit as store_audit
from tests.support.factory import T1, seed
from tests.support.readback import sql

NAME = "search-invoices"
LIMIT = 100  # the smallest maxAuditEvents a policy allows: trims above 90 events, down to 80


def read_anchor(home: Path) -> store_audit.Anchor | None:
    with sqlite3.connect(home / "store.db") as conn:
        return store_audit.read_anchor(conn)


def dump(home: Path) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    for table in ("entries", "revisions", "audit", "policy", "audit_anchor", "audit_pinned"):
        rows += sql(home, f"SELECT * FROM {table} ORDER BY 1")
    return rows


def fill(store: Store, total: int) -> None:
    """Failed-replay events until the kept log holds ``total`` events: as many as the limit lets in
    (it keeps 5 for the kill switch), then policy events, which it never refuses."""
    missing = total - store.audit_count()
    room = max(LIMIT - store_audit.headroom(store.policy()) - store.audit_count(), 0)
    notes = [
        AuditNote(kind="replay", name=NAME, outcome="failed", code="SR_REPLAY_UI_TIMEOUT")
        for _ in range(min(missing, room))
    ]
    store.audit_many(notes + [AuditNote(kind="policy")] * (missing - len(notes)))
    assert store.audit_count() == total


def verification(store: Store) -> dict[str, object]:
    return store.verify_audit().to_json()


@pytest.fixture
def store(skillreel_home: Path) -> Iterator[Store]:
    with Store.open() as opened:
        opened.set_policy(Policy.from_settings(PolicySettings(max_audit_events=LIMIT)))
        seed(opened, NAME, "validated")  # its revisions' events will be trimmed (pinned)
        yield opened


@pytest.fixture
def trimmed(store: Store, skillreel_home: Path) -> Store:
    fill(store, LIMIT)
    assert store.trim_audit() == 21
    return store


def test_nothing_is_trimmed_at_or_below_the_headroom(store: Store, skillreel_home: Path) -> None:
    fill(store, 90)
    before = dump(skillreel_home)
    assert store.trim_audit(dry_run=True) == 0
    assert store.trim_audit() == 0
    assert dump(skillreel_home) == before
    fill(store, 91)
    assert store.trim_audit(dry_run=True) == 91 - 79
    assert store.audit_count() == 91  # a dry run changes nothing


def test_a_trim_keeps_the_chain_verifiable_and_records_itself(trimmed: Store, skillreel_home: Path) -> None:
    events = trimmed.audit_events()
    assert trimmed.audit_count() == len(events) == 80
    assert events[0].seq == 22  # the policy event and 20 more were removed
    last = events[-1]
    assert (last.kind, last.name, last.revision, set(last.digests)) == ("prune", None, None, {"anchor"})
    anchor = read_anchor(skillreel_home)
    assert anchor is not None
    assert (anchor.first_seq, anchor.prev_digest) == (22, events[0].prev_digest)
    assert last.digests["anchor"] == anchor.digest
    assert anchor.pinned == {r[0] for r in sql(skillreel_home, "SELECT entry_digest FROM revisions")}
    assert verification(trimmed) == {"ok": True, "events": 80, "brokenAt": None}
    # Writing on goes on as before, and revisions written after the trim are attested as usual.
    entry = trimmed.update(
        NAME, lambda e: lifecycle.replace_draft(e, e.draft, e.events, T1), AuditNote(kind="record")
    )
    seed(trimmed, "another-skill")
    assert verification(trimmed)["ok"] is True
    # The limit counts kept events: 20 more fit before the log is full again.
    fill(trimmed, LIMIT)
    with pytest.raises(StoreError) as err:
        trimmed.audit(AuditNote(kind="replay"))
    assert err.value.code == "SR_RECORD_STORE_LIMIT"
    assert "skillreel prune --approve" in err.value.message
    # A second trim moves the anchor on; the pinned set follows what is still unattested.
    assert trimmed.trim_audit() == 21
    assert verification(trimmed) == {"ok": True, "events": 80, "brokenAt": None}
    second = read_anchor(skillreel_home)
    assert second is not None
    assert second.first_seq == 22 + 21
    assert second.pinned == anchor.pinned  # the update after the first trim is still attested by its event
    assert entry.entry_digest not in second.pinned
    trimmed.audit(AuditNote(kind="replay"))
    assert verification(trimmed)["ok"] is True


def test_the_full_log_message_says_how_to_trim(store: Store) -> None:
    fill(store, LIMIT)
    with pytest.raises(StoreError) as err:
        seed(store, "another-skill")
    assert err.value.code == "SR_RECORD_STORE_LIMIT"
    assert "run `skillreel prune --approve` to trim it" in err.value.message


def test_deleting_an_event_after_the_anchor_is_detected(trimmed: Store, skillreel_home: Path) -> None:
    sql(skillreel_home, "DELETE FROM audit WHERE seq = 50")
    assert verification(trimmed) == {"ok": False, "events": 79, "brokenAt": 50}


def test_deleting_the_first_kept_event_is_detected(trimmed: Store, skillreel_home: Path) -> None:
    sql(skillreel_home, "DELETE FROM audit WHERE seq = 22")
    assert verification(trimmed) == {"ok": False, "events": 79, "brokenAt": 22}


def test_moving_the_anchor_to_hide_a_removed_event_is_detected(trimmed: Store, skillreel_home: Path) -> None:
    # Remove the first kept event and move the anchor so that the rest of the chain links to it.
    (digest,) = sql(skillreel_home, "SELECT event_digest FROM audit WHERE seq = 22")[0]
    sql(skillreel_home, "DELETE FROM audit WHERE seq = 22")
    sql(skillreel_home, "UPDATE audit_anchor SET first_seq = 23, prev_digest = ?", digest)
    assert verification(trimmed) == {"ok": False, "events": 79, "brokenAt": 23}


@pytest.mark.parametrize(
    "statement",
    [
        "DELETE FROM audit_anchor",
        "UPDATE audit_anchor SET prev_digest = 'sha256:' || substr(prev_digest, 9, 63) || '0'",
        "INSERT INTO audit_pinned (entry_digest) VALUES ('sha256:' || printf('%064d', 7))",
        "DELETE FROM audit_pinned WHERE rowid = (SELECT MIN(rowid) FROM audit_pinned)",
        "DELETE FROM audit WHERE seq = (SELECT MAX(seq) FROM audit)",  # the trim event cut off the end
    ],
)
def test_a_tampered_anchor_is_detected(trimmed: Store, skillreel_home: Path, statement: str) -> None:
    sql(skillreel_home, statement)
    result = trimmed.verify_audit()
    assert not result.ok
    assert result.broken_at in (1, 22)  # no anchor: genesis; a wrong anchor: its first seq


def test_a_forged_revision_is_not_excused_by_the_anchor(trimmed: Store, skillreel_home: Path) -> None:
    forged = "sha256:" + "a" * 64
    sql(
        skillreel_home,
        "INSERT INTO revisions SELECT name, 99, status, '2000-01-01T00:00:00Z', ?, document "
        "FROM revisions WHERE name = ? AND revision = 1",
        forged,
        NAME,
    )
    assert verification(trimmed) == {"ok": False, "events": 80, "brokenAt": 102}


def test_a_trim_is_atomic(store: Store, skillreel_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fill(store, LIMIT)
    before = dump(skillreel_home)

    def fail(*args: object, **kwargs: object) -> None:
        raise StoreError("SR_RECORD_STORE_IO", "simulated failure after the events were deleted")

    monkeypatch.setattr(store_audit, "append", fail)
    with pytest.raises(StoreError, match="simulated"):
        store.trim_audit()
    assert dump(skillreel_home) == before
    monkeypatch.undo()
    assert verification(store) == {"ok": True, "events": LIMIT, "brokenAt": None}
    assert store.trim_audit() == 21


def test_a_damaged_chain_is_never_trimmed(store: Store, skillreel_home: Path) -> None:
    fill(store, LIMIT)
    sql(skillreel_home, "DELETE FROM audit WHERE seq = 5")
    before = dump(skillreel_home)
    with pytest.raises(StoreError) as err:
        store.trim_audit()
    assert err.value.code == "SR_RECORD_STORE_CORRUPT"
    assert dump(skillreel_home) == before
