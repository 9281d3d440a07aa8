"""Tampering with the database file: one changed byte anywhere in a stored document, an audit row or
the policy is detected before anything uses it, with ``SR_RECORD_STORE_CORRUPT``, and the store is
left exactly as it was found."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from skillreel.errors import StoreError
from skillreel.model import lifecycle
from skillreel.model.policy import Policy, PolicySettings
from skillreel.store import AuditNote, Store
from tests.support.factory import T1, record_run, seed
from tests.support.readback import sql

NAME = "search-invoices"


def dump(home: Path) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    for table in ("entries", "revisions", "audit", "policy"):
        rows += sql(home, f"SELECT * FROM {table} ORDER BY 1, 2")
    return rows


def edit(home: Path, table: str, where: str, old: bytes, new: bytes) -> None:
    """Replace ``old`` by ``new`` (same length) inside the documents of ``table`` matching ``where``."""
    for rowid, document in sql(home, f"SELECT rowid, document FROM {table} WHERE {where}"):
        assert isinstance(document, bytes)
        assert old in document
        sql(home, f"UPDATE {table} SET document = ? WHERE rowid = ?", document.replace(old, new, 1), rowid)


def flip(data: bytes, position: int) -> bytes:
    changed = data[position] ^ 0x01 if data[position] not in (0x5C,) else 0x41
    return data[:position] + bytes([changed]) + data[position + 1 :]


def corrupt(call: Callable[[], object]) -> None:
    with pytest.raises(StoreError) as err:
        call()
    assert err.value.code == "SR_RECORD_STORE_CORRUPT"


@pytest.fixture
def home(skillreel_home: Path) -> Path:
    with Store.open() as store:
        seed(store, status="validated")
        seed(store, "other-skill")
    return skillreel_home


@pytest.mark.slow  # one store per flipped byte
def test_one_changed_byte_anywhere_in_a_stored_document_is_detected(home: Path) -> None:
    (document,) = sql(home, "SELECT document FROM revisions WHERE name = ? AND revision = 3", NAME)[0:1]
    original = document[0]
    assert isinstance(original, bytes)
    positions = random.Random(20260102).sample(range(len(original)), 120)
    with Store.open() as store:
        for position in [0, len(original) - 1, *positions]:
            sql(
                home,
                "UPDATE revisions SET document = ? WHERE name = ? AND revision = 3",
                flip(original, position),
                NAME,
            )
            before = dump(home)
            corrupt(lambda: store.get(NAME))
            corrupt(
                lambda: store.update(
                    NAME,
                    lambda e: lifecycle.replace_draft(e, e.draft, e.events, T1),
                    AuditNote(kind="record"),
                )
            )
            corrupt(lambda: store.remove(NAME, AuditNote(kind="delete")))
            corrupt(store.entries)
            assert dump(home) == before, position
        sql(home, "UPDATE revisions SET document = ? WHERE name = ? AND revision = 3", original, NAME)
        assert store.get(NAME).revision == 3


def test_an_older_revision_is_checked_when_shown(home: Path) -> None:
    edit(home, "revisions", f"name = '{NAME}' AND revision = 1", b"Search", b"Seerch")
    with Store.open() as store:
        assert store.get(NAME).revision == 3
        corrupt(lambda: store.revision(NAME, 1))


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("status", "enabled"),
        ("revision", 2),
        ("description", "changed"),
        ("updated_at", "2030-01-01T00:00:00Z"),
        ("entry_digest", "sha256:" + "0" * 64),
    ],
)
def test_a_summary_column_that_disagrees_with_the_document_is_detected(
    home: Path, column: str, value: object
) -> None:
    sql(home, f"UPDATE entries SET {column} = ? WHERE name = ?", value, NAME)
    before = dump(home)
    with Store.open() as store:
        corrupt(lambda: store.get(NAME))
        corrupt(
            lambda: store.update(
                NAME, lambda e: lifecycle.replace_draft(e, e.draft, e.events, T1), AuditNote(kind="record")
            )
        )
    assert dump(home) == before


def test_a_valid_document_moved_to_another_row_is_detected(home: Path) -> None:
    other = sql(home, "SELECT document FROM revisions WHERE name = 'other-skill'")[0][0]
    sql(home, "UPDATE revisions SET document = ? WHERE name = ? AND revision = 1", other, NAME)
    with Store.open() as store:
        corrupt(lambda: store.revision(NAME, 1))


def test_a_missing_current_document_is_detected(home: Path) -> None:
    sql(home, "DELETE FROM revisions WHERE name = ? AND revision = 3", NAME)
    with Store.open() as store:
        corrupt(lambda: store.get(NAME))


def test_one_changed_byte_in_an_audit_row_breaks_the_chain_there(home: Path) -> None:
    rows = sql(home, "SELECT seq, document FROM audit ORDER BY seq")
    assert len(rows) == 4
    seq, document = rows[1]
    assert isinstance(document, bytes)
    for position in random.Random(7).sample(range(len(document)), 40):
        sql(home, "UPDATE audit SET document = ? WHERE seq = ?", flip(document, position), seq)
        with Store.open() as store:
            assert store.verify_audit().to_json() == {"ok": False, "events": 4, "brokenAt": seq}, position
            corrupt(store.audit_events)
    sql(home, "UPDATE audit SET document = ? WHERE seq = ?", document, seq)
    with Store.open() as store:
        assert store.verify_audit().ok


def test_a_tampered_last_event_stops_further_writes(home: Path) -> None:
    edit(home, "audit", "seq = (SELECT MAX(seq) FROM audit)", b'"record"', b'"replay"')
    before = dump(home)
    with Store.open() as store:
        corrupt(lambda: store.audit(AuditNote(kind="replay")))
        corrupt(lambda: seed(store, "third"))
    assert dump(home) == before


@pytest.mark.parametrize(
    "statement",
    [
        "DELETE FROM audit WHERE seq = 2",
        "UPDATE audit SET event_digest = 'sha256:' || substr(event_digest, 9, 63) || '0' WHERE seq = 2",
        "UPDATE audit SET seq = 9 WHERE seq = 2",
    ],
)
def test_removed_or_renumbered_events_break_the_chain(home: Path, statement: str) -> None:
    sql(home, statement)
    with Store.open() as store:
        result = store.verify_audit()
    assert not result.ok
    assert result.broken_at == 2


def test_a_tampered_policy_is_detected(home: Path) -> None:
    with Store.open() as store:
        store.set_policy(Policy.from_settings(PolicySettings(retention_days=30)))
    edit(home, "policy", "id = 1", b":30,", b":31,")
    with Store.open() as store:
        corrupt(store.policy)
        corrupt(lambda: seed(store, "third"))


def test_events_cut_off_the_end_are_detected(home: Path) -> None:
    sql(home, "DELETE FROM audit WHERE seq = (SELECT MAX(seq) FROM audit)")
    with Store.open() as store:
        assert store.verify_audit().to_json() == {"ok": False, "events": 3, "brokenAt": 4}


@pytest.mark.parametrize(
    ("table", "where", "old", "new", "names"),
    [
        ("revisions", f"name = '{NAME}' AND revision = 1", b"Search", b"Seerch", f"{NAME!r} revision 1"),
        ("runs", "seq = 1", b'"succeeded"', b'"cancelled"', "run 1"),
    ],
)
def test_verify_finds_a_kept_document_that_no_longer_matches_its_attested_digest(
    home: Path, table: str, where: str, old: bytes, new: bytes, names: str
) -> None:
    """The chain attests each revision's and run's digest; verify also recomputes each document's:
    an older revision nothing reads, or a run, changed in place, with the chain itself intact."""
    with Store.open() as store:
        record_run(store, NAME)
        assert store.verify_audit().ok
    edit(home, table, where, old, new)
    before = dump(home)
    with Store.open() as store:
        result = store.verify_audit()
    assert (result.ok, result.broken_at) == (False, None)
    assert result.mismatch is not None
    assert names in result.mismatch
    assert result.to_json()["mismatch"] == result.mismatch
    assert dump(home) == before


@pytest.mark.parametrize(
    "statement",
    [
        f"UPDATE entries SET status = 'enabled' WHERE name = '{NAME}'",
        f"UPDATE revisions SET status = 'approved' WHERE name = '{NAME}' AND revision = 1",
        f"UPDATE runs SET outcome = 'failed' WHERE name = '{NAME}'",
    ],
)
def test_verify_finds_a_column_that_disagrees_with_its_document(home: Path, statement: str) -> None:
    with Store.open() as store:
        record_run(store, NAME)
    sql(home, statement)
    with Store.open() as store:
        result = store.verify_audit()
    assert (result.ok, result.broken_at) == (False, None)
    assert result.mismatch is not None
    assert "do not match" in result.mismatch
