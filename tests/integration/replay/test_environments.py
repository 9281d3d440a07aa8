"""Portable skills and vault logins on real Chromium: two servers on 127.0.0.1 play production
and staging of the same app. A skill recorded on production (through the real recorder) replays on
staging with ``--env staging`` and acts there only; requests off the rebased allowlist are refused
(undeclared and unapproved environments are refused before any browser starts:
tests/integration/services/test_declaring.py); a refreshed login keeps a signed-in skill
replayable; a skill recorded with a storage-state file the first way still replays."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillreel.model.actions import ClickAction, NavigateAction, TypeAction
from skillreel.model.environment import UrlTarget
from skillreel.model.refs import ParameterRef
from skillreel.model.values import MASK
from skillreel.sandbox.files import storage_state_file_digest
from skillreel.services.logins import delete_login, set_login
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import ReplayOutcome, ReplayRequest, replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.support.describe import describe_url
from tests.support.factory import build_draft, store_approved, v1_url_environment
from tests.support.narrow import narrow
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NAME = "find-order"
START = "/orders?state=open&next=/orders&token=t0ken"
APP = """<!doctype html><html><head><title>Orders</title></head><body><main>
<h1>Orders</h1>
<form id="f" onsubmit="return false">
  <label for="q">Order number</label><input id="q" name="q" autocomplete="off">
  <button id="go" type="button">Find</button>
</form>
<p id="out"></p>
EXTRA
<script>
  document.getElementById("go").addEventListener("click", () => {
    document.getElementById("out").textContent = "Found " + document.getElementById("q").value;
  });
</script>
</main></body></html>"""
# Only a signed-in visitor (a cookie sid) gets the form; anyone else is asked to sign in.
SIGNED_IN = APP.replace(
    "EXTRA",
    """<script>
  if (!document.cookie.split("; ").some((c) => c.startsWith("sid="))) {
    document.querySelector("main").innerHTML = "<p id=login>Please sign in</p>";
  }
</script>""",
)
AUTOMATION = {
    "steps": [{"do": "type", "selector": "#q", "text": "A-1001"}, {"do": "click", "selector": "#go"}]
}
ASSERTIONS = {
    "assertions": [{"kind": "assert", "check": "text_contains", "selector": "#out", "expected": "Found"}]
}


@pytest.fixture
def store(skillreel_home: Path) -> Iterator[Store]:
    with Store.open() as opened:
        yield opened


def page(html: str, extra: str = "") -> str:
    return html.replace("EXTRA", extra)


def write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document))
    return path


def state(tmp_path: Path, value: str, name: str) -> Path:
    cookie = {
        "name": "sid",
        "value": value,
        "domain": "127.0.0.1",
        "path": "/",
        "expires": -1,
        "httpOnly": False,
        "secure": False,
        "sameSite": "Lax",
    }
    return write(tmp_path / name, {"cookies": [cookie], "origins": []})


async def record(store: Store, tmp_path: Path, production: LocalServer, **request: object) -> None:
    result = await record_skill(
        store,
        RecordRequest(
            name=NAME,
            url=production.url(START),
            automation=write(tmp_path / "automation.json", AUTOMATION),
            assertions=write(tmp_path / "assertions.json", ASSERTIONS),
            **request,  # type: ignore[arg-type]  # RecordRequest's own fields
        ),
    )
    assert result.entry.status == "draft"


async def replay(store: Store, *, sessions: WarmSessions, **request: object) -> ReplayOutcome:
    request_ = ReplayRequest(name=NAME, inputs={"q": "B-2002"}, **request)  # type: ignore[arg-type]
    return await replay_skill(store, request_, session_factory=sessions)


def succeeded(outcome: ReplayOutcome) -> ReplayOutcome:
    assert outcome.error is None, outcome.error
    assert outcome.status == "succeeded"
    return outcome


def failed(outcome: ReplayOutcome, code: str) -> ReplayOutcome:
    assert outcome.error is not None
    assert outcome.error.code == code, outcome.error.message
    return outcome


async def test_a_replay_on_staging_acts_on_staging_only(
    store: Store, tmp_path: Path, server: LocalServer, second_server: LocalServer, sessions: WarmSessions
) -> None:
    production, staging = server, second_server
    production.set_page("/orders", page(APP))
    staging.set_page("/orders", page(APP))
    await record(store, tmp_path, production, environments=(("staging", staging.origin),))
    entry = store.get(NAME)
    target = narrow(UrlTarget, entry.draft.environment.target)
    assert target.url == production.url("/orders?state=open&next=/orders")  # business keys kept
    assert target.query is not None
    assert target.query.stripped == ("token",)  # and the recording says what it stripped
    assert [e.name for e in entry.draft.environment.environments] == ["staging"]
    review_skill(store, NAME, "alice", approve=True, expected_revision=store.get(NAME).revision)
    production_seen = production.request_count()

    outcome = succeeded(await replay(store, environment="staging", sessions=sessions))

    assert outcome.environment == "staging"
    assert production.request_count() == production_seen  # production saw nothing at all
    assert ("GET", "/orders?state=open&next=/orders") in staging.requests  # path and query kept
    assert store.get(NAME).status == "validated"
    assert [s.action_id for s in outcome.steps] == [a.id for a in entry.draft.actions]
    staging_seen = staging.request_count()
    succeeded(await replay(store, sessions=sessions))  # the recorded environment is still the default
    assert staging.request_count() == staging_seen
    assert production.request_count() > production_seen


async def test_a_request_off_the_rebased_allowlist_fails_the_replay(
    store: Store, tmp_path: Path, server: LocalServer, second_server: LocalServer, sessions: WarmSessions
) -> None:
    production, staging = server, second_server
    production.set_page("/orders", page(APP))
    production.set_page("/pixel.png", "")
    await record(store, tmp_path, production, environments=(("staging", staging.origin),))
    review_skill(store, NAME, "alice", approve=True, expected_revision=store.get(NAME).revision)
    # A staging build that still calls production: off the staging allowlist, so refused.
    staging.set_page("/orders", page(APP, f'<img id="pixel" src="{production.url("/pixel.png")}">'))
    seen = production.request_count()
    outcome = failed(
        await replay(store, environment="staging", sessions=sessions), "SR_REPLAY_UI_NETWORK_DENIED"
    )
    assert production.request_count() == seen
    assert outcome.error is not None
    assert production.origin not in outcome.error.message  # counted, never named


async def test_a_refreshed_login_keeps_a_signed_in_skill_replayable(
    store: Store, tmp_path: Path, server: LocalServer, sessions: WarmSessions
) -> None:
    server.set_page("/orders", page(SIGNED_IN))
    set_login(store, "shop", state(tmp_path, "first-login-4Kd9", "first.json"))
    await record(store, tmp_path, server, login="shop")
    recorded = store.get(NAME).draft
    assert recorded.environment.login == "shop"
    assert recorded.environment.storage_state_digest is None
    review_skill(store, NAME, "alice", approve=True, expected_revision=store.get(NAME).revision)
    succeeded(await replay(store, sessions=sessions))
    assert server.cookies[-1] == "sid=first-login-4Kd9"

    set_login(store, "shop", state(tmp_path, "second-login-8Pq2", "second.json"))  # the login was refreshed
    mark = server.request_count()
    succeeded(await replay(store, sessions=sessions))
    assert set(server.cookies[mark:]) == {"sid=second-login-8Pq2"}
    assert store.get(NAME).draft == recorded  # the skill did not change, nor need a new review

    delete_login(store, "shop", approve=True)
    mark = server.request_count()
    failed(await replay(store, sessions=sessions), "SR_RECORD_SESSION_MISSING")
    assert server.request_count() == mark


async def test_a_staging_environment_signs_in_with_its_own_login_only(
    store: Store, tmp_path: Path, server: LocalServer, second_server: LocalServer, sessions: WarmSessions
) -> None:
    production, staging = server, second_server
    production.set_page("/orders", page(SIGNED_IN))
    staging.set_page("/orders", page(SIGNED_IN))
    set_login(store, "shop", state(tmp_path, "production-cookie-1", "p.json"))
    await record(store, tmp_path, production, login="shop", environments=(("staging", staging.origin),))
    review_skill(store, NAME, "alice", approve=True, expected_revision=store.get(NAME).revision)
    # Declared without a login, staging gets no cookie (both servers share the host 127.0.0.1,
    # so production's cookie would otherwise reach staging): it asks to sign in, nothing is found.
    failed(await replay(store, environment="staging", sessions=sessions), "SR_REPLAY_UI_TARGET_NOT_FOUND")
    assert set(staging.cookies) == {""}


async def test_a_skill_recorded_with_a_storage_state_file_still_replays(
    store: Store, tmp_path: Path, server: LocalServer, sessions: WarmSessions
) -> None:
    """A v1 skill: a URL environment exactly as the first version wrote it, bound to the digest of
    a storage-state file; it loads and replays with that file, unchanged."""
    path = state(tmp_path, "v1-cookie-2Hs", "v1.json")
    server.set_page("/orders", page(SIGNED_IN))
    bundles = await describe_url(server, "/orders", page(APP), {"q": "#q", "go": "#go"})
    environment = v1_url_environment(server.url(START), storage_state_digest=storage_state_file_digest(path))
    assert "query" not in environment.to_json()["target"]
    actions = (
        NavigateAction(id="a1", url=environment.start_url),
        TypeAction(id="a2", target=bundles["q"], value=ParameterRef(name="q")),
        ClickAction(id="a3", target=bundles["go"]),
    )
    store_approved(store, build_draft(NAME, environment, actions))
    assert environment.start_url == server.url("/orders?next=%2Forders")  # the first rule's URL
    succeeded(await replay(store, storage_state=path, sessions=sessions))
    assert server.cookies[-1] == "sid=v1-cookie-2Hs"
    failed(await replay(store, sessions=sessions), "SR_RECORD_CREDENTIAL_DRIFT")
    other = state(tmp_path, "another-cookie", "other.json")
    failed(await replay(store, storage_state=other, sessions=sessions), "SR_RECORD_CREDENTIAL_DRIFT")


async def test_a_page_that_shows_the_logins_cookie_gets_it_masked_in_the_outputs(
    store: Store, tmp_path: Path, server: LocalServer, sessions: WarmSessions
) -> None:
    """A login's cookie is a credential like a sensitive input: an output that holds it (a page
    echoing document.cookie) is masked with the same warning, never returned."""
    cookie = "session-Cookie-7Wq3Zx"
    shows = (
        "<p id=who></p>"
        "<script>document.getElementById('who').textContent = 'you: ' + document.cookie;</script>"
    )
    server.set_page("/orders", SIGNED_IN.replace("</main>", shows + "</main>"))
    set_login(store, "shop", state(tmp_path, cookie, "s.json"))
    automation = {"steps": [*AUTOMATION["steps"], {"do": "extract", "selector": "#who", "as": "who"}]}
    write(tmp_path / "automation.json", automation)
    result = await record_skill(
        store,
        RecordRequest(
            name=NAME,
            url=server.url(START),
            automation=tmp_path / "automation.json",
            login="shop",
        ),
    )
    assert [o.name for o in result.entry.draft.outputs] == ["who"]
    review_skill(store, NAME, "alice", approve=True, expected_revision=store.get(NAME).revision)
    outcome = succeeded(await replay(store, sessions=sessions))
    document = json.dumps(outcome.to_json())
    assert cookie not in document
    assert outcome.to_json()["outputs"] == {"who": MASK}
    assert [w.code for w in outcome.warnings] == ["SR_REPLAY_OUTPUT_MASKED"]
