"""Drift between recording and replay on a loopback URL target whose page changes in between.

The skill types an e-mail address, clicks Save and waits for the acknowledgement. Every click on
the page reports which button was hit (``data-which``, not part of any fingerprint) and what the
e-mail field holds to ``/clicked`` on the server: the server's log is the page counter. Drift that
must heal replays on the right elements; drift that must fail closed fails with nothing clicked.
Every case runs twice: with the bundles today's recorder writes, and with the same bundles as the
first version wrote them (no identity-model features), which must keep replaying.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from skillreel.model.actions import Action, ClickAction, NavigateAction, ObserveAction, TypeAction
from skillreel.model.locators import LocatorBundle
from skillreel.model.refs import ParameterRef
from skillreel.services.replaying import ReplayOutcome, ReplayRequest, replay_skill
from skillreel.store import Store
from tests.support.describe import describe_url
from tests.support.factory import build_draft, first_version, store_approved, url_environment
from tests.support.narrow import target_of
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

SCRIPT = """<p id="ack" hidden>Saved</p>
<script>
document.addEventListener("click", (event) => {
  const hit = event.target.closest("[data-which]");
  if (!hit) return;
  const email = document.querySelector("main input[placeholder]");
  fetch("/clicked?which=" + hit.dataset.which + "&email=" + encodeURIComponent(email ? email.value : ""))
    .then(() => { document.getElementById("ack").hidden = false; });
});
</script>"""


def page(body: str) -> str:
    head = "<!doctype html><html><head><title>Settings</title></head>"
    return f"{head}<body><main>{body}</main>{SCRIPT}</body></html>"


EMAIL = (
    '<label for="email">Email</label>'
    '<input id="email" name="email" class="field" placeholder="you@example.com">'
)
CITY = '<label for="city">City</label><input id="city" name="city" class="field">'
SAVE = '<button type="button" id="save" class="btn primary" data-which="save">Save</button>'
CANCEL = '<button type="button" id="cancel" class="btn" data-which="cancel">Cancel</button>'

RECORDED = page(f"""<h1>Settings</h1><form id="profile">
<div class="row">{EMAIL}</div><div class="row">{CITY}</div>
<div class="actions">{SAVE}{CANCEL}</div></form>""")

MUST_HEAL = {
    "id-renamed": page(f"""<h1>Settings</h1><form id="profile">
<div class="row">{
        EMAIL.replace('"email"', '"email-address"', 2).replace('name="email-address"', 'name="email"')
    }</div>
<div class="row">{CITY}</div>
<div class="actions">{SAVE.replace('id="save"', 'id="store-settings"')}{CANCEL}</div></form>"""),
    "classes-changed": page(f"""<h1>Settings</h1><form id="profile">
<div class="form-row">{EMAIL.replace('class="field"', 'class="input input--lg"')}</div>
<div class="form-row">{CITY.replace('class="field"', 'class="input"')}</div>
<div class="toolbar">{SAVE.replace('class="btn primary"', 'class="button button--cta"')}
{CANCEL.replace('class="btn"', 'class="button"')}</div></form>"""),
    "wrapper-added": page(f"""<h1>Settings</h1><form id="profile">
<div class="row"><div class="control">{EMAIL}</div></div><div class="row">{CITY}</div>
<div class="actions"><span class="wrap">{SAVE}</span>{CANCEL}</div></form>"""),
    "sibling-inserted-before": page(f"""<h1>Settings</h1><form id="profile">
<div class="row"><label for="name">Name</label><input id="name" name="name" class="field"></div>
<div class="row">{EMAIL}</div><div class="row">{CITY}</div>
<div class="actions"><button type="button" class="btn" data-which="preview">Preview</button>
{SAVE}{CANCEL}</div>
</form>"""),
    "moved-to-another-container": page(f"""<h1>Settings</h1><form id="profile">
<fieldset><legend>Contact</legend>{EMAIL}</fieldset><div class="row">{CITY}</div></form>
<footer class="actions">{SAVE}{CANCEL}</footer>"""),
    "label-text-changed": page(f"""<h1>Settings</h1><form id="profile">
<div class="row">{EMAIL.replace(">Email<", ">E-mail address<")}</div><div class="row">{CITY}</div>
<div class="actions">{SAVE.replace(">Save<", ">Save changes<")}{CANCEL}</div></form>"""),
    "layout-changed": page(f"""<header class="topbar"><div class="toolbar">{CANCEL}{SAVE}</div></header>
<h1>Settings</h1><section class="grid"><form id="profile">
<div class="col"><div class="cell">{CITY}</div></div>
<div class="col"><div class="cell">{EMAIL}</div></div></form></section>"""),
    # Every ranked locator broken at once: only the fingerprint can find the elements.
    "renamed-and-moved": page(f"""<h1>Settings</h1><section><div class="card">
<label for="mail">Email</label><input id="mail" name="mail" class="field" placeholder="you@example.com"></div>
<div class="row">{CITY}</div></section>
<aside class="actions"><button type="button" id="persist" class="btn primary" data-which="save">Save</button>
{CANCEL}</aside>"""),
}

MUST_FAIL = {
    "target-removed": (
        page(f"""<h1>Settings</h1><form id="profile">
<div class="row">{EMAIL}</div><div class="row">{CITY}</div><div class="actions">{CANCEL}</div></form>"""),
        "SR_REPLAY_UI_TARGET_NOT_FOUND",
    ),
    "two-identical-candidates": (
        page(f"""<h1>Settings</h1><form id="profile">
<div class="row">{EMAIL}</div><div class="row">{CITY}</div>
<div class="actions">{SAVE}{CANCEL}</div><div class="actions">{SAVE}{CANCEL}</div></form>"""),
        "SR_REPLAY_UI_TARGET_AMBIGUOUS",
    ),
    "decoy-took-the-old-id": (
        page(f"""<h1>Settings</h1><form id="profile">
<div class="row">{EMAIL}</div><div class="row">{CITY}</div><div class="actions">{CANCEL}</div></form>
<aside><p>Danger zone</p>
<button type="button" id="save" class="btn danger" data-which="decoy">Delete account</button>
</aside>"""),
        "SR_REPLAY_UI_TARGET_NOT_FOUND",
    ),
}


def actions(b: dict[str, LocatorBundle], url: str) -> list[Action]:
    return [
        NavigateAction(id="a1", url=url),
        TypeAction(id="a2", target=b["email"], value=ParameterRef(name="email")),
        ClickAction(id="a3", target=b["save"]),
        ObserveAction(id="a4", target=b["ack"]),
    ]


def clicks(server: LocalServer) -> list[dict[str, list[str]]]:
    return [
        parse_qs(urlsplit(path).query, keep_blank_values=True)
        for method, path in server.requests
        if path.startswith("/clicked")
    ]


SHAPES = ("current", "first-version")
_DESCRIBED: dict[str, LocatorBundle] = {}  # the recorded page described once per module


async def recorded_bundles(server: LocalServer, shape: str) -> dict[str, LocatorBundle]:
    if not _DESCRIBED:
        _DESCRIBED.update(
            await describe_url(
                server, "/settings", RECORDED, {"email": "#email", "save": "#save", "ack": "#ack"}
            )
        )
    server.set_page("/settings", RECORDED)
    if shape == "current":
        return dict(_DESCRIBED)
    return {key: first_version(bundle) for key, bundle in _DESCRIBED.items()}


async def record_then_replay(
    server: LocalServer,
    store: Store,
    sessions: WarmSessions,
    changed: str,
    *,
    heal: bool = True,
    timeout_ms: int = 10_000,  # the default: a replay meant to succeed never races a short deadline
    shape: str = "current",
) -> ReplayOutcome:
    bundles = await recorded_bundles(server, shape)
    url = server.url("/settings")
    store_approved(store, build_draft("save-settings", url_environment(url), actions(bundles, url)))
    server.set_page("/settings", changed)
    server.requests.clear()
    return await replay_skill(
        store,
        ReplayRequest(
            name="save-settings", inputs={"email": "new@example.org"}, heal=heal, timeout_ms=timeout_ms
        ),
        session_factory=sessions,
    )


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("case", sorted(MUST_HEAL))
async def test_drift_that_must_heal(
    case: str, shape: str, server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    outcome = await record_then_replay(server, store, sessions, MUST_HEAL[case], shape=shape)
    assert outcome.status == "succeeded", (case, outcome.error and outcome.error.to_json())
    assert clicks(server) == [{"which": ["save"], "email": ["new@example.org"]}]
    entry = store.get("save-settings")
    assert entry.status == "validated"
    healed = {s.action_id for s in outcome.steps if s.healed}
    assert outcome.heal_proposed == bool(healed)
    if healed:
        (proposal,) = store.heal_proposals("save-settings")
        assert set(proposal.healed_actions) == healed
        assert proposal.base_draft_digest == entry.draft.draft_digest


async def test_a_heal_leaves_a_proposal_and_never_rewrites_the_approved_draft(
    server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    outcome = await record_then_replay(
        server, store, sessions, MUST_HEAL["renamed-and-moved"], shape="first-version"
    )
    assert outcome.status == "succeeded", outcome.error
    assert {s.action_id for s in outcome.steps if s.healed} == {"a3"}  # a2 has its placeholder locator
    assert outcome.to_json()["healProposal"] is True
    entry = store.get("save-settings")
    approved = entry.approval
    assert approved is not None
    assert approved.draft_digest == entry.draft.draft_digest
    (proposal,) = store.heal_proposals("save-settings")
    assert proposal.base_revision == outcome.revision
    old = {a.id: a for a in entry.draft.actions}
    new = {a.id: a for a in proposal.draft.actions}
    assert old["a1"] == new["a1"]
    assert old["a4"] == new["a4"]
    assert next(c.selector for c in target_of(new["a3"]).candidates) == "#persist"
    assert old["a2"] == new["a2"]


async def test_a_role_and_name_locator_needs_no_heal_where_the_first_version_healed(
    server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    """Id renamed and moved: the first version's bundle heals (above); today's bundle holds a
    role-name candidate (a role and a salted hash of "Save") that still designates the button."""
    bundles = await recorded_bundles(server, "current")
    assert [c.strategy for c in bundles["save"].candidates][:3] == ["id", "role-name", "css"]
    outcome = await record_then_replay(server, store, sessions, MUST_HEAL["renamed-and-moved"], heal=False)
    assert outcome.status == "succeeded", outcome.error and outcome.error.to_json()
    assert clicks(server) == [{"which": ["save"], "email": ["new@example.org"]}]
    assert not any(s.healed for s in outcome.steps)
    assert store.heal_proposals("save-settings") == []


async def test_healing_off_fails_closed_where_healing_would_have_worked(
    server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    outcome = await record_then_replay(
        server,
        store,
        sessions,
        MUST_HEAL["renamed-and-moved"],
        heal=False,
        timeout_ms=5_000,
        shape="first-version",
    )
    assert outcome.error is not None
    assert (outcome.error.code, outcome.error.action_id) == ("SR_REPLAY_UI_TARGET_NOT_FOUND", "a3")
    assert clicks(server) == []
    assert store.get("save-settings").status == "approved"
    assert store.heal_proposals("save-settings") == []


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("case", sorted(MUST_FAIL))
async def test_drift_that_must_fail_closed_clicks_nothing(
    case: str, shape: str, server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    changed, code = MUST_FAIL[case]
    outcome = await record_then_replay(server, store, sessions, changed, timeout_ms=5_000, shape=shape)
    assert outcome.error is not None, case
    assert (outcome.error.code, outcome.error.action_id) == (code, "a3")
    assert clicks(server) == []
    assert store.get("save-settings").status == "approved"
    event = store.audit_events()[-1]
    assert (event.kind, event.outcome, event.code) == ("run-end", "failed", code)
    (run,) = store.runs("save-settings")
    # a2 typed into the form before a3 failed: the run says it may have acted (a caller that
    # retries may repeat that), though nothing was clicked or submitted
    assert (run.outcome, run.record.code) == ("failed", code)
    assert (run.record.steps_run, run.record.steps_acted, run.record.side_effects) == (3, 1, True)
