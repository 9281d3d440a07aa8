"""The governance verbs through the real console script: list, show, review, delete, prune, audit,
policy, policy-template, export and import. Each verb runs with ``--json`` (one document on stdout)
and in human form, with every option it has, so each option is shown to reach its use case; after
every command the home directory and the database files are owner-only.

What the use cases decide is tested as functions over a temporary store in
``tests/integration/services/``; each verb's refusals in JSON and human form are in
``test_governance_bad_input.py``. Skills are seeded in-process through the Store API
(``tests.support.factory.seed``) and then driven with the CLI, as a user would after recording.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from skillreel.store import Store
from tests.support.cli import cli, ok, run_cli
from tests.support.factory import T1, proposal_for, record_run, seed, write_keys
from tests.support.readback import assert_owner_only

NAME = "search-invoices"


def human(home: Path, *args: str, env: dict[str, str] | None = None, exit_code: int = 0) -> str:
    """Run a verb without --json: its exit status, no traceback, owner-only files; its stdout."""
    result = run_cli(*args, env=env)
    assert "Traceback" not in result.stderr + result.stdout
    assert result.exit_code == exit_code, result.stdout + result.stderr
    assert_owner_only(home)
    return result.stdout


def seeded(home: Path, status: str = "draft", name: str = NAME, **kw: Any) -> None:
    with Store.open() as store:
        seed(store, name, status, **kw)


def test_list_and_show(skillreel_home: Path) -> None:
    empty = ok(skillreel_home, "list")
    assert empty["skills"] == []
    assert empty["store"]["bytes"] <= empty["store"]["limitBytes"] == 32 * 1024 * 1024
    seeded(skillreel_home, "validated")
    seeded(skillreel_home, "draft", "another-skill")
    listed = ok(skillreel_home, "list")["skills"]
    assert [(s["name"], s["status"], s["revision"]) for s in listed] == [
        ("another-skill", "draft", 1),
        (NAME, "validated", 3),
    ]
    text = human(skillreel_home, "list")
    assert NAME in text
    assert "another-skill" in text
    shown = ok(skillreel_home, "show", NAME)
    assert (shown["status"], shown["revision"], shown["current"]) == ("validated", 3, True)
    assert shown["next"] == ["replay", "enable", "delete"]
    older = ok(skillreel_home, "show", NAME, "--revision", "1")
    assert (older["status"], older["current"], older["approval"]) == ("draft", False, None)
    text = human(skillreel_home, "show", NAME)
    assert f"{NAME} 1.0.0, revision 3 - validated" in text
    assert "next: replay, enable, delete" in text


def test_review(skillreel_home: Path) -> None:
    with Store.open() as store:
        validated = seed(store, status="validated")
        record_run(store, NAME, healed=True, proposal=proposal_for(validated, T1))
        seed(store, "another-skill")
    result = ok(
        skillreel_home,
        "review",
        NAME,
        "--reviewer",
        "bob",
        "--heal-proposal",
        "--approve",
        "--expected-revision",
        "3",
    )
    assert (result["status"], result["revision"], result["healProposalAccepted"]) == ("approved", 4, True)
    assert ok(skillreel_home, "show", NAME)["approval"]["reviewer"] == "bob"
    text = human(
        skillreel_home,
        "review",
        "another-skill",
        "--reviewer",
        "alice",
        "--expected-revision",
        "1",
        "--approve",
    )
    assert "approved another-skill version 1.0.0 (initial), revision 2 (sha256:" in text


def test_delete_and_prune(skillreel_home: Path) -> None:
    seeded(skillreel_home, "validated")
    seeded(skillreel_home, "draft", "other")
    seeded(skillreel_home, "draft", "old-draft", now="2020-01-01T00:00:00Z")
    assert ok(skillreel_home, "delete", NAME, "--approve", "--expected-revision", "3") == {
        "deleted": NAME,
        "revision": 3,
        "status": "validated",
    }
    unpinned = cli(skillreel_home, "delete", "other", "--approve")
    assert (unpinned.exit_code, unpinned.json()["error"]["code"]) == (2, "SR_RECORD_REVISION_UNPINNED")
    assert (
        "run `skillreel delete other --expected-revision 1 --approve`" in unpinned.json()["error"]["message"]
    )
    deleted = human(skillreel_home, "delete", "other", "--expected-revision", "1", "--approve")
    assert "deleted other (was revision 1)" in deleted
    assert ok(skillreel_home, "prune", "--approve") == {
        "pruned": [{"name": "old-draft", "revision": 1}],
        "retentionDays": 90,
        "auditTrimmed": 0,
        "trimmed": {"healProposals": 0, "interrupted": 0, "revisions": 0, "runs": 0},
        "installsRecovered": [],
    }
    assert "nothing is older than 90 days" in human(skillreel_home, "prune")
    assert ok(skillreel_home, "list")["skills"] == []


def test_audit_and_verify(skillreel_home: Path) -> None:
    seeded(skillreel_home, "revoked")
    seeded(skillreel_home, "draft", "other")
    named = ok(skillreel_home, "audit", "--name", NAME, "--limit", "2")
    assert named["total"] == 5
    assert [(e["seq"], e["name"]) for e in named["events"]] == [(4, NAME), (5, NAME)]
    assert "6 shown of 6 events" in human(skillreel_home, "audit")
    assert ok(skillreel_home, "audit", "--verify") == {"ok": True, "events": 6, "brokenAt": None}
    assert "audit chain ok: 6 events" in human(skillreel_home, "audit", "--verify")

    with sqlite3.connect(skillreel_home / "store.db") as conn:
        (event,) = conn.execute("SELECT document FROM audit WHERE seq = 2").fetchone()
        conn.execute(
            "UPDATE audit SET document = ? WHERE seq = 2", (event.replace(b'"review"', b'"revoke"'),)
        )
    result = cli(skillreel_home, "audit", "--verify")
    assert result.exit_code == 1
    assert result.json()["error"]["code"] == "SR_RECORD_STORE_CORRUPT"
    assert result.data() == {"ok": False, "events": 6, "brokenAt": 2}
    text = human(skillreel_home, "audit", "--verify", exit_code=1)
    assert "SR_RECORD_STORE_CORRUPT: the audit chain breaks at event 2" in text


def test_policy_and_policy_template(skillreel_home: Path, tmp_path: Path) -> None:
    template = ok(skillreel_home, "policy-template")
    assert (template["schema"], template["retentionDays"]) == ("skillreel.policy/v1", 90)
    assert json.loads(human(skillreel_home, "policy-template")) == template
    shown = ok(skillreel_home, "policy")
    assert (shown["default"], shown["policy"]["maxRecords"]) == (True, 500)
    assert human(skillreel_home, "policy").startswith("default policy\n")
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({**template, "retentionDays": 30}))
    changed = ok(skillreel_home, "policy", "set", str(path), "--approve")
    assert changed["changed"] == [{"field": "retentionDays", "from": 90, "to": 30}]
    assert ok(skillreel_home, "policy")["policy"]["retentionDays"] == 30
    path.write_text(json.dumps({**template, "retentionDays": 30, "maxRecords": 400}))
    text = human(skillreel_home, "policy", "set", str(path), "--approve")
    assert "policy updated: maxRecords 500 -> 400" in text
    assert "nothing changed" in human(skillreel_home, "policy", "set", str(path), "--approve")


def test_export_and_import(skillreel_home: Path, tmp_path: Path) -> None:
    private, public = write_keys(tmp_path)
    seeded(skillreel_home, "enabled")
    out, plain = tmp_path / "skill.json", tmp_path / "plain.json"
    out.write_text("{}")  # an existing file: --force replaces it
    exported = ok(skillreel_home, "export", NAME, "--out", str(out), "--force", "--sign", str(private))
    assert (exported["name"], exported["revision"]) == (NAME, 4)
    assert exported["signedBy"].startswith("ed25519:")
    assert out.stat().st_mode & 0o777 == 0o600
    assert json.loads(out.read_text())["exportDigest"] == exported["exportDigest"]
    text = human(skillreel_home, "export", NAME, "--out", str(plain))
    assert f"exported {NAME} revision 4 to" in text

    other = tmp_path / "other-home"
    env = {"SKILLREEL_HOME": str(other)}
    imported = ok(other, "import", str(out), "--trust", str(public), env=env)
    assert (imported["name"], imported["revision"], imported["status"], imported["replaced"]) == (
        NAME,
        1,
        "validated",
        False,
    )
    assert imported["signature"] == {"keyId": exported["signedBy"], "verified": True}
    replaced = ok(other, "import", str(plain), "--replace", "--approve", "--expected-revision", "1", env=env)
    assert (replaced["revision"], replaced["replaced"], replaced["signature"]) == (2, True, None)
    third = tmp_path / "third-home"
    text = human(third, "import", str(plain), env={"SKILLREEL_HOME": str(third)})
    assert f"imported {NAME} as revision 1 (draft); not verified against a trusted key" in text
