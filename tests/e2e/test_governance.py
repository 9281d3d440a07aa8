"""The governance verbs through the real console script: list, show, review, delete, prune, audit,
policy, policy-template, export and import. After every command the home directory and the
database files are owner-only.

Skills are seeded in-process through the Store API (``tests.factory.seed``) and then driven
with the CLI, as a user would after recording.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from skillreel.model import lifecycle
from skillreel.store import AuditNote, Store
from tests.cli import cli, ok, refused, run_cli
from tests.factory import T1, proposal_for, report_for, seed
from tests.readback import assert_owner_only

NAME = "search-invoices"


def seeded(home: Path, status: str = "draft", name: str = NAME, **kw: Any) -> None:
    with Store.open() as store:
        seed(store, name, status, **kw)


def test_list_and_show(skillreel_home: Path) -> None:
    assert ok(skillreel_home, "list") == {"skills": []}
    seeded(skillreel_home, "validated")
    seeded(skillreel_home, "draft", "another-skill")
    listed = ok(skillreel_home, "list")["skills"]
    assert [(s["name"], s["status"], s["revision"]) for s in listed] == [
        ("another-skill", "draft", 1), (NAME, "validated", 3)]
    assert listed[1]["description"] == "Search invoices by customer."
    shown = ok(skillreel_home, "show", NAME)
    assert (shown["status"], shown["revision"], shown["current"]) == ("validated", 3, True)
    assert [a["kind"] for a in shown["actions"]] == ["navigate", "type", "press", "click"]
    typed = shown["actions"][1]
    assert typed["parameter"] == "query"
    assert typed["target"]["candidates"] == [{"strategy": "id", "selector": "#q", "matchCount": 1}]
    assert shown["parameters"] == [{"name": "query", "required": True, "sensitive": False}]
    assert shown["capabilities"] == ["net.navigate", "ui.interact"]
    assert shown["failureConditions"] == ["No invoice matches the query."]
    assert shown["environment"]["kind"] == "html"
    assert shown["environment"]["allowedOrigins"] == ["https://fixture.skillreel.invalid"]
    assert set(shown["digests"]) == {"entry", "draft", "events", "environment", "approval", "lastReport",
                                     "package"}
    assert shown["digests"]["approval"]
    assert shown["digests"]["lastReport"]
    assert shown["approval"]["reviewer"] == "alice"
    assert shown["installation"] is None
    assert shown["healProposal"] is None
    assert [r["status"] for r in shown["revisions"]] == ["draft", "approved", "validated"]
    assert shown["next"] == ["replay", "enable", "delete"]
    older = ok(skillreel_home, "show", NAME, "--revision", "1")
    assert (older["status"], older["current"], older["approval"]) == ("draft", False, None)


def test_review_needs_approve_and_binds_the_exact_revision(skillreel_home: Path) -> None:
    seeded(skillreel_home)
    error = refused(skillreel_home, "review", NAME, "--reviewer", "alice",
                    code="SR_RECORD_APPROVAL_REQUIRED")
    assert "would approve" in error["message"]
    assert error["details"]["wouldChange"]["revision"] == 1
    assert ok(skillreel_home, "show", NAME)["status"] == "draft"
    result = ok(skillreel_home, "review", NAME, "--reviewer", "alice", "--approve",
                "--expected-revision", "1")
    assert (result["status"], result["revision"]) == ("approved", 2)
    shown = ok(skillreel_home, "show", NAME)
    assert shown["digests"]["approval"] == result["approvalDigest"]
    assert shown["approval"]["reviewer"] == "alice"
    refused(skillreel_home, "review", NAME, "--reviewer", "bob", "--approve", "--expected-revision", "1",
            code="SR_RECORD_REVISION_CONFLICT")
    refused(skillreel_home, "review", NAME, "--reviewer", "bob", "--approve", code="SR_RECORD_STATE_INVALID")
    events = ok(skillreel_home, "audit", "--name", NAME)["events"]
    assert [(e["kind"], e["reviewer"]) for e in events] == [("record", None), ("review", "alice")]
    assert events[1]["digests"]["approval"] == result["approvalDigest"]


def test_review_accepts_a_heal_proposal(skillreel_home: Path) -> None:
    with Store.open() as store:
        validated = seed(store, status="validated")
        store.update(NAME, lambda e: lifecycle.replay_succeeded(e, report_for(e, T1, healed=True), T1,
                                                                proposal_for(e, T1)),
                     AuditNote(kind="replay"))
    shown = ok(skillreel_home, "show", NAME)
    assert shown["healProposal"]["healedActions"] == ["a4"]
    (healed,) = shown["healProposal"]["actions"]
    assert (healed["id"], healed["target"]["candidates"][0]["selector"]) == ("a4", "#go-renamed")
    assert "review --heal-proposal" in shown["next"]
    refused(skillreel_home, "review", NAME, "--reviewer", "bob", "--heal-proposal",
            code="SR_RECORD_APPROVAL_REQUIRED")
    result = ok(skillreel_home, "review", NAME, "--reviewer", "bob", "--heal-proposal", "--approve",
                "--expected-revision", "4")
    assert (result["status"], result["revision"], result["healProposalAccepted"]) == ("approved", 5, True)
    shown = ok(skillreel_home, "show", NAME)
    assert shown["healProposal"] is None
    assert shown["digests"]["draft"] != validated.draft.draft_digest
    assert shown["actions"][3]["target"]["candidates"][0]["selector"] == "#go-renamed"


def test_delete(skillreel_home: Path) -> None:
    seeded(skillreel_home, "validated")
    seeded(skillreel_home, "enabled", "live-skill")
    error = refused(skillreel_home, "delete", NAME, code="SR_RECORD_APPROVAL_REQUIRED")
    assert "3 kept revision(s)" in error["message"]
    refused(skillreel_home, "delete", "live-skill", "--approve", code="SR_RECORD_STATE_INVALID")
    refused(skillreel_home, "delete", NAME, "--approve", "--expected-revision", "2",
            code="SR_RECORD_REVISION_CONFLICT")
    assert ok(skillreel_home, "delete", NAME, "--approve", "--expected-revision", "3") == {
        "deleted": NAME, "revision": 3, "status": "validated"}
    assert [s["name"] for s in ok(skillreel_home, "list")["skills"]] == ["live-skill"]
    refused(skillreel_home, "show", NAME, code="SR_RECORD_NOT_FOUND")
    assert ok(skillreel_home, "audit")["events"][-1]["kind"] == "delete"


def test_prune(skillreel_home: Path) -> None:
    old = "2020-01-01T00:00:00Z"
    seeded(skillreel_home, "draft", "old-draft", now=old)
    seeded(skillreel_home, "enabled", "old-but-enabled", now=old)
    seeded(skillreel_home, "draft", "fresh", now=lifecycle.timestamp(datetime.now(UTC)))
    error = refused(skillreel_home, "prune", code="SR_RECORD_APPROVAL_REQUIRED")
    assert error["details"]["wouldChange"] == {"names": ["old-draft"], "retentionDays": 90, "auditTrimmed": 0}
    assert ok(skillreel_home, "prune", "--approve") == {"pruned": [{"name": "old-draft", "revision": 1}],
                                                       "retentionDays": 90, "auditTrimmed": 0}
    assert ok(skillreel_home, "prune") == {"pruned": [], "retentionDays": 90, "auditTrimmed": 0}
    assert [s["name"] for s in ok(skillreel_home, "list")["skills"]] == ["fresh", "old-but-enabled"]


def test_audit_and_verify(skillreel_home: Path) -> None:
    seeded(skillreel_home, "revoked")
    events = ok(skillreel_home, "audit")
    assert events["total"] == 5
    assert [e["kind"] for e in events["events"]] == ["record", "review", "replay", "enable", "revoke"]
    fields = {"schema", "seq", "kind", "name", "revision", "outcome", "code", "digests", "reviewer", "at",
              "prevDigest", "eventDigest"}
    assert all(set(e) == fields for e in events["events"])
    assert [e["seq"] for e in ok(skillreel_home, "audit", "--limit", "2")["events"]] == [4, 5]
    assert ok(skillreel_home, "audit", "--verify") == {"ok": True, "events": 5, "brokenAt": None}


def test_audit_total_counts_only_the_named_skill(skillreel_home: Path) -> None:
    seeded(skillreel_home, "revoked")
    seeded(skillreel_home, "draft", "other")
    assert ok(skillreel_home, "audit")["total"] == 6
    named = ok(skillreel_home, "audit", "--name", "other")
    assert named["total"] == 1
    assert [e["name"] for e in named["events"]] == ["other"]


def test_policy_template_show_and_set(skillreel_home: Path, tmp_path: Path) -> None:
    template = ok(skillreel_home, "policy-template")
    assert template["schema"] == "skillreel.policy/v1"
    assert template["retentionDays"] == 90
    shown = ok(skillreel_home, "policy")
    assert shown["default"] is True
    assert shown["policy"]["maxRecords"] == 500
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({**template, "retentionDays": 30, "maxRecords": 1}))
    error = refused(skillreel_home, "policy", "set", str(path), code="SR_RECORD_APPROVAL_REQUIRED")
    assert {c["field"] for c in error["details"]["wouldChange"]["changed"]} == {"retentionDays", "maxRecords"}
    assert ok(skillreel_home, "policy")["default"] is True
    changed = ok(skillreel_home, "policy", "set", str(path), "--approve")
    assert changed["changed"] == [{"field": "retentionDays", "from": 90, "to": 30},
                                  {"field": "maxRecords", "from": 500, "to": 1}]
    shown = ok(skillreel_home, "policy")
    assert (shown["default"], shown["policy"]["retentionDays"]) == (False, 30)
    assert ok(skillreel_home, "policy", "set", str(path), "--approve")["changed"] == []
    event = ok(skillreel_home, "audit")["events"][-1]
    assert (event["kind"], event["digests"]["policy"]) == ("policy", shown["policy"]["policyDigest"])
    seeded(skillreel_home)
    with Store.open() as store, pytest.raises(Exception, match="SR_RECORD_STORE_LIMIT"):
        seed(store, "second-skill")
    # The shown policy (with its digest) can be set again; a changed value under its digest cannot.
    current = tmp_path / "current.json"
    current.write_text(json.dumps(shown["policy"]))
    assert ok(skillreel_home, "policy", "set", str(current), "--approve")["changed"] == []


def test_export_and_import_round_trip(skillreel_home: Path, tmp_path: Path) -> None:
    seeded(skillreel_home, "enabled")
    out = tmp_path / "skill.json"
    exported = ok(skillreel_home, "export", NAME, "--out", str(out))
    assert (exported["name"], exported["revision"]) == (NAME, 4)
    assert out.stat().st_mode & 0o777 == 0o600
    document = json.loads(out.read_text())
    assert document["schema"] == "skillreel.export/v1"
    assert document["exportDigest"] == exported["exportDigest"]
    assert document["entry"]["installation"] is not None
    refused(skillreel_home, "export", NAME, "--out", str(out), code="SR_RECORD_OUTPUT_EXISTS")
    exported = ok(skillreel_home, "export", NAME, "--out", str(out), "--force")
    assert json.loads(out.read_text())["exportDigest"] == exported["exportDigest"]
    assert ok(skillreel_home, "audit")["events"][-1]["kind"] == "export"

    other = tmp_path / "other-home"
    env = {"SKILLREEL_HOME": str(other)}
    imported = ok(other, "import", str(out), env=env)
    assert (imported["name"], imported["revision"], imported["status"], imported["replaced"]) == (
        NAME, 1, "validated", False)
    shown = ok(other, "show", NAME, env=env)
    assert shown["installation"] is None
    assert shown["wasEnabled"] is True
    assert shown["digests"]["draft"] == document["entry"]["draft"]["draftDigest"]
    assert shown["digests"]["approval"] == document["entry"]["approval"]["approvalDigest"]
    event = ok(other, "audit", env=env)["events"][-1]
    assert (event["kind"], event["digests"]["export"]) == ("import", exported["exportDigest"])


def test_import_collisions_need_replace_and_approve(skillreel_home: Path, tmp_path: Path) -> None:
    seeded(skillreel_home, "validated")
    out = tmp_path / "skill.json"
    ok(skillreel_home, "export", NAME, "--out", str(out))
    refused(skillreel_home, "import", str(out), code="SR_RECORD_EXISTS")
    refused(skillreel_home, "import", str(out), "--replace", code="SR_RECORD_APPROVAL_REQUIRED")
    replaced = ok(skillreel_home, "import", str(out), "--replace", "--approve", "--expected-revision", "3")
    assert (replaced["revision"], replaced["status"], replaced["replaced"]) == (4, "validated", True)
    assert [r["revision"] for r in ok(skillreel_home, "show", NAME)["revisions"]] == [1, 2, 3, 4]
    seeded(skillreel_home, "enabled", "live-skill")
    live = tmp_path / "live.json"
    ok(skillreel_home, "export", "live-skill", "--out", str(live))
    refused(skillreel_home, "import", str(live), "--replace", "--approve", code="SR_RECORD_STATE_INVALID")


def test_tampering_is_detected_with_the_right_code(skillreel_home: Path, tmp_path: Path) -> None:
    seeded(skillreel_home, "validated")
    out = tmp_path / "skill.json"
    ok(skillreel_home, "export", NAME, "--out", str(out))
    data = out.read_bytes()
    out.write_bytes(data.replace(b"Search invoices", b"Search invoicez", 1))
    other = {"SKILLREEL_HOME": str(tmp_path / "other")}
    error = refused(tmp_path / "other", "import", str(out), code="SR_RECORD_DIGEST_MISMATCH", exit_code=2,
                    env=other)
    assert "invoicez" not in error["message"]
    assert ok(tmp_path / "other", "list", env=other) == {"skills": []}

    with sqlite3.connect(skillreel_home / "store.db") as conn:
        (doc,) = conn.execute("SELECT document FROM revisions WHERE revision = 3").fetchone()
        conn.execute("UPDATE revisions SET document = ? WHERE revision = 3",
                     (doc.replace(b'"validated"', b'"validatex"'),))
        (event,) = conn.execute("SELECT document FROM audit WHERE seq = 2").fetchone()
        conn.execute("UPDATE audit SET document = ? WHERE seq = 2",
                     (event.replace(b'"review"', b'"revoke"'),))
    refused(skillreel_home, "show", NAME, code="SR_RECORD_STORE_CORRUPT")
    refused(skillreel_home, "export", NAME, "--out", str(tmp_path / "again.json"),
            code="SR_RECORD_STORE_CORRUPT")
    assert not (tmp_path / "again.json").exists()
    result = cli(skillreel_home, "audit", "--verify")
    assert result.exit_code == 1
    assert result.json() == {"ok": False, "events": 4, "brokenAt": 2, "code": "SR_RECORD_STORE_CORRUPT"}


def test_human_output_has_no_traceback(skillreel_home: Path, tmp_path: Path) -> None:
    seeded(skillreel_home, "validated")
    for args in (["list"], ["show", NAME], ["audit"], ["audit", "--verify"], ["policy"], ["policy-template"],
                 ["review", NAME, "--reviewer", "x"], ["show", "missing"], ["delete", NAME],
                 ["export", NAME, "--out", str(tmp_path / "e.json")], ["prune"]):
        result = run_cli(*args)
        assert "Traceback" not in result.stderr + result.stdout
        assert result.exit_code in (0, 1), (args, result.stderr)
        assert_owner_only(skillreel_home)
    assert "SR_RECORD_NOT_FOUND" in run_cli("show", "missing").stderr


def test_signed_export_and_trusted_import(skillreel_home: Path, tmp_path: Path) -> None:
    from tests.factory import write_keys

    private, public = write_keys(tmp_path)
    _, stranger = write_keys(tmp_path, "stranger")
    seeded(skillreel_home, "validated")
    signed, unsigned = tmp_path / "signed.json", tmp_path / "unsigned.json"
    exported = ok(skillreel_home, "export", NAME, "--out", str(signed), "--sign", str(private))
    assert exported["signedBy"].startswith("ed25519:")
    assert ok(skillreel_home, "export", NAME, "--out", str(unsigned))["signedBy"] is None
    other = tmp_path / "other"
    env = {"SKILLREEL_HOME": str(other)}
    refused(other, "import", str(unsigned), "--trust", str(public), code="SR_RECORD_SIGNATURE_INVALID",
            exit_code=2, env=env)
    refused(other, "import", str(signed), "--trust", str(stranger), code="SR_RECORD_SIGNATURE_INVALID",
            exit_code=2, env=env)
    refused(other, "import", str(signed), "--trust", str(private), code="SR_RECORD_INPUT_MALFORMED",
            exit_code=2, env=env)
    assert ok(other, "list", env=env) == {"skills": []}
    imported = ok(other, "import", str(signed), "--trust", str(stranger), "--trust", str(public), env=env)
    assert imported["signature"] == {"keyId": exported["signedBy"], "verified": True}


def test_review_refuses_capabilities_the_policy_forbids(skillreel_home: Path, tmp_path: Path) -> None:
    seeded(skillreel_home)
    path = tmp_path / "policy.json"
    template = ok(skillreel_home, "policy-template")
    path.write_text(json.dumps({**template, "allowedCapabilities": ["ui.interact"]}))
    ok(skillreel_home, "policy", "set", str(path), "--approve")
    error = refused(skillreel_home, "review", NAME, "--reviewer", "alice", "--approve",
                    code="SR_RECORD_POLICY_DENIED")
    assert "net.navigate" in error["message"]
    assert ok(skillreel_home, "show", NAME)["status"] == "draft"
