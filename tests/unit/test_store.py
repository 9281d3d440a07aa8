"""The SQLite store: CAS, history, audit events in the same transaction, limits, permissions.
Skills reach each state through ``tests.support.factory.seed``, as the real verbs would bring them."""

from __future__ import annotations

import itertools
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import platformdirs
import pytest

from skillreel.errors import LifecycleError, SkillreelError, StoreError
from skillreel.model import lifecycle
from skillreel.model.policy import Policy, PolicySettings
from skillreel.store import AuditNote, Store
from skillreel.store import db as store_db
from tests.support import factory
from tests.support.factory import T1, T2, seed
from tests.support.readback import assert_owner_only


@pytest.fixture
def store(skillreel_home: Path) -> Iterator[Store]:
    with Store.open() as opened:
        yield opened


def raw(home: Path) -> sqlite3.Connection:
    return sqlite3.connect(home / "store.db", isolation_level=None)


def counts(home: Path) -> tuple[int, int, int]:
    with raw(home) as conn:
        entries, revisions, audit = (
            conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("entries", "revisions", "audit")
        )
    return entries, revisions, audit


# --- location, permissions, migrations ------------------------------------------------------------


def test_open_creates_an_owner_only_home(skillreel_home: Path) -> None:
    with Store.open() as store:
        assert store.path == skillreel_home / "store.db"
        seed(store)
        assert_owner_only(skillreel_home)
    assert_owner_only(skillreel_home)


def test_a_created_home_is_0700_whatever_the_umask(skillreel_home: Path) -> None:
    old = os.umask(0o277)  # would leave the owner without write or search permission
    try:
        Store.open().close()
    finally:
        os.umask(old)
    assert_owner_only(skillreel_home)


def test_an_existing_private_home_is_used_as_it_is(skillreel_home: Path) -> None:
    skillreel_home.mkdir(mode=0o700)
    with Store.open() as store:
        seed(store)
    assert_owner_only(skillreel_home)


def test_the_database_files_of_a_private_home_are_kept_owner_only(skillreel_home: Path) -> None:
    Store.open().close()
    (skillreel_home / "store.db").chmod(0o644)
    with Store.open():
        assert_owner_only(skillreel_home)


@pytest.mark.parametrize("loose", [0o755, 0o750, 0o701, 0o710, 0o720, 0o702, 0o777])
def test_an_existing_home_open_to_others_is_refused_and_left_as_it_is(
    skillreel_home: Path, loose: int
) -> None:
    """skillreel sets 0700 only on a directory it creates; it never chmods a home it was given."""
    skillreel_home.mkdir()
    skillreel_home.chmod(loose)
    with pytest.raises(StoreError) as err:
        Store.open()
    assert err.value.code == "SR_RECORD_STORE_HOME_UNSAFE"
    assert f"{loose:04o}" in err.value.message
    assert f"chmod 700 {skillreel_home}" in err.value.message
    assert skillreel_home.stat().st_mode & 0o777 == loose
    assert list(skillreel_home.iterdir()) == []  # not even an empty database


def test_a_home_that_was_made_loose_after_use_is_refused(skillreel_home: Path) -> None:
    with Store.open() as store:
        seed(store)
    skillreel_home.chmod(0o755)
    with pytest.raises(StoreError) as err:
        Store.open()
    assert err.value.code == "SR_RECORD_STORE_HOME_UNSAFE"
    assert skillreel_home.stat().st_mode & 0o777 == 0o755


def test_a_home_that_is_a_file_is_refused(skillreel_home: Path) -> None:
    skillreel_home.write_text("not a directory")
    with pytest.raises(StoreError) as err:
        Store.open()
    assert err.value.code == "SR_RECORD_STORE_HOME_UNSAFE"
    assert skillreel_home.read_text() == "not a directory"


def test_a_home_of_another_user_is_refused(skillreel_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    skillreel_home.mkdir(mode=0o700)
    monkeypatch.setattr(os, "geteuid", lambda: skillreel_home.stat().st_uid + 1)
    with pytest.raises(StoreError) as err:
        Store.open()
    assert err.value.code == "SR_RECORD_STORE_HOME_UNSAFE"
    assert "another user" in err.value.message


def test_the_home_defaults_to_the_platform_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SKILLREEL_HOME")
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda app, appauthor: str(tmp_path / app))
    assert store_db.store_home() == tmp_path / "skillreel"


def test_migrations_are_named_ordered_and_recorded_once(skillreel_home: Path) -> None:
    Store.open().close()
    Store.open().close()
    with raw(skillreel_home) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY rowid")]
        mode_ = conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert names == [name for name, _ in store_db.MIGRATIONS]
    assert mode_ == "wal"


def test_a_store_from_a_newer_version_is_left_untouched(skillreel_home: Path) -> None:
    Store.open().close()
    with raw(skillreel_home) as conn:
        conn.execute("INSERT INTO schema_migrations (name) VALUES ('9999-future')")
    with pytest.raises(StoreError) as err:
        Store.open()
    assert err.value.code == "SR_RECORD_STORE_CORRUPT"


def test_a_file_that_is_not_a_database_is_corrupt_and_untouched(skillreel_home: Path) -> None:
    skillreel_home.mkdir(mode=0o700)
    junk = b"this is not an sqlite database, it only pretends to be one" * 100
    (skillreel_home / "store.db").write_bytes(junk)
    with pytest.raises(StoreError) as err:
        Store.open()
    assert err.value.code == "SR_RECORD_STORE_CORRUPT"
    assert (skillreel_home / "store.db").read_bytes() == junk


def test_busy_beyond_the_timeout(skillreel_home: Path) -> None:
    with Store.open() as first:
        seed(first)
    holder = raw(skillreel_home)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with Store.open(timeout=0.1) as second:
            assert second.get("search-invoices").revision == 1  # readers are not blocked (WAL)
            with pytest.raises(StoreError) as err:
                second.update(
                    "search-invoices", lambda e: lifecycle.approve(e, "bob", T1), AuditNote(kind="review")
                )
            assert err.value.code == "SR_RECORD_STORE_BUSY"
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert counts(skillreel_home) == (1, 1, 1)


def names_seen_by_another_process(home: Path) -> list[str]:
    """The skills another process finds in the store: it opens its own connection, reads, closes it."""
    script = (
        "import sqlite3, sys; conn = sqlite3.connect(sys.argv[1]); "
        "print(*(n for (n,) in conn.execute('SELECT name FROM entries ORDER BY name'))); conn.close()"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(home / "store.db")], capture_output=True, text=True, check=True
    )
    return done.stdout.split()


def test_a_second_store_in_one_process_never_loses_the_first_ones_commits(skillreel_home: Path) -> None:
    """The MCP server opens a store per play. Opening the second one once opened (and closed) a
    descriptor of store.db, which drops every POSIX lock of the process, the first connection's
    included: another process closing its connection then took the database for unused, deleted
    the WAL, and the first connection's later commits went into the deleted file (a replay reported
    ``recorded`` while its run stayed ``started``)."""
    Store.open().close()
    with Store.open() as first:
        assert first.find("one") is None  # the first connection reads: it holds its lock
        with Store.open() as second:
            assert names_seen_by_another_process(skillreel_home) == []
            first.insert(factory.entry("one"), AuditNote(kind="record"))
            assert names_seen_by_another_process(skillreel_home) == ["one"]
            second.insert(factory.entry("two"), AuditNote(kind="record"))
            assert names_seen_by_another_process(skillreel_home) == ["one", "two"]
    with Store.open() as store:
        assert [e.name for e in store.entries()] == ["one", "two"]
        assert store.verify_audit().ok


def test_a_store_file_that_is_a_symlink_is_refused_and_left_alone(
    skillreel_home: Path, tmp_path: Path
) -> None:
    skillreel_home.mkdir(mode=0o700)
    elsewhere = tmp_path / "elsewhere.db"
    elsewhere.write_bytes(b"")
    elsewhere.chmod(0o644)
    (skillreel_home / "store.db").symlink_to(elsewhere)
    with pytest.raises(StoreError) as err:
        Store.open()
    assert err.value.code == "SR_RECORD_STORE_CORRUPT"
    assert elsewhere.read_bytes() == b""
    assert (elsewhere.stat().st_mode & 0o777) == 0o644


# --- reads and writes -----------------------------------------------------------------------------


def test_insert_get_find_entries_and_summaries(store: Store) -> None:
    a = seed(store, "alpha")
    b = seed(store, "beta", "validated")
    assert store.get("alpha") == a
    assert store.find("beta") == b
    assert store.find("gamma") is None
    with pytest.raises(LifecycleError) as err:
        store.get("gamma")
    assert err.value.code == "SR_RECORD_NOT_FOUND"
    assert [e.name for e in store.entries()] == ["alpha", "beta"]
    summaries = {s.name: s for s in store.summaries()}
    assert (summaries["beta"].status, summaries["beta"].revision) == ("validated", 3)
    assert summaries["alpha"].to_json()["description"] == a.draft.description
    assert store.count() == 2


def test_insert_refuses_an_existing_name_and_a_later_revision(store: Store) -> None:
    entry = seed(store)
    with pytest.raises(LifecycleError) as err:
        store.insert(factory.entry(), AuditNote(kind="record"))
    assert err.value.code == "SR_RECORD_EXISTS"
    with pytest.raises(StoreError):
        store.insert(lifecycle.approve(factory.entry("other"), "alice", T1), AuditNote(kind="record"))
    assert store.get(entry.name) == entry
    assert store.count() == 1


def test_update_is_compare_and_set(store: Store, skillreel_home: Path) -> None:
    seed(store)
    approved = store.update(
        "search-invoices",
        lambda e: lifecycle.approve(e, "alice", T1),
        AuditNote(kind="review", reviewer="alice"),
        expected_revision=1,
    )
    assert approved.revision == 2
    with pytest.raises(LifecycleError) as err:
        store.update(
            "search-invoices",
            lambda e: lifecycle.approve(e, "bob", T1),
            AuditNote(kind="review"),
            expected_revision=1,
        )
    assert err.value.code == "SR_RECORD_REVISION_CONFLICT"
    assert counts(skillreel_home) == (1, 2, 2)


def test_a_refused_change_writes_nothing(store: Store, skillreel_home: Path) -> None:
    seed(store)
    before = counts(skillreel_home)
    with pytest.raises(LifecycleError) as err:
        store.update("search-invoices", lambda e: lifecycle.revoke(e, T1), AuditNote(kind="revoke"))
    assert err.value.code == "SR_RECORD_STATE_INVALID"
    with pytest.raises(StoreError):  # a change that is not the next revision is a bug, refused
        store.update("search-invoices", lambda e: e, AuditNote(kind="review"))
    with pytest.raises(StoreError):  # an audit note that is not content-free cannot be written
        store.update(
            "search-invoices",
            lambda e: lifecycle.approve(e, "alice", T1),
            AuditNote(kind="review", reviewer="has spaces and text"),
        )
    assert counts(skillreel_home) == before
    assert store.get("search-invoices").revision == 1


def test_every_revision_is_kept(store: Store) -> None:
    final = seed(store, status="revoked")
    history = store.revisions("search-invoices")
    assert [r.revision for r in history] == [1, 2, 3, 4, 5]
    assert [r.status for r in history] == ["draft", "approved", "validated", "enabled", "revoked"]
    assert history[-1].entry_digest == final.entry_digest
    assert store.revision("search-invoices", 2).status == "approved"
    with pytest.raises(LifecycleError) as err:
        store.revision("search-invoices", 9)
    assert err.value.code == "SR_RECORD_REVISION_NOT_FOUND"
    assert "it is at 5" in err.value.message
    with pytest.raises(LifecycleError) as err:
        store.revision("no-such-skill", 1)
    assert err.value.code == "SR_RECORD_NOT_FOUND"


def test_every_mutation_appends_one_chained_audit_event(store: Store) -> None:
    seed(store, status="revoked")
    events = store.audit_events()
    assert [e.kind for e in events] == ["record", "review", "validate", "enable", "revoke"]
    assert [e.revision for e in events] == [1, 2, 3, 4, 5]
    assert [e.seq for e in events] == [1, 2, 3, 4, 5]
    assert all(later.prev_digest == earlier.event_digest for earlier, later in itertools.pairwise(events))
    history = store.revisions("search-invoices")
    assert [e.digests["entry"] for e in events] == [r.entry_digest for r in history]
    assert store.verify_audit().to_json() == {"ok": True, "events": 5, "brokenAt": None}
    assert [e.kind for e in store.audit_events(limit=2)] == ["enable", "revoke"]


def test_audit_events_are_content_free(store: Store, skillreel_home: Path) -> None:
    entry = seed(
        store,
        status="validated",
        environment=factory.url_environment("http://127.0.0.1:8000/app?q=secret-query"),
    )
    with raw(skillreel_home) as conn:
        rows = b"".join(r[0] for r in conn.execute("SELECT document FROM audit"))
    for content in (
        b"#q",
        b"#go",
        entry.draft.description.encode(),
        b"127.0.0.1",
        b"secret-query",
        b"No invoice matches",
    ):
        assert content not in rows


def test_remove_deletes_the_skill_and_its_history(store: Store, skillreel_home: Path) -> None:
    seed(store, status="validated")
    removed = store.remove("search-invoices", AuditNote(kind="delete"), expected_revision=3)
    assert removed.revision == 3
    assert store.find("search-invoices") is None
    assert store.revisions("search-invoices") == []
    assert store.audit_events()[-1].kind == "delete"
    again = seed(store)
    assert again.revision == 1
    assert store.verify_audit().ok


def test_remove_refuses_an_enabled_skill_and_a_stale_revision(store: Store, skillreel_home: Path) -> None:
    seed(store, status="enabled")
    before = counts(skillreel_home)
    with pytest.raises(LifecycleError) as err:
        store.remove("search-invoices", AuditNote(kind="delete"))
    assert err.value.code == "SR_RECORD_STATE_INVALID"
    with pytest.raises(LifecycleError) as err:
        store.remove("search-invoices", AuditNote(kind="delete"), expected_revision=1)
    assert err.value.code == "SR_RECORD_REVISION_CONFLICT"
    assert counts(skillreel_home) == before


def test_prune_removes_expired_skills_that_are_not_enabled(store: Store) -> None:
    old = "2025-01-01T00:00:00Z"
    seed(store, "old-draft", now=old)
    seed(store, "old-revoked", "revoked", now=old)
    seed(store, "old-enabled", "enabled", now=old)
    seed(store, "recent", now="2025-03-30T00:00:00Z")
    now = "2025-04-02T00:00:00Z"  # 91 days after `old`, 3 after `recent`
    assert [e.name for e in store.prune(now, dry_run=True)] == ["old-draft", "old-revoked"]
    assert store.count() == 4
    assert [e.name for e in store.prune(now)] == ["old-draft", "old-revoked"]
    assert sorted(s.name for s in store.summaries()) == ["old-enabled", "recent"]
    assert [e.kind for e in store.audit_events()][-2:] == ["prune", "prune"]
    assert store.verify_audit().ok


def test_policy_default_set_and_audited(store: Store) -> None:
    assert store.policy() == Policy.default()
    assert store.policy_is_default()
    policy = Policy.from_settings(PolicySettings(retention_days=7, max_records=2))
    store.set_policy(policy)
    assert store.policy() == policy
    assert not store.policy_is_default()
    event = store.audit_events()[-1]
    assert (event.kind, event.digests) == ("policy", {"policy": policy.policy_digest})


def test_max_records_and_max_actions(store: Store) -> None:
    store.set_policy(Policy.from_settings(PolicySettings(max_records=1, max_actions=3)))
    with pytest.raises(StoreError) as err:
        seed(store, "four-actions")
    assert err.value.code == "SR_RECORD_POLICY_DENIED"
    store.set_policy(Policy.from_settings(PolicySettings(max_records=1)))
    seed(store, "one")
    with pytest.raises(StoreError) as err:
        seed(store, "two")
    assert err.value.code == "SR_RECORD_STORE_LIMIT"
    assert [s.name for s in store.summaries()] == ["one"]


def test_the_audit_limit_refuses_what_starts_something_never_the_kill_switch(store: Store) -> None:
    seed(store, "live-skill", "enabled")
    seed(store, "old-skill", "validated")
    store.set_policy(Policy.from_settings(PolicySettings(max_audit_events=100)))
    failed = AuditNote(kind="replay", outcome="failed", code="SR_REPLAY_UI_TIMEOUT")
    store.audit_many([failed] * (95 - store.audit_count()))
    with pytest.raises(StoreError) as err:
        store.audit(failed)  # 5 events (1%, at least 5) are kept for the kill switch
    assert err.value.code == "SR_RECORD_STORE_LIMIT"
    assert store.audit_count() == 95
    with pytest.raises(StoreError) as err:
        seed(store)
    assert err.value.code == "SR_RECORD_STORE_LIMIT"
    assert store.count() == 2
    # revoke, delete and policy changes are never refused by the audit limit, even past it
    store.update("live-skill", lambda e: lifecycle.revoke(e, T2), AuditNote(kind="revoke"))
    store.remove("old-skill", AuditNote(kind="delete"))
    for days in range(10, 20):
        store.set_policy(Policy.from_settings(PolicySettings(max_audit_events=100, retention_days=days)))
    assert store.audit_count() == 107
    assert store.get("live-skill").status == "revoked"
    assert store.find("old-skill") is None
    store.set_policy(Policy.from_settings(PolicySettings(max_audit_events=1000)))
    seed(store)
    assert store.verify_audit().to_json() == {"ok": True, "events": 109, "brokenAt": None}


def test_standalone_audit_events(store: Store) -> None:
    event = store.audit(
        AuditNote(
            kind="replay",
            name="search-invoices",
            revision=1,
            outcome="failed",
            code="SR_REPLAY_UI_TARGET_NOT_FOUND",
        )
    )
    assert (event.seq, event.outcome, event.code) == (1, "failed", "SR_REPLAY_UI_TARGET_NOT_FOUND")
    assert store.audit_events("search-invoices") == [event]
    assert store.audit_events("other") == []


def test_objects_from_memory_are_revalidated(store: Store) -> None:
    entry = factory.entry()
    forged = entry.model_copy(update={"revision": 1, "status": "enabled"})  # skips validation
    with pytest.raises(SkillreelError):
        store.insert(forged, AuditNote(kind="record"))
    assert store.count() == 0


def test_sqlite_errors_are_translated(tmp_path: Path) -> None:
    parent = tmp_path / "file-not-dir"
    parent.write_text("x")
    with pytest.raises(StoreError) as err:
        Store.open(parent / "home")
    assert err.value.code == "SR_RECORD_STORE_IO"
    assert isinstance(err.value.__cause__, OSError)
    assert os.path.isfile(parent)


def test_the_event_always_attests_the_entry_it_wrote(store: Store) -> None:
    seed(store)
    forged = AuditNote(kind="review", digests={"entry": "sha256:" + "0" * 64, "draft": "sha256:" + "1" * 64})
    new = store.update("search-invoices", lambda e: lifecycle.approve(e, "alice", T1), forged)
    event = store.audit_events()[-1]
    assert event.digests == {"entry": new.entry_digest, "draft": "sha256:" + "1" * 64}
    assert store.verify_audit().ok
