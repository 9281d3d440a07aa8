"""Versions, diff and rollback through the real console script: review prints the version, diff
shows a heal proposal step by step (JSON and text, hostile selector text escaped), rollback makes
a draft that review approves as the next version; list and show carry the version."""

from __future__ import annotations

from pathlib import Path

from skillreel.store import Store
from tests.support.cli import ok, refused, run_cli
from tests.support.factory import T1, proposal_for, record_run, seed

NAME = "search-invoices"
HOSTILE = "#go-[bold]x[/bold]<script>"


def _validated_with_proposal(home: Path) -> None:
    with Store.open() as store:
        seed(store)
    ok(home, "review", NAME, "--reviewer", "alice", "--expected-revision", "1", "--approve")
    with Store.open() as store:
        record_run(store, NAME)
        record_run(store, NAME, healed=True, proposal=proposal_for(store.get(NAME), T1, selector=HOSTILE))


def test_diff_review_and_rollback(skillreel_home: Path) -> None:
    _validated_with_proposal(skillreel_home)
    assert ok(skillreel_home, "list")["skills"][0]["version"] == "1.0.0"
    diff = ok(skillreel_home, "diff", NAME)
    assert (diff["from"]["label"], diff["to"]["label"], diff["nextVersion"]) == (
        "approved",
        "proposal",
        "1.0.1",
    )
    assert diff["steps"][0]["changes"][0]["after"] == [f"id {HOSTILE}"]
    text = run_cli("diff", NAME)
    assert text.exit_code == 0, text.stderr
    assert HOSTILE in text.stdout  # rich markup in a selector is printed, not interpreted
    reviewed = ok(
        skillreel_home,
        "review",
        NAME,
        "--reviewer",
        "bob",
        "--heal-proposal",
        "--expected-revision",
        "3",
        "--approve",
    )
    assert (reviewed["version"], reviewed["bump"]) == ("1.0.1", "patch")
    refused(skillreel_home, "rollback", NAME, "--to", "2", code="SR_RECORD_APPROVAL_REQUIRED")
    back = ok(skillreel_home, "rollback", NAME, "--to", "2", "--expected-revision", "4", "--approve")
    assert (back["status"], back["rolledBackTo"], back["restoredVersion"]) == ("draft", 2, "1.0.0")
    shown = ok(skillreel_home, "show", NAME)
    assert (shown["version"], shown["lastVersion"], shown["origin"]["revision"]) == (None, "1.0.1", 2)
    again = ok(skillreel_home, "review", NAME, "--reviewer", "carol", "--expected-revision", "5", "--approve")
    assert again["version"] == "1.0.2"
    provenance = ok(skillreel_home, "show", NAME)["provenance"]
    assert [(r["version"], r["source"]) for r in provenance] == [
        ("1.0.0", "review"),
        ("1.0.1", "heal"),
        ("1.0.2", "rollback"),
    ]
    refused(skillreel_home, "rollback", NAME, "--to", "40", "--approve", code="SR_RECORD_REVISION_NOT_FOUND")
    refused(skillreel_home, "diff", NAME, "40", code="SR_RECORD_REVISION_NOT_FOUND")
    human = run_cli("list")
    assert "1.0.2" in human.stdout


def test_the_text_diff_of_a_merged_heal_and_of_its_rollback_reads_as_the_json_does(
    skillreel_home: Path,
) -> None:
    """A merged heal keeps earlier fingerprints (``target.identities``, a count): the text diff
    crashed there (SR_RECORD_INTERNAL), and printed Python's None/True where JSON says null/true."""
    with Store.open() as store:
        seed(store)
    ok(skillreel_home, "review", NAME, "--reviewer", "alice", "--expected-revision", "1", "--approve")
    with Store.open() as store:
        record_run(store, NAME)
        record_run(store, NAME, healed=True, proposal=proposal_for(store.get(NAME), T1, merged=True))
    text = run_cli("diff", NAME)
    assert text.exit_code == 0, text.stdout + text.stderr
    assert "keeps 1 earlier fingerprint(s) as accepted identities (was 0)" in text.stdout
    ok(
        skillreel_home,
        "review",
        NAME,
        "--reviewer",
        "bob",
        "--heal-proposal",
        "--expected-revision",
        "3",
        "--approve",
    )
    ok(skillreel_home, "rollback", NAME, "--to", "2", "--expected-revision", "4", "--approve")
    back = run_cli("diff", NAME)
    assert back.exit_code == 0, back.stdout + back.stderr
    assert "(was 1)" in back.stdout
    assert "None" not in back.stdout
