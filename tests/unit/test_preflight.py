"""Pre-flight: every refusal before a browser starts (replay/preflight.py), and the vault."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillreel import vault
from skillreel.errors import SkillreelError
from skillreel.model.actions import NavigateAction, SelectAction, TypeAction, capability_manifest
from skillreel.model.canonical import tagged_digest
from skillreel.model.draft import Parameter
from skillreel.model.entry import StoreEntry
from skillreel.model.environment import Environment, NamedEnvironment, build_url_target
from skillreel.model.lifecycle import approve, new_entry
from skillreel.model.login import LoginState
from skillreel.model.policy import Policy, PolicySettings
from skillreel.model.refs import ParameterRef
from skillreel.sandbox.files import fixture_digest as html_fixture_digest
from skillreel.services.preflight import ReplayRequest, run_preflight, secret_missing
from tests.support import factory
from tests.support.factory import T0, bundle, draft, events_log

HTML = "<html><body><input id=q></body></html>"
URL = "http://127.0.0.1:8000/app?x=1"
STATE = {
    "cookies": [
        {
            "name": "sid",
            "value": "abc",
            "domain": "127.0.0.1",
            "path": "/",
            "expires": -1,
            "httpOnly": True,
            "secure": False,
            "sameSite": "Lax",
        }
    ],
    "origins": [],
}


class Vault:
    def __init__(self, **values: str) -> None:
        self.values = values
        self.asked: list[tuple[str, str]] = []

    def get(self, skill: str, param: str) -> str | None:
        self.asked.append((skill, param))
        return self.values.get(param)


def html_env(html: str = HTML) -> Environment:
    from skillreel.model.environment import HtmlTarget

    return Environment.build(target=HtmlTarget(html_digest=html_fixture_digest(html)))


def url_env(
    url: str = URL,
    origins: tuple[str, ...] = (),
    identity: str | None = None,
    state: dict[str, Any] | None = None,
) -> Environment:
    digest = tagged_digest("skillreel.storage-state/v1", state) if state is not None else None
    return Environment.build(
        target=build_url_target(url, origins), identity=identity, storage_state_digest=digest
    )


def skill(
    env: Environment | None = None,
    *,
    approved: bool = True,
    params: tuple[Parameter, ...] | None = None,
    actions: tuple[Any, ...] | None = None,
) -> StoreEntry:
    actions = actions or (
        NavigateAction(id="a1", url="https://fixture.skillreel.invalid/"),
        TypeAction(id="a2", target=bundle("#q"), value=ParameterRef(name="query")),
        TypeAction(id="a3", target=bundle("#pw"), value=ParameterRef(name="password")),
        SelectAction(
            id="a4", target=bundle("#c", tag="select", type_=None), value=ParameterRef(name="colour")
        ),
    )
    params = params or (
        Parameter(name="query"),
        Parameter(name="password", sensitive=True),
        Parameter(name="colour", required=False),
    )
    log = events_log()
    d = draft(
        "order",
        environment=env or html_env(),
        events=log,
        actions=actions,
        parameters=params,
        capabilities=capability_manifest(actions),
    )
    e = new_entry(d, log, T0)
    return approve(e, "rev", T0) if approved else e


@pytest.fixture
def page(tmp_path: Path) -> Path:
    path = tmp_path / "page.html"
    path.write_text(HTML, encoding="utf-8")
    return path


def run(entry: StoreEntry, policy: Policy | None = None, vault_: Vault | None = None, **request: Any) -> Any:
    req = ReplayRequest(name=entry.name, **request)
    return run_preflight(entry, policy or Policy.default(), req, vault_ or Vault(password="pw"))


def code_of(entry: StoreEntry, **kw: Any) -> str:
    with pytest.raises(SkillreelError) as info:
        run(entry, **kw)
    return info.value.code


def test_a_good_request_passes_with_values_from_inputs_and_vault(page: Path) -> None:
    v = Vault(password="s3cret")
    pre = run(skill(), vault_=v, inputs={"query": "q1", "colour": "red"}, html_path=page)
    assert dict(pre.values) == {"query": "q1", "colour": "red", "password": "s3cret"}
    assert pre.missing_sensitive == ()
    assert pre.html == HTML
    assert pre.heal is True
    assert v.asked == [("order", "password")]
    assert "s3cret" not in repr(pre)
    assert "q1" not in repr(pre)


def test_missing_sensitive_values_are_listed_not_raised(page: Path) -> None:
    pre = run(skill(), vault_=Vault(), inputs={"query": "q"}, html_path=page)
    assert pre.missing_sensitive == ("password",)


@pytest.mark.parametrize(
    ("kw", "code"),
    [
        ({"inputs": {"query": "q", "nope": "x"}}, "SR_REPLAY_PARAMETER_UNKNOWN"),
        ({"inputs": {"query": "q", "password": "on-argv"}}, "SR_REPLAY_SENSITIVE_ON_ARGV"),
        ({"inputs": {}}, "SR_REPLAY_PARAMETER_MISSING"),
        ({"inputs": {"query": "x" * 8193}}, "SR_REPLAY_PARAMETER_INVALID"),
        ({"inputs": {"query": "q", "colour": "x" * 1025}}, "SR_REPLAY_PARAMETER_INVALID"),
        ({"inputs": {"query": "q"}, "timeout_ms": 99}, "SR_RECORD_USAGE"),
        ({"inputs": {"query": "q"}, "timeout_ms": 30_001}, "SR_RECORD_USAGE"),
        ({"inputs": {"query": "q"}, "settle_ms": 1_001}, "SR_RECORD_USAGE"),
        ({"inputs": {"query": "q"}, "expected_revision": 1}, "SR_RECORD_REVISION_CONFLICT"),
        ({"inputs": {"query": "q"}, "url": URL}, "SR_RECORD_TARGET_INVALID"),  # html and url together
    ],
)
def test_input_refusals(page: Path, kw: dict[str, Any], code: str) -> None:
    assert code_of(skill(), html_path=page, **kw) == code


def test_limits_apply_to_vault_values_too(page: Path) -> None:
    assert (
        code_of(skill(), vault_=Vault(password="x" * 8193), inputs={"query": "q"}, html_path=page)
        == "SR_REPLAY_PARAMETER_INVALID"
    )
    run(skill(), vault_=Vault(password="x" * 8192), inputs={"query": "q"}, html_path=page)


def test_errors_never_repeat_values_or_odd_names(page: Path) -> None:
    cases: tuple[dict[str, Any], ...] = (
        {"inputs": {"query": "q", "password": "canary-pw"}},
        {"inputs": {"query": "canary" * 2000}},
        {"inputs": {"query": "q", "Bad Name=canary": "v"}},
    )
    for kw in cases:
        with pytest.raises(SkillreelError) as info:
            run(skill(), html_path=page, **kw)
        assert "canary" not in info.value.message


def test_state_rules() -> None:
    assert code_of(skill(approved=False)) == "SR_REPLAY_NOT_APPROVED"


def test_capabilities_within_the_policy(page: Path) -> None:
    policy = Policy.from_settings(PolicySettings(allowed_capabilities=("net.navigate", "ui.observe")))
    assert (
        code_of(skill(), policy=policy, inputs={"query": "q"}, html_path=page)
        == "SR_REPLAY_CAPABILITY_DENIED"
    )


def test_heal_mode_off_in_the_policy_or_the_request(page: Path) -> None:
    off = Policy.from_settings(PolicySettings(heal_mode="off"))
    assert run(skill(), policy=off, inputs={"query": "q"}, html_path=page).heal is False
    assert run(skill(), inputs={"query": "q"}, html_path=page, heal=False).heal is False


def test_html_target_environment(page: Path, tmp_path: Path) -> None:
    entry = skill()
    assert code_of(entry, inputs={"query": "q"}) == "SR_RECORD_TARGET_INVALID"
    other = tmp_path / "other.html"
    other.write_text(HTML + " ", encoding="utf-8")
    assert code_of(entry, inputs={"query": "q"}, html_path=other) == "SR_RECORD_ENVIRONMENT_DRIFT"
    assert code_of(entry, inputs={"query": "q"}, url=URL) == "SR_RECORD_ENVIRONMENT_DRIFT"
    state = tmp_path / "state.json"
    state.write_text(json.dumps(STATE))
    assert (
        code_of(entry, inputs={"query": "q"}, html_path=page, storage_state=state)
        == "SR_RECORD_TARGET_INVALID"
    )
    link = tmp_path / "link.html"
    link.symlink_to(page)
    assert code_of(entry, inputs={"query": "q"}, html_path=link) == "SR_RECORD_INPUT_NOT_REGULAR"
    assert (
        code_of(entry, inputs={"query": "q"}, html_path=tmp_path / "missing.html")
        == "SR_RECORD_INPUT_NOT_REGULAR"
    )


@pytest.mark.parametrize(
    ("url", "code"),
    [
        (None, None),
        (URL, None),
        ("http://127.0.0.1:8000/app?x=1&token=abc#frag", None),  # the same target once normalised
        ("HTTP://127.0.0.1:8000/app?x=1", None),
        ("http://127.0.0.1:8000/app?x=2", "SR_RECORD_ENVIRONMENT_DRIFT"),
        ("http://127.0.0.1:8000/other?x=1", "SR_RECORD_ENVIRONMENT_DRIFT"),
        (
            "http://127.0.0.1:8001/app?x=1",
            "SR_RECORD_ENVIRONMENT_DRIFT",
        ),  # another origin widens the allowlist
        ("http://example.com/app?x=1", "SR_RECORD_TARGET_INVALID"),  # plain http off loopback
        ("ftp://127.0.0.1/app", "SR_RECORD_TARGET_INVALID"),
    ],
)
def test_url_target_environment(url: str | None, code: str | None) -> None:
    entry = skill(url_env(origins=("https://cdn.example.com",), identity="clerk"))
    if code is None:
        pre = run(entry, inputs={"query": "q"}, url=url)
        assert pre.html is None
    else:
        assert code_of(entry, inputs={"query": "q"}, url=url) == code


def test_html_file_for_a_url_skill_is_drift(page: Path) -> None:
    assert code_of(skill(url_env()), inputs={"query": "q"}, html_path=page) == "SR_RECORD_ENVIRONMENT_DRIFT"


def test_storage_state_digest(tmp_path: Path) -> None:
    entry = skill(url_env(state=STATE))
    same = tmp_path / "same.json"
    same.write_text(json.dumps(STATE, indent=4))  # formatting does not matter, content does
    run(entry, inputs={"query": "q"}, storage_state=same)
    changed = tmp_path / "changed.json"
    changed.write_text(
        json.dumps({**STATE, "origins": [{"origin": "http://127.0.0.1:8000", "localStorage": []}]})
    )
    assert code_of(entry, inputs={"query": "q"}, storage_state=changed) == "SR_RECORD_CREDENTIAL_DRIFT"
    assert code_of(entry, inputs={"query": "q"}) == "SR_RECORD_CREDENTIAL_DRIFT"
    assert (
        code_of(skill(url_env()), inputs={"query": "q"}, storage_state=same) == "SR_RECORD_CREDENTIAL_DRIFT"
    )
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert code_of(entry, inputs={"query": "q"}, storage_state=broken) == "SR_RECORD_INPUT_MALFORMED"
    with pytest.raises(SkillreelError) as info:
        run(entry, inputs={"query": "q"}, storage_state=changed)
    assert "abc" not in info.value.message
    assert "sid" not in info.value.message


def test_secret_env_name() -> None:
    assert (
        vault.secret_env_name("approve-invoice", "card_number")
        == "SKILLREEL_SECRET_APPROVE_INVOICE_CARD_NUMBER"
    )


def test_vault_prefers_the_environment_then_the_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    import keyring

    asked: list[tuple[str, str]] = []

    def from_keyring(service: str, username: str) -> str | None:
        asked.append((service, username))
        return "from-keyring"

    monkeypatch.setattr(keyring, "get_password", from_keyring)
    secrets = vault.EnvKeyringSecrets(environ={"SKILLREEL_SECRET_ORDER_PASSWORD": "from-env"})
    assert secrets.get("order", "password") == "from-env"
    assert secrets.get("order", "pin") == "from-keyring"
    assert asked == [("skillreel", "order/pin")]
    assert vault.EnvKeyringSecrets(environ={}, use_keyring=False).get("order", "pin") is None


def test_a_broken_keyring_counts_as_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    import keyring
    from keyring.errors import NoKeyringError

    def broken(service: str, username: str) -> str | None:
        raise NoKeyringError("no backend")

    monkeypatch.setattr(keyring, "get_password", broken)
    assert vault.EnvKeyringSecrets(environ={}).get("order", "pin") is None


# ---- typed inputs (schema v2) -------------------------------------------------------------------


def typed_skill() -> StoreEntry:
    from skillreel.model.actions import LoopAction
    from tests.support.factory import element_set

    actions = (
        NavigateAction(id="a1", url="https://fixture.skillreel.invalid/"),
        TypeAction(id="a2", target=bundle("#q"), value=ParameterRef(name="query")),
        SelectAction(
            id="a3", target=bundle("#r", tag="select", type_=None), value=ParameterRef(name="region")
        ),
        TypeAction(id="a4", target=bundle("#n"), value=ParameterRef(name="amount")),
        TypeAction(id="a5", target=bundle("#u"), value=ParameterRef(name="urgent")),
        LoopAction(
            id="a6",
            items=element_set(),
            limit=ParameterRef(name="limit"),
            body=(TypeAction(id="a7", target=bundle("#x"), value=ParameterRef(name="query")),),
        ),
    )
    params = (
        Parameter(name="query", type="string"),
        Parameter(name="region", type="enum", values=("eu-west", "us-east")),
        Parameter(name="amount", type="number", required=False, default=10),
        Parameter(name="urgent", type="boolean", required=False),
        Parameter(name="limit", type="integer", required=False, default=20),
    )
    return skill(params=params, actions=actions)


GOOD = {"query": "q", "region": "us-east"}


def test_typed_inputs_get_canonical_text_and_defaults(page: Path) -> None:
    pre = run(
        typed_skill(), html_path=page, inputs={**GOOD, "amount": "1250.50", "urgent": "True", "limit": 5}
    )
    assert dict(pre.values) == {
        "query": "q",
        "region": "us-east",
        "amount": "1250.5",
        "urgent": "true",
        "limit": "5",
    }
    defaulted = run(typed_skill(), html_path=page, inputs=GOOD)
    assert (defaulted.values["amount"], defaulted.values["limit"]) == ("10", "20")
    assert "urgent" not in defaulted.values


def test_an_enum_input_of_a_select_may_be_a_label(page: Path) -> None:
    pre = run(typed_skill(), html_path=page, inputs={**GOOD, "region": "US East (Virginia)"})
    assert pre.labels == frozenset({"region"})
    assert pre.values["region"] == "US East (Virginia)"
    plain = run(typed_skill(), html_path=page, inputs=GOOD)
    assert plain.labels == frozenset()


def test_every_bad_input_is_listed_in_one_refusal(page: Path) -> None:
    bad = {"query": "q", "region": 7, "amount": "ten", "urgent": "perhaps", "limit": 0}  # 7: no label
    with pytest.raises(SkillreelError) as info:
        run(typed_skill(), html_path=page, inputs=bad)
    assert info.value.code == "SR_REPLAY_PARAMETER_INVALID"
    assert info.value.details == {"parameters": ["region", "amount", "urgent", "limit"]}
    for name in ("'region'", "'amount'", "'urgent'", "loop's limit"):
        assert name in info.value.message
    for value in ("ten", "perhaps"):
        assert value not in info.value.message


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ({"amount": "ten"}, "'amount'"),
        ({"urgent": "perhaps"}, "'urgent'"),
        ({"amount": "1,250"}, "'amount'"),
        ({"limit": "2.5"}, "'limit'"),
        ({"limit": 0}, "loop's limit"),
        ({"limit": 1001}, "loop's limit"),
        ({"region": "   "}, "'eu-west', 'us-east'"),
        # not Unicode text (JSON's "\ud800", an undecodable command-line byte): refused, not an
        # internal error when the value is digested; an enum's label path does not take it either
        ({"query": "q\ud800"}, "not valid Unicode text"),
        ({"region": "\udcff"}, "not valid Unicode text"),
    ],
)
def test_typed_input_refusals_name_the_parameter_never_the_value(
    page: Path, given: dict[str, Any], says: str
) -> None:
    with pytest.raises(SkillreelError) as info:
        run(typed_skill(), html_path=page, inputs={**GOOD, **given})
    assert info.value.code == "SR_REPLAY_PARAMETER_INVALID"
    assert says in info.value.message
    for value in given.values():
        if isinstance(value, str) and value.strip():
            assert value not in info.value.message


# ---- named environments and vault logins -----------------------------------------------------------

STAGING = "http://127.0.0.1:9000"


class Logins:
    """A LoginSource holding logins by name."""

    def __init__(self, **states: dict[str, Any]) -> None:
        self.states = {name: LoginState(state) for name, state in states.items()}
        self.read_names: list[str] = []

    def read(self, name: str) -> LoginState | None:
        self.read_names.append(name)
        return self.states.get(name)


def portable(login: str | None = None, envs: tuple[NamedEnvironment, ...] = ()) -> Environment:
    return Environment.build(target=build_url_target(URL), login=login, environments=envs)


def url_skill(env: Environment, *, environments: tuple[str, ...] | None = None) -> StoreEntry:
    actions = (
        NavigateAction(id="a1", url=env.start_url),
        TypeAction(id="a2", target=bundle("#q"), value=ParameterRef(name="query")),
        NavigateAction(id="a3", url="http://127.0.0.1:8000/next?x=1", reason="address-bar"),
    )
    entry = skill(env, approved=False, params=(Parameter(name="query"),), actions=actions)
    return approve(entry, "rev", T0, environments)


def pre(entry: StoreEntry, logins: Logins | None = None, **request: Any) -> Any:
    req = ReplayRequest(name=entry.name, inputs={"query": "q"}, **request)
    return run_preflight(entry, Policy.default(), req, Vault(), logins)


def pre_code(entry: StoreEntry, logins: Logins | None = None, **request: Any) -> str:
    with pytest.raises(SkillreelError) as info:
        pre(entry, logins, **request)
    return info.value.code


def test_a_named_environment_rebases_target_allowlist_steps_and_sign_in() -> None:
    staging = factory.staging(STAGING, login="stage-login")
    entry = url_skill(portable("prod-login", (staging,)))
    empty: dict[str, Any] = {"cookies": [], "origins": []}
    logins = Logins(**{"prod-login": STATE, "stage-login": empty})
    checked = pre(entry, logins, environment="staging")
    assert checked.target.name == "staging"
    assert checked.target.environment.start_url == f"{STAGING}/app?x=1"
    assert checked.target.environment.allowed_origins == (STAGING,)
    assert [a.url for a in checked.target.actions if isinstance(a, NavigateAction)] == [
        f"{STAGING}/app?x=1",
        f"{STAGING}/next?x=1",
    ]
    assert checked.storage_state is logins.states["stage-login"]
    assert logins.read_names == ["stage-login"]  # the recorded sign-in never goes to staging
    recorded = pre(entry, logins)
    assert recorded.target.name is None
    assert recorded.target.actions == entry.draft.actions
    assert recorded.storage_state is logins.states["prod-login"]
    assert pre(entry, logins, environment="staging", url=f"{STAGING}/app?x=1&token=t").target.name
    assert pre_code(entry, logins, environment="staging", url=f"{URL}") == "SR_RECORD_ENVIRONMENT_DRIFT"


def test_environment_refusals() -> None:
    qa = factory.staging("http://127.0.0.1:9100", name="qa")
    entry = url_skill(portable(envs=(qa, factory.staging(STAGING))), environments=("staging",))
    pre(entry, environment="staging")
    assert pre_code(entry, environment="prod") == "SR_RECORD_ENVIRONMENT_UNKNOWN"
    assert pre_code(entry, environment="qa") == "SR_RECORD_ENVIRONMENT_NOT_APPROVED"
    assert pre_code(entry, environment="Bad Name") == "SR_RECORD_USAGE"
    assert pre_code(skill(), environment="staging") == "SR_RECORD_ENVIRONMENT_UNKNOWN"  # an HTML skill


def test_a_rebase_that_leaves_the_allowlist_is_refused() -> None:
    """The declaration check runs again before every replay: a navigate step to a third origin
    must be on the environment's allowlist (a document made by hand would otherwise slip by)."""
    env = portable(envs=(factory.staging(STAGING),))
    actions = (
        NavigateAction(id="a1", url=env.start_url),
        TypeAction(id="a2", target=bundle("#q"), value=ParameterRef(name="query")),
        NavigateAction(id="a3", url="https://cdn.example.com/help", reason="address-bar"),
    )
    entry = approve(skill(env, approved=False, params=(Parameter(name="query"),), actions=actions), "r", T0)
    assert pre_code(entry, environment="staging") == "SR_RECORD_ENVIRONMENT_DRIFT"


def test_a_login_is_read_from_the_vault_by_name(tmp_path: Path) -> None:
    entry = url_skill(portable("shop-login"))
    logins = Logins(**{"shop-login": STATE})
    assert pre(entry, logins).storage_state is logins.states["shop-login"]
    refreshed = Logins(**{"shop-login": {**STATE, "cookies": []}})
    assert pre(entry, refreshed).storage_state is refreshed.states["shop-login"]  # no drift
    assert pre_code(entry, Logins()) == "SR_RECORD_SESSION_MISSING"
    assert pre_code(entry) == "SR_RECORD_SESSION_MISSING"  # no vault given: nothing to sign in with
    state = tmp_path / "state.json"
    state.write_text(json.dumps(STATE))
    assert pre_code(entry, logins, storage_state=state) == "SR_RECORD_CREDENTIAL_DRIFT"
    with pytest.raises(SkillreelError) as info:
        pre(entry, Logins())
    assert "abc" not in info.value.message


def test_a_v1_storage_state_skill_replays_as_before(tmp_path: Path) -> None:
    digest = tagged_digest("skillreel.storage-state/v1", STATE)
    entry = url_skill(factory.v1_url_environment(URL, storage_state_digest=digest))
    state = tmp_path / "state.json"
    state.write_text(json.dumps(STATE))
    assert pre(entry, storage_state=state).storage_state == state
    assert pre_code(entry) == "SR_RECORD_CREDENTIAL_DRIFT"
    assert pre(entry, storage_state=state, url="http://127.0.0.1:8000/app?x=1&state=s").target.name is None


def test_a_missing_secret_is_refused_once_worded_for_who_looked(page: Path) -> None:
    pre = run(skill(), vault_=Vault(), inputs={"query": "q"}, html_path=page)
    with pytest.raises(SkillreelError) as info:
        pre.require_secrets()
    env = vault.secret_env_name("order", "password")
    assert (info.value.code, info.value.message) == (
        "SR_REPLAY_SECRET_MISSING",
        f"no value in the vault for sensitive parameter(s) password: set {env} or store it in the OS keyring",
    )
    run(skill(), vault_=Vault(password="pw"), inputs={"query": "q"}, html_path=page).require_secrets()
    worded = {
        asker: secret_missing("order", ("password",), asker).message
        for asker in ("batch", "worker", "mcp", "declined")
    }
    assert worded == {
        "batch": f"no value in the vault for sensitive parameter(s) password: set {env} or store it in the "
        "OS keyring; no row was run",
        "worker": f"this worker's vault has no value for sensitive parameter(s) password: set {env} where "
        "the worker runs",
        "mcp": f"no value for sensitive parameter(s) password: set {env} or store it in the OS keyring (this "
        "MCP client cannot ask the user)",
        "declined": "the user did not give password; nothing was replayed",
    }
