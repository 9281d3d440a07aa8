"""``list`` and ``show`` as use cases: the summary list, and the projection a reviewer reads."""

from __future__ import annotations

from skillreel.services.listing import list_skills
from skillreel.services.showing import show_skill
from skillreel.store import Store
from tests.integration.services.store_checks import NAME
from tests.support.factory import T1, proposal_for, record_run, seed


def test_list_shows_every_skill_with_its_state_and_revision(store: Store) -> None:
    empty = list_skills(store).to_json()
    assert empty["skills"] == []
    assert empty["store"]["limitBytes"] == 32 * 1024 * 1024  # source document 000, section 12
    assert 0 < empty["store"]["bytes"] < empty["store"]["limitBytes"]
    seed(store, NAME, "validated")
    seed(store, "another-skill", "draft")
    listed = list_skills(store).to_json()["skills"]
    assert [(s["name"], s["status"], s["revision"]) for s in listed] == [
        ("another-skill", "draft", 1),
        (NAME, "validated", 3),
    ]
    assert listed[1]["description"] == "Search invoices by customer."


def test_show_projects_everything_a_reviewer_needs(store: Store) -> None:
    seed(store, NAME, "validated")
    shown = show_skill(store, NAME).to_json()
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
    assert set(shown["digests"]) == {
        "entry",
        "draft",
        "events",
        "environment",
        "approval",
        "lastReport",
        "package",
    }
    assert shown["digests"]["approval"]
    assert shown["digests"]["lastReport"]
    assert shown["approval"]["reviewer"] == "alice"
    assert shown["installation"] is None
    assert shown["healProposal"] is None
    assert [r["status"] for r in shown["revisions"]] == ["draft", "approved", "validated"]
    assert shown["next"] == ["replay", "enable", "delete"]
    older = show_skill(store, NAME, 1).to_json()
    assert (older["status"], older["current"], older["approval"]) == ("draft", False, None)


def test_show_a_pending_heal_proposal_with_its_healed_actions(store: Store) -> None:
    validated = seed(store, status="validated")
    record_run(store, NAME, healed=True, proposal=proposal_for(validated, T1))
    shown = show_skill(store, NAME).to_json()
    assert shown["revision"] == validated.revision  # a run never makes a revision
    assert [p["draftDigest"] for p in shown["healProposals"]] == [shown["healProposal"]["draftDigest"]]
    assert shown["healProposal"]["healedActions"] == ["a4"]
    (healed,) = shown["healProposal"]["actions"]
    assert (healed["id"], healed["target"]["candidates"][0]["selector"]) == ("a4", "#go-renamed")
    assert "review --heal-proposal" in shown["next"]


def test_show_projects_the_rows_a_target_chooses_among(store: Store) -> None:
    """A click chosen in the row that shows an input: ``show`` lists the rows' candidates beside the
    target's own (no hash of either)."""
    from skillreel.model.actions import ClickAction
    from skillreel.model.locators import LocatorBundle
    from tests.support.factory import draft, element_set

    base = draft(NAME)
    go = base.actions[3]
    assert isinstance(go, ClickAction)
    rowed = LocatorBundle.parse(
        {
            **go.target.to_json(),
            "filter": {"containsToken": {"ref": "parameter", "name": "query"}},
            "row": element_set("tbody tr").to_json(),
        }
    )
    seed(store, NAME, "draft", actions=(*base.actions[:3], go.model_copy(update={"target": rowed})))
    target = show_skill(store, NAME).to_json()["actions"][3]["target"]
    assert target["row"]["candidates"] == [{"strategy": "css", "selector": "tbody tr", "matchCount": 20}]
    assert target["row"]["element"] == {"tag": "tr", "type": None, "role": None}
    assert "row" not in show_skill(store, NAME).to_json()["actions"][1]["target"]
