"""``export`` and ``import`` as use cases: a round trip between two stores, collisions, tampering
(of the file and of the store), signatures and trusted keys."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from skillreel.errors import RecordError, StoreError
from skillreel.model.policy import Policy, PolicySettings
from skillreel.services import exporting
from skillreel.services.auditing import verify_audit
from skillreel.services.exporting import export_skill
from skillreel.services.importing import import_skill
from skillreel.services.listing import list_skills
from skillreel.services.reviewing import review_skill
from skillreel.services.showing import show_skill
from skillreel.store import Store
from tests.integration.services.store_checks import NAME, refused
from tests.support.factory import seed, write_keys
from tests.support.readback import assert_owner_only


def test_export_and_import_round_trip(store: Store, skillreel_home: Path, tmp_path: Path) -> None:
    seed(store, NAME, "enabled")
    out = tmp_path / "skill.json"
    exported = export_skill(store, NAME, out).to_json()
    assert (exported["name"], exported["revision"]) == (NAME, 4)
    assert out.stat().st_mode & 0o777 == 0o600
    document = json.loads(out.read_text())
    assert document["schema"] == "skillreel.export/v1"
    assert document["exportDigest"] == exported["exportDigest"]
    assert document["entry"]["installation"] is not None
    refused(skillreel_home, "SR_RECORD_OUTPUT_EXISTS", lambda: export_skill(store, NAME, out))
    exported = export_skill(store, NAME, out, force=True).to_json()
    assert json.loads(out.read_text())["exportDigest"] == exported["exportDigest"]
    assert store.audit_events()[-1].kind == "export"

    other_home = tmp_path / "other-home"
    with Store.open(other_home) as other:
        other.set_policy(Policy.from_settings(PolicySettings(unsigned_imports="keep")))
        imported = import_skill(other, out, approve=False).to_json()
        assert (imported["name"], imported["revision"], imported["status"], imported["replaced"]) == (
            NAME,
            1,
            "validated",
            False,
        )
        shown = show_skill(other, NAME).to_json()
        assert shown["installation"] is None
        assert shown["wasEnabled"] is True
        assert shown["digests"]["draft"] == document["entry"]["draft"]["draftDigest"]
        assert shown["digests"]["approval"] == document["entry"]["approval"]["approvalDigest"]
        event = other.audit_events()[-1].to_json()
        assert (event["kind"], event["digests"]["export"]) == ("import", exported["exportDigest"])
    assert_owner_only(other_home)


def test_import_collisions_need_replace_and_approve(
    store: Store, skillreel_home: Path, tmp_path: Path
) -> None:
    seed(store, NAME, "validated")
    out = tmp_path / "skill.json"
    export_skill(store, NAME, out)
    store.set_policy(Policy.from_settings(PolicySettings(unsigned_imports="keep")))
    refused(skillreel_home, "SR_RECORD_EXISTS", lambda: import_skill(store, out, approve=False))
    refused(
        skillreel_home,
        "SR_RECORD_APPROVAL_REQUIRED",
        lambda: import_skill(store, out, replace=True, approve=False),
    )
    unpinned = refused(
        skillreel_home,
        "SR_RECORD_REVISION_UNPINNED",
        lambda: import_skill(store, out, replace=True, approve=True),
        2,
    )
    assert unpinned.details == {
        "revision": 3,
        "command": f"skillreel import {out} --replace --expected-revision 3 --approve",
    }
    replaced = import_skill(store, out, replace=True, approve=True, expected_revision=3).to_json()
    assert (replaced["revision"], replaced["status"], replaced["replaced"]) == (4, "validated", True)
    assert [r["revision"] for r in show_skill(store, NAME).to_json()["revisions"]] == [1, 2, 3, 4]
    seed(store, "live-skill", "enabled")
    live = tmp_path / "live.json"
    export_skill(store, "live-skill", live)
    refused(
        skillreel_home,
        "SR_RECORD_STATE_INVALID",
        lambda: import_skill(store, live, replace=True, approve=True),
    )


def test_tampering_is_detected_with_the_right_code(
    store: Store, skillreel_home: Path, tmp_path: Path
) -> None:
    seed(store, NAME, "validated")
    out = tmp_path / "skill.json"
    export_skill(store, NAME, out)
    data = out.read_bytes()
    out.write_bytes(data.replace(b"Search invoices", b"Search invoicez", 1))
    other_home = tmp_path / "other"
    with Store.open(other_home) as other:
        error = refused(
            other_home,
            "SR_RECORD_DIGEST_MISMATCH",
            lambda: import_skill(other, out, approve=False),
            exit_status=2,
        )
        assert "invoicez" not in error.message
        assert list_skills(other).to_json()["skills"] == []

    with sqlite3.connect(skillreel_home / "store.db") as conn:
        (doc,) = conn.execute("SELECT document FROM revisions WHERE revision = 3").fetchone()
        conn.execute(
            "UPDATE revisions SET document = ? WHERE revision = 3",
            (doc.replace(b'"validated"', b'"validatex"'),),
        )
        (event,) = conn.execute("SELECT document FROM audit WHERE seq = 2").fetchone()
        conn.execute(
            "UPDATE audit SET document = ? WHERE seq = 2", (event.replace(b'"review"', b'"revoke"'),)
        )
    refused(skillreel_home, "SR_RECORD_STORE_CORRUPT", lambda: show_skill(store, NAME))
    refused(
        skillreel_home, "SR_RECORD_STORE_CORRUPT", lambda: export_skill(store, NAME, tmp_path / "again.json")
    )
    assert not (tmp_path / "again.json").exists()
    assert verify_audit(store).to_json() == {"ok": False, "events": 4, "brokenAt": 2}


def test_signed_export_and_trusted_import(store: Store, tmp_path: Path) -> None:
    private, public = write_keys(tmp_path)
    _, stranger = write_keys(tmp_path, "stranger")
    seed(store, NAME, "validated")
    signed, unsigned = tmp_path / "signed.json", tmp_path / "unsigned.json"
    exported = export_skill(store, NAME, signed, sign_key=private).to_json()
    assert exported["signedBy"].startswith("ed25519:")
    assert export_skill(store, NAME, unsigned).to_json()["signedBy"] is None
    other_home = tmp_path / "other"
    with Store.open(other_home) as other:
        refused(
            other_home,
            "SR_RECORD_SIGNATURE_INVALID",
            lambda: import_skill(other, unsigned, approve=False, trust=[public]),
            exit_status=2,
        )
        refused(
            other_home,
            "SR_RECORD_SIGNATURE_INVALID",
            lambda: import_skill(other, signed, approve=False, trust=[stranger]),
            exit_status=2,
        )
        refused(
            other_home,
            "SR_RECORD_INPUT_MALFORMED",
            lambda: import_skill(other, signed, approve=False, trust=[private]),
            exit_status=2,
        )
        assert list_skills(other).to_json()["skills"] == []
        imported = import_skill(other, signed, approve=False, trust=[stranger, public]).to_json()
        assert imported["signature"] == {"keyId": exported["signedBy"], "verified": True}


def test_a_fleet_bundle_taken_off_the_broker_is_not_a_signed_export(store: Store, tmp_path: Path) -> None:
    """Issue 30, F7: bundles and exports shared one signature domain, so a bundle read off Redis
    imported as a verified export of the coordinator's (keeping its validated state) on main."""
    from skillreel.fleet.bundle import bundle_text, sign_bundle
    from skillreel.store.signing import load_signing_key

    private, public = write_keys(tmp_path)
    seed(store, NAME, "validated")
    captured = tmp_path / "bundle.json"
    captured.write_text(bundle_text(sign_bundle(store.get(NAME), store.now(), load_signing_key(private))))
    other_home = tmp_path / "other"
    with Store.open(other_home) as other:
        refused(
            other_home,
            "SR_RECORD_SIGNATURE_INVALID",
            lambda: import_skill(other, captured, approve=False, trust=[public]),
            exit_status=2,
        )
        assert list_skills(other).to_json()["skills"] == []


def test_an_unsigned_import_arrives_as_a_draft_that_needs_a_review_here(
    store: Store, skillreel_home: Path, tmp_path: Path
) -> None:
    """An approval made in another store, by someone this store cannot identify, does not count: an
    import not verified against a trusted key is a draft (approval, last report, heal proposal
    dropped) until a reviewer here approves it, unless the policy says ``unsignedImports: keep``."""
    seed(store, NAME, "enabled")
    out = tmp_path / "skill.json"
    export_skill(store, NAME, out)
    other_home = tmp_path / "other-home"
    with Store.open(other_home) as other:
        imported = import_skill(other, out, approve=False).to_json()
        assert (imported["status"], imported["signature"]) == ("draft", None)
        shown = show_skill(other, NAME).to_json()
        assert (shown["approval"], shown["lastReport"], shown["healProposal"]) == (None, None, None)
        assert shown["digests"]["draft"] == json.loads(out.read_text())["entry"]["draft"]["draftDigest"]
        assert shown["next"] == ["review", "delete"]
        reviewed = review_skill(other, NAME, "carol", approve=True, expected_revision=1).to_json()
        assert (reviewed["status"], reviewed["revision"]) == ("approved", 2)
        # Replacing with an unsigned export is a new draft revision too.
        replaced = import_skill(other, out, replace=True, approve=True, expected_revision=2).to_json()
        assert (replaced["revision"], replaced["status"]) == (3, "draft")
        assert verify_audit(other).to_json()["ok"] is True


def test_a_signed_export_verified_against_a_trusted_key_keeps_its_state(
    store: Store, skillreel_home: Path, tmp_path: Path
) -> None:
    seed(store, NAME, "validated")
    private, public = write_keys(tmp_path)
    signed = tmp_path / "signed.json"
    export_skill(store, NAME, signed, sign_key=private)
    with Store.open(tmp_path / "other-home") as other:
        assert import_skill(other, signed, approve=False, trust=[public]).status == "validated"
    with Store.open(tmp_path / "third-home") as third:  # signed, but nothing to verify it against
        assert import_skill(third, signed, approve=False).status == "draft"


def test_policies_written_before_unsigned_imports_existed_keep_their_digest() -> None:
    default = Policy.default()
    assert "unsignedImports" not in default.to_json()
    assert default.unsigned_import_status == "draft"
    keep = Policy.from_settings(PolicySettings(unsigned_imports="keep"))
    assert keep.to_json()["unsignedImports"] == "keep"
    assert keep.policy_digest != default.policy_digest
    assert Policy.parse(keep.to_json()) == keep


def test_an_export_that_cannot_be_written_leaves_one_failed_event_and_no_ok_one(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(store, NAME, "enabled")
    before = len(store.audit_events())

    def unwritable(*args: object, **kwargs: object) -> None:
        raise RecordError("SR_RECORD_OUTPUT_FAILED", "the output directory is not writable")

    monkeypatch.setattr(exporting, "write_private", unwritable)
    with pytest.raises(RecordError):
        export_skill(store, NAME, tmp_path / "skill.json")
    added = [(e.kind, e.outcome, e.code) for e in store.audit_events()[before:]]
    assert added == [("export", "failed", "SR_RECORD_OUTPUT_FAILED")]
    assert verify_audit(store).ok


def test_an_export_whose_event_cannot_be_written_does_not_stay(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(store, NAME, "enabled")
    out = tmp_path / "skill.json"

    def refused_write(note: object) -> None:
        raise StoreError("SR_RECORD_STORE_BUSY", "the store is locked")

    monkeypatch.setattr(store, "audit", refused_write)
    with pytest.raises(StoreError):
        export_skill(store, NAME, out)
    assert not out.exists()
