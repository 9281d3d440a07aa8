"""Export documents, the pure import rule, and the atomic owner-only file writer."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from skillreel.errors import RecordError
from skillreel.model import lifecycle
from skillreel.model.entry import StoreEntry
from skillreel.model.export import ExportDocument
from skillreel.store.transfer import export_bytes, export_document, imported_entry, write_private
from tests.support import factory
from tests.support.factory import T1, T2, advance, proposal_for
from tests.support.narrow import present


def test_an_export_round_trips_with_every_nested_document() -> None:
    entry = advance(factory.entry(), "enabled")
    document = export_document(entry, T2)
    assert ExportDocument.parse(export_bytes(document)) == document
    assert document.entry == entry


@pytest.mark.parametrize("status", ["draft", "approved", "validated", "revoked"])
def test_import_keeps_the_state_on_a_fresh_history(status: str) -> None:
    source = advance(factory.entry(), status)
    entry = imported_entry(source, 1, T2)
    assert (entry.revision, entry.status, entry.updated_at) == (1, status, T2)
    assert entry.draft == source.draft
    assert entry.approval == source.approval
    assert entry.last_report == source.last_report
    assert entry.created_at == source.created_at


def test_import_downgrades_enabled_to_validated_and_drops_the_installation() -> None:
    entry = imported_entry(advance(factory.entry(), "enabled"), 4, T2)
    assert (entry.revision, entry.status, entry.installation) == (4, "validated", None)
    assert entry.was_enabled  # it was enabled somewhere; enabling here is still a fresh enable
    installation = present(advance(factory.entry(), "enabled").installation)
    assert lifecycle.enable(entry, installation, T2).status == "enabled"


def test_import_keeps_a_heal_proposal_rebased_on_the_new_revision() -> None:
    validated = advance(factory.entry(), "validated")
    healed = factory.with_legacy_proposal(validated, proposal_for(validated, T1), T1)
    entry = imported_entry(healed, 1, T2)
    assert entry.heal_proposal is not None
    assert entry.heal_proposal.base_revision == 1
    assert lifecycle.accept_heal(entry, "bob", T2).revision == 2


def test_import_never_moves_time_backwards() -> None:
    source = advance(factory.entry(now=T2), "validated", now=T2)
    assert imported_entry(source, 1, T1).updated_at == T2
    assert StoreEntry.parse(imported_entry(source, 1, T1).to_json()).created_at == T2


def test_write_private_is_owner_only_and_refuses_to_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "e.json"
    write_private(out, b"one", force=False)
    assert out.read_bytes() == b"one"
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    with pytest.raises(RecordError) as err:
        write_private(out, b"two", force=False)
    assert err.value.code == "SR_RECORD_OUTPUT_EXISTS"
    assert out.read_bytes() == b"one"
    write_private(out, b"two", force=True)
    assert out.read_bytes() == b"two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.json"]


def test_write_private_refuses_symlinks_and_missing_directories(tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_bytes(b"keep")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    for path, force in ((link, False), (link, True), (tmp_path / "missing" / "e.json", False)):
        with pytest.raises(RecordError):
            write_private(path, b"x", force=force)
    assert target.read_bytes() == b"keep"
    assert link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "target.json"]


def test_an_output_that_is_a_directory_or_a_symlink_is_not_sent_to_force(tmp_path: Path) -> None:
    """--force could not help there: the refusal says what the path is, not "pass --force"."""
    (tmp_path / "target.json").write_bytes(b"keep")
    (tmp_path / "link.json").symlink_to(tmp_path / "target.json")
    for path in (tmp_path, tmp_path / "link.json"):
        for force in (False, True):
            with pytest.raises(RecordError) as err:
                write_private(path, b"x", force=force)
            assert (err.value.code, err.value.message) == (
                "SR_RECORD_OUTPUT_FAILED",
                "the output path exists and is not a regular file",
            )
