"""``env set|remove|list|strip-query`` as use cases: every change is a new draft revision needing
review; the approval names exactly the environments it covers; refusals change nothing."""

from __future__ import annotations

import json
from pathlib import Path

from skillreel.model import lifecycle
from skillreel.model.actions import AssertAction, ClickAction, NavigateAction
from skillreel.model.environment import UrlTarget
from skillreel.model.events import EventsLog, RecordedEvent
from skillreel.replay.engine import url_matches
from skillreel.services.declaring import list_environments, remove_environment, set_environment, strip_query
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.integration.services.store_checks import refused
from tests.support.factory import (
    SALT,
    T0,
    build_draft,
    bundle,
    seed,
    store_approved,
    store_entry,
    url_environment,
    v1_url_environment,
)
from tests.support.server import LocalServer

NAME = "orders"
PROD = "http://127.0.0.1:8000"
STAGING = "http://127.0.0.1:9000"
CDN = "https://cdn.example.com"


def approved_orders(store: Store) -> None:
    environment = url_environment(f"{PROD}/orders?state=open", (CDN,))
    actions = (
        NavigateAction(id="a1", url=environment.start_url),
        ClickAction(id="a2", target=bundle("#go", tag="button", type_="submit")),
    )
    store_approved(store, build_draft(NAME, environment, actions))


def test_set_makes_a_draft_that_review_approves(store: Store, skillreel_home: Path) -> None:
    approved_orders(store)
    change = set_environment(store, NAME, "staging", STAGING, expected_revision=2)
    data = change.to_json()
    assert (data["revision"], data["status"], data["changed"]) == (3, "draft", True)
    assert data["environments"] == [
        {
            "name": "staging",
            "origin": STAGING,
            "allowedOrigins": [STAGING, CDN],
            "session": None,
            "approved": False,
        }
    ]
    same = set_environment(store, NAME, "staging", STAGING)
    assert same.changed is False
    assert same.entry.revision == 3
    refused(
        skillreel_home,
        "SR_RECORD_REVISION_UNPINNED",
        lambda: set_environment(store, NAME, "qa", "http://127.0.0.1:9100"),
        2,
    )
    set_environment(
        store,
        NAME,
        "qa",
        "http://127.0.0.1:9100",
        ["https://cdn-qa.example.com"],
        "shop-qa",
        expected_revision=3,
    )
    review = review_skill(
        store,
        NAME,
        "alice",
        approve=True,
        expected_revision=store.get(NAME).revision,
        environments=["staging"],
    ).to_json()
    assert review["approvedEnvironments"] == ["staging"]
    listed = list_environments(store, NAME).to_json()
    assert [(e["name"], e["approved"], e["session"]) for e in listed["environments"]] == [
        ("qa", False, "shop-qa"),
        ("staging", True, None),
    ]
    assert listed["recorded"] == {"origin": PROD, "allowedOrigins": [PROD, CDN]}
    events = [e.to_json()["kind"] for e in store.audit_events(NAME)]
    assert events[-3:] == ["environment", "environment", "review"]


def test_a_missing_login_is_a_warning(store: Store) -> None:
    approved_orders(store)
    change = set_environment(store, NAME, "staging", STAGING, login="nobody", expected_revision=2)
    assert [w.code for w in change.warnings] == ["SR_RECORD_SESSION_MISSING"]
    assert change.changed


def test_remove(store: Store, skillreel_home: Path) -> None:
    approved_orders(store)
    set_environment(store, NAME, "staging", STAGING, expected_revision=2)
    refused(
        skillreel_home,
        "SR_RECORD_REVISION_UNPINNED",
        lambda: remove_environment(store, NAME, "staging"),
        2,
    )
    removed = remove_environment(store, NAME, "staging", expected_revision=3).to_json()
    assert (removed["revision"], removed["environments"]) == (4, [])
    refused(
        skillreel_home,
        "SR_RECORD_ENVIRONMENT_UNKNOWN",
        lambda: remove_environment(store, NAME, "staging"),
        2,
    )


def test_refusals_change_nothing(store: Store, skillreel_home: Path) -> None:
    approved_orders(store)
    cases = [
        ("SR_RECORD_TARGET_INVALID", 2, lambda: set_environment(store, NAME, "staging", PROD)),
        (
            "SR_RECORD_TARGET_INVALID",
            2,
            lambda: set_environment(store, NAME, "staging", "http://staging.test"),
        ),
        ("SR_RECORD_USAGE", 2, lambda: set_environment(store, NAME, "Staging", STAGING)),
        ("SR_RECORD_USAGE", 2, lambda: set_environment(store, NAME, "staging", STAGING, login="Bad")),
        (
            "SR_RECORD_REVISION_CONFLICT",
            1,
            lambda: set_environment(store, NAME, "s", STAGING, expected_revision=1),
        ),
        ("SR_RECORD_NOT_FOUND", 1, lambda: set_environment(store, "nope", "staging", STAGING)),
    ]
    for code, status, call in cases:
        refused(skillreel_home, code, call, status)
    set_environment(store, NAME, "staging", STAGING, expected_revision=2)
    refused(
        skillreel_home,
        "SR_RECORD_ENVIRONMENT_UNKNOWN",
        lambda: review_skill(
            store,
            NAME,
            "a",
            approve=True,
            expected_revision=store.get(NAME).revision,
            environments=["staging", "x"],
        ),
        2,
    )


def test_an_enabled_skill_is_revoked_first(store: Store, skillreel_home: Path) -> None:
    seed(store, NAME, "enabled", environment=url_environment(f"{PROD}/orders"))
    refused(
        skillreel_home, "SR_RECORD_STATE_INVALID", lambda: set_environment(store, NAME, "staging", STAGING)
    )


def test_an_html_skill_has_no_environments(store: Store, skillreel_home: Path) -> None:
    seed(store, NAME)
    refused(
        skillreel_home,
        "SR_RECORD_TARGET_INVALID",
        lambda: set_environment(store, NAME, "staging", STAGING),
        2,
    )


async def test_replays_on_undeclared_or_unapproved_environments_start_nothing(
    store: Store, server: LocalServer, second_server: LocalServer
) -> None:
    production, staging = server, second_server
    environment = url_environment(production.url("/orders"))
    actions = (
        NavigateAction(id="a1", url=environment.start_url),
        ClickAction(id="a2", target=bundle("#go", tag="button", type_="submit")),
    )
    store_approved(store, build_draft(NAME, environment, actions))
    set_environment(store, NAME, "staging", staging.origin, expected_revision=2)
    set_environment(store, NAME, "qa", "http://127.0.0.1:9", expected_revision=3)
    review_skill(
        store,
        NAME,
        "alice",
        approve=True,
        expected_revision=store.get(NAME).revision,
        environments=["staging"],
    )
    for environment_name, code in (
        ("qa", "SR_RECORD_ENVIRONMENT_NOT_APPROVED"),
        ("preprod", "SR_RECORD_ENVIRONMENT_UNKNOWN"),
    ):
        outcome = await replay_skill(store, ReplayRequest(name=NAME, environment=environment_name))
        assert outcome.error is not None
        assert outcome.error.code == code
        assert outcome.to_json()["environment"] == environment_name
    assert (production.requests, staging.requests) == ([], [])
    # Refusals are audited as replay-refused (fast ones coalesced into the next written event).
    refusals = [(e.outcome, e.code) for e in store.audit_events(NAME) if e.kind == "replay-refused"]
    assert refusals[0] == ("failed", "SR_RECORD_ENVIRONMENT_NOT_APPROVED")
    assert {code for _, code in refusals} <= {
        "SR_RECORD_ENVIRONMENT_NOT_APPROVED",
        "SR_RECORD_ENVIRONMENT_UNKNOWN",
    }
    assert not [e for e in store.audit_events(NAME) if e.kind == "run-start"]  # no run was reserved


def test_strip_query_takes_a_kept_key_out_of_every_url_of_the_skill(
    store: Store, skillreel_home: Path
) -> None:
    start = f"{PROD}/orders?state=open&key=orders&page=2"
    environment = url_environment(start)
    assert environment.start_url == start  # the rule keeps the business key `key`
    detail = f"{PROD}/orders/7?key=orders"
    actions = (
        NavigateAction(id="a1", url=start),
        NavigateAction(id="a2", url=detail, reason="address-bar"),
        AssertAction(id="a3", check="url_matches", expected="/orders/7?key=orders"),
    )
    events = EventsLog.build(
        salt=SALT,
        events=(
            RecordedEvent(seq=0, type="navigate", url=start, reason="start"),
            RecordedEvent(seq=1, type="navigate", url=detail, reason="address-bar"),
            RecordedEvent(seq=2, type="assert", check="url_matches", expected="/orders/7?key=orders"),
        ),
    )
    draft = build_draft(NAME, environment, actions).evolve(events_digest=events.events_digest)
    store_entry(store, lifecycle.new_entry(draft, events, T0), "approved")

    change = strip_query(store, NAME, ["KEY"], expected_revision=2)
    data = change.to_json()
    assert (data["revision"], data["status"], data["changed"]) == (3, "draft", True)
    assert data["query"] == {"keep": [], "strip": ["key"], "stripped": ["key"]}
    entry = store.get(NAME)
    assert entry.approval is None  # a reviewer approves the new draft
    assert entry.draft.environment.start_url == f"{PROD}/orders?state=open&page=2"
    navigations = [a for a in entry.draft.actions if isinstance(a, NavigateAction)]
    assert [a.url for a in navigations] == [f"{PROD}/orders?state=open&page=2", f"{PROD}/orders/7"]
    check = entry.draft.actions[2]
    assert isinstance(check, AssertAction)
    assert check.expected == "/orders/7"
    assert "key=orders" not in json.dumps([entry.draft.to_json(), entry.events.to_json()])
    # The page URLs a replay compares lose the key too, so the check still holds on the live URL.
    target = entry.draft.environment.target
    assert isinstance(target, UrlTarget)
    rule = target.rule
    assert url_matches(detail, check.expected, rule)
    assert url_matches(detail + "&page=3", "/orders/7?page=3", rule)

    again = strip_query(store, NAME, ["key"])
    assert (again.changed, again.entry.revision) == (False, 3)
    assert store.audit_events(NAME)[-1].to_json()["kind"] == "environment"
    review = review_skill(
        store, NAME, "alice", approve=True, expected_revision=store.get(NAME).revision
    ).to_json()
    assert review["status"] == "approved"


def test_strip_query_refusals_change_nothing(store: Store, skillreel_home: Path) -> None:
    approved_orders(store)
    seed(store, "fixture")
    seed(store, "first", environment=v1_url_environment(f"{PROD}/orders?state=open"))
    seed(store, "live", "enabled", environment=url_environment(f"{PROD}/orders"))
    cases = [
        ("SR_RECORD_USAGE", 2, lambda: strip_query(store, NAME, ["a b"])),
        ("SR_RECORD_TARGET_INVALID", 2, lambda: strip_query(store, "fixture", ["key"])),
        ("SR_RECORD_TARGET_INVALID", 2, lambda: strip_query(store, "first", ["key"])),
        ("SR_RECORD_STATE_INVALID", 1, lambda: strip_query(store, "live", ["key"])),
        ("SR_RECORD_REVISION_CONFLICT", 1, lambda: strip_query(store, NAME, ["key"], expected_revision=1)),
        ("SR_RECORD_NOT_FOUND", 1, lambda: strip_query(store, "nope", ["key"])),
        ("SR_RECORD_REVISION_UNPINNED", 2, lambda: strip_query(store, NAME, ["key"])),
    ]
    for code, status, call in cases:
        refused(skillreel_home, code, call, status)
