"""First-version golden files (tests/golden/v1, written by the first version before schema v2): its
store opens and its skill replays unchanged, its export imports with the same digests, and its
package is exactly what today's code renders for the same entry."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from skillreel.agent_skills.install import installed_digest
from skillreel.agent_skills.package import file_digest, render_manifest
from skillreel.agent_skills.skill_md import render_skill_md
from skillreel.store import Store
from tests.support.cli import run_cli

pytestmark = pytest.mark.browser

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "v1"
NAME = "find-invoices"
DRAFT_DIGEST = "sha256:46f9673da08a28913ed8a3eda53e501696fb64c748cf051a3bcf196a47c2557c"


def golden_home(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    home.chmod(0o700)
    shutil.copyfile(GOLDEN / "store.db", home / "store.db")
    (home / "store.db").chmod(0o600)


def test_the_first_version_package_is_intact_and_renders_the_same(skillreel_home: Path) -> None:
    golden_home(skillreel_home)
    with Store.open() as store:
        entry = store.get(NAME)
    assert entry.draft.draft_digest == DRAFT_DIGEST
    assert entry.draft.to_json()["schema"] == "skillreel.draft/v1"
    assert entry.installation is not None
    # the package the first version installed is still recognised as intact (revoke can remove it)
    assert installed_digest(GOLDEN / "package") == entry.installation.package_digest
    # and schema v2 changes nothing of what is rendered for a first-version skill: SKILL.md and the
    # manifest (scripts/replay changed on purpose since: it names its program, store and actor).
    # Issue 13 changed both on purpose too, and only so: the version (1.0.0 for a skill approved
    # before versions existed) and its history, and the vault's code for a missing secret.
    gold = {p: (GOLDEN / "package" / p).read_bytes() for p in ("SKILL.md", "scripts/replay")}
    since_v1 = (
        (
            "(`SR_REPLAY_PARAMETER_MISSING`)",
            "(`SR_REPLAY_PARAMETER_MISSING`; a sensitive one from the vault: `SR_REPLAY_SECRET_MISSING`)",
        ),
        ("Skill revision 4. ", "Version 1.0.0 (skill revision 4). "),
        ("equal to the store's entry.", "equal to the store's entry, and its version history."),
    )
    expected = gold["SKILL.md"].decode()
    for before, after in since_v1:
        assert expected.count(before) == 1
        expected = expected.replace(before, after)
    assert render_skill_md(entry, entry.revision) == expected
    digests = {p: file_digest(data) for p, data in gold.items()}
    manifest = json.loads(render_manifest(entry, entry.revision, digests))
    assert (manifest["entry"].pop("version"), manifest.pop("provenance")) == ("1.0.0", [])
    assert manifest == json.loads((GOLDEN / "package" / "recorded-skill.json").read_bytes())


def test_a_first_version_store_replays_unchanged(skillreel_home: Path) -> None:
    golden_home(skillreel_home)
    before = run_cli("show", NAME, "--json").data()
    assert (before["status"], before["digests"]["draft"]) == ("enabled", DRAFT_DIGEST)
    page = str(GOLDEN / "page.html")
    replayed = run_cli(
        "replay", NAME, "--html", page, "--input", "customer=ACME", "--input", "status=paid", "--json"
    )
    assert replayed.exit_code == 0, replayed.stderr
    doc = replayed.data()
    assert doc["status"] == "succeeded"
    assert doc["outputs"] is None
    assert [s["actionId"] for s in doc["steps"]] == [a["id"] for a in before["actions"]]
    after = run_cli("show", NAME, "--json").data()
    assert (after["status"], after["digests"]["draft"]) == ("enabled", DRAFT_DIGEST)
    assert run_cli("audit", "--verify", "--json").exit_code == 0


def test_a_first_version_export_imports_with_its_digests(skillreel_home: Path, tmp_path: Path) -> None:
    exported = json.loads((GOLDEN / "find-invoices.export.json").read_text())
    imported = run_cli("import", str(GOLDEN / "find-invoices.export.json"), "--approve", "--json")
    assert imported.exit_code == 0, imported.stderr
    shown = run_cli("show", NAME, "--json").data()
    assert shown["digests"]["draft"] == DRAFT_DIGEST
    assert shown["digests"]["events"] == exported["entry"]["draft"]["eventsDigest"]
