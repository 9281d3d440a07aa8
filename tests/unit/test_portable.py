"""Portable skills (model/portable.py) and the documents that declare and approve environments."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from skillreel.errors import SkillreelError
from skillreel.model import lifecycle
from skillreel.model.actions import AssertAction, ClickAction, NavigateAction
from skillreel.model.approval import Approval
from skillreel.model.canonical import bytes_digest
from skillreel.model.entry import StoreEntry
from skillreel.model.environment import (
    Environment,
    NamedEnvironment,
    UrlTarget,
    build_url_target,
    query_keys,
)
from skillreel.model.portable import declare, rebase, strip_query_keys, with_environment, without_environment
from skillreel.model.urls import URLRuleError
from tests.support import factory
from tests.support.factory import T0, T1, bundle
from tests.support.narrow import narrow

PROD = "http://127.0.0.1:8000"
STAGING = "http://127.0.0.1:9000"
CDN = "https://cdn.example.com"


def prod(**fields: object) -> Environment:
    target = build_url_target(f"{PROD}/orders?state=open&token=t", (CDN,), query_keys(keep=["id"]))
    return Environment.build(target=target, **fields)


ACTIONS = (
    NavigateAction(id="a1", url=f"{PROD}/orders?state=open"),
    ClickAction(id="a2", target=bundle("#go", tag="button", type_="submit")),
    NavigateAction(id="a3", url=f"{PROD}/orders/7?tab=lines", reason="address-bar"),
    NavigateAction(id="a4", url=f"{CDN}/help", reason="address-bar"),
    AssertAction(id="a5", check="url_matches", expected=f"{PROD}/orders/*"),
    AssertAction(id="a6", check="url_matches", expected="/orders/7?tab=lines"),
)


def test_declare_rebases_the_recorded_allowlist_by_default() -> None:
    named = declare(prod(), ACTIONS, "staging", STAGING)
    assert named == NamedEnvironment(name="staging", origin=STAGING, allowed_origins=(STAGING, CDN))
    own = declare(prod(), ACTIONS[:3], "staging", "http://LOCALHOST:9000/", ["https://cdn2.example.com"], "s")
    assert own.origin == "http://localhost:9000"
    assert own.allowed_origins == ("http://localhost:9000", "https://cdn2.example.com")
    assert own.login == "s"


@pytest.mark.parametrize(
    ("origin", "allowed", "rule"),
    [
        (PROD, (), "differs from the recorded one"),
        ("http://staging.example.com", (), "plain http is allowed only on loopback"),
        ("https://staging.example.com/path", (), "no path"),
        (STAGING, ("https://cdn2.example.com",), "step a4 loads a page of an origin off"),
        (STAGING, tuple(f"https://o{i}.example.com" for i in range(8)), "at most 8"),
    ],
)
def test_declare_refuses(origin: str, allowed: tuple[str, ...], rule: str) -> None:
    with pytest.raises(URLRuleError, match=rule):
        declare(prod(), ACTIONS, "staging", origin, allowed)


def test_rebase_moves_target_navigations_and_url_checks() -> None:
    staging = NamedEnvironment(
        name="staging", origin=STAGING, allowed_origins=(STAGING, CDN), login="stage-login"
    )
    environment = with_environment(prod(login="prod-login"), staging)
    moved = rebase(environment, ACTIONS, "staging")
    assert moved.environment.start_url == f"{STAGING}/orders?state=open"  # path and query stay
    assert moved.environment.allowed_origins == (STAGING, CDN)
    assert moved.environment.login == "stage-login"  # its own, never the recorded one
    assert moved.environment.environments == ()
    target = narrow(UrlTarget, moved.environment.target)
    assert target.query == narrow(UrlTarget, environment.target).query  # the same query rule
    urls = [a.url for a in moved.actions if isinstance(a, NavigateAction)]
    assert urls == [f"{STAGING}/orders?state=open", f"{STAGING}/orders/7?tab=lines", f"{CDN}/help"]
    checks = [a.expected for a in moved.actions if isinstance(a, AssertAction)]
    assert checks == [f"{STAGING}/orders/*", "/orders/7?tab=lines"]
    assert moved.actions[1] == ACTIONS[1]


def test_rebase_refuses_a_navigation_off_the_environments_allowlist() -> None:
    environment = with_environment(prod(), factory.staging(STAGING))
    with pytest.raises(URLRuleError, match="step a4"):
        rebase(environment, ACTIONS, "staging")
    with pytest.raises(URLRuleError):
        rebase(environment, ACTIONS, "nowhere")


def test_an_environment_without_a_login_signs_in_nowhere() -> None:
    environment = with_environment(prod(login="prod-login"), factory.staging(STAGING))
    assert rebase(environment, ACTIONS[:3], "staging").environment.login is None


def test_environment_documents_keep_their_rules() -> None:
    environment = with_environment(prod(), factory.staging(STAGING))
    assert environment.environment_names == ("staging",)
    assert without_environment(environment, "staging") == prod()
    with pytest.raises(ValidationError, match="differs from the recorded one"):
        prod().evolve(environments=(factory.staging(PROD),))
    with pytest.raises(ValidationError, match="unique and sorted"):
        prod().evolve(environments=(factory.staging(STAGING), factory.staging(STAGING)))
    with pytest.raises(ValidationError, match="not both"):
        prod(login="a", storage_state_digest=bytes_digest("skillreel.storage-state/v1", b"{}"))
    with pytest.raises(ValidationError, match="HTML fixture"):
        factory.html_environment().evolve(login="a")
    with pytest.raises(ValidationError):
        NamedEnvironment(name="staging", origin=STAGING, allowed_origins=(CDN,))  # without its origin
    with pytest.raises(ValidationError):
        NamedEnvironment(name="Staging", origin=STAGING, allowed_origins=(STAGING,))


def test_later_fields_are_left_out_when_unset() -> None:
    v1 = factory.v1_url_environment()
    assert set(v1.to_json()) == {
        "schema",
        "target",
        "identity",
        "storageStateDigest",
        "viewport",
        "environmentDigest",
    }
    assert "query" not in v1.to_json()["target"]
    assert narrow(UrlTarget, v1.target).rule.v1
    declared = with_environment(prod(login="s"), factory.staging(STAGING)).to_json()
    assert declared["session"] == "s"
    assert declared["environments"][0]["name"] == "staging"
    assert declared["target"]["query"] == {"keep": ["id"], "strip": [], "stripped": ["token"]}


def _entry_with(environment: Environment) -> StoreEntry:
    return factory.entry(
        environment=environment,
        actions=ACTIONS[:2],
        parameters=(),
        capabilities=(
            "net.navigate",
            "ui.interact",
        ),
    )


def test_an_approval_names_exactly_the_environments_it_covers() -> None:
    qa = factory.staging("http://127.0.0.1:9100", name="qa")
    environment = with_environment(with_environment(prod(), factory.staging(STAGING)), qa)
    entry = _entry_with(environment)
    every = lifecycle.approve(entry, "alice", T1)
    assert every.approval is not None
    assert every.approval.approved_environments == ("qa", "staging")
    only = lifecycle.approve(entry, "alice", T1, ["staging"])
    assert only.approval is not None
    assert only.approval.covers("staging")
    assert not only.approval.covers("qa")
    with pytest.raises(SkillreelError) as info:
        lifecycle.approve(entry, "alice", T1, ["prod"])
    assert info.value.code == "SR_RECORD_ENVIRONMENT_UNKNOWN"


def test_an_approval_of_an_undeclared_environment_does_not_match() -> None:
    entry = _entry_with(prod())
    forged = Approval.build(
        name=entry.name,
        draft_digest=entry.draft.draft_digest,
        reviewer="mallory",
        approved_capabilities=entry.draft.capabilities,
        approved_environments=("staging",),
        approved_at=T0,
    )
    assert not forged.matches(entry.draft)
    with pytest.raises(ValidationError):
        Approval.build(
            **{
                **forged.model_dump(exclude={"approval_digest", "schema_"}),
                "approved_environments": ("b", "a"),
            }
        )
    plain = lifecycle.approve(entry, "alice", T1).approval
    assert plain is not None
    assert "approvedEnvironments" not in plain.to_json()  # an approval without any keeps v1 bytes


def test_strip_query_keys_moves_a_kept_key_to_stripped_everywhere() -> None:
    environment = prod()
    stripped = strip_query_keys(environment, ACTIONS, factory.events_log(), ["STATE", "tab", "id"])
    target = narrow(UrlTarget, stripped.environment.target)
    assert target.url == f"{PROD}/orders"
    assert target.query is not None
    assert target.query.to_json() == {
        "keep": [],
        "strip": ["id", "state", "tab"],
        "stripped": ["state", "token"],
    }
    assert [getattr(a, "url", None) or getattr(a, "expected", None) for a in stripped.actions] == [
        f"{PROD}/orders",
        None,
        f"{PROD}/orders/7",
        f"{CDN}/help",
        f"{PROD}/orders/*",
        "/orders/7",
    ]
    assert stripped.environment.environment_digest != environment.environment_digest
    again = strip_query_keys(stripped.environment, stripped.actions, stripped.events, ["state"])
    assert again.environment == stripped.environment  # stripping twice changes nothing
    assert again.actions == stripped.actions


@pytest.mark.parametrize(
    "environment",
    [
        factory.html_environment(),  # an HTML fixture
        factory.v1_url_environment(f"{PROD}/orders"),  # the first rule: record again to choose
    ],
)
def test_strip_query_keys_needs_a_url_target_with_query_choices(environment: Environment) -> None:
    with pytest.raises(URLRuleError):
        strip_query_keys(environment, ACTIONS, factory.events_log(), ["state"])
