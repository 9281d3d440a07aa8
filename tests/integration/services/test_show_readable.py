"""``show`` for a reviewer: every step with its intent, inputs and outputs, the pending proposal with
intents, and the last runs (failed ones too) from the audit log."""

from __future__ import annotations

from skillreel.services.showing import show_skill
from skillreel.store import Store
from tests.integration.services.store_checks import NAME
from tests.support.factory import T1, proposal_for, record_run, seed


def test_show_reads_as_intents_with_runs(store: Store) -> None:
    seed(store, status="validated")
    record_run(store, NAME, healed=True, proposal=proposal_for(store.get(NAME), T1))
    record_run(store, NAME, "failed")
    shown = show_skill(store, NAME).to_json()
    assert [a["intent"] for a in shown["actions"]] == [
        "open the start page on https://fixture.skillreel.invalid",
        "type the input `query` into the field `#q`",
        "press Enter in the field `#q`",
        "click the button `#go`",
    ]
    assert shown["outputs"] == []
    assert [a["intent"] for a in shown["healProposal"]["actions"]] == ["click the button `#go-renamed`"]
    runs = shown["lastRuns"]
    assert [(r["outcome"], r["code"], r["healProposalDigest"] is not None) for r in runs] == [
        ("failed", "SR_REPLAY_UI_TARGET_NOT_FOUND", False),  # newest first
        ("succeeded", None, True),
    ]
