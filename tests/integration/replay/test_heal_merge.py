"""Heals merge, never replace (issue 13, item 4), in real Chromium on a loopback page that changes.

The skill clicks Save. The redesigned page renames the button's id, moves it after Cancel and
gives it a test id, a form name and an aria-label: the recorded locators find nothing and the step
heals. Once a
reviewer adopts the heal, the step's bundle holds the new locators ahead of the old ones and keeps
the old fingerprint as an accepted identity, so the skill replays WITHOUT healing on both the
redesigned page and the page it was recorded on; the server's click log shows the Save button was
pressed each time. The premise is checked, not assumed: judged against the new fingerprint alone,
the old page's button is not close enough to be found exactly.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from skillreel.locate import heal
from skillreel.locate.similarity import compare, similarity
from skillreel.model.actions import Action, ClickAction, NavigateAction, ObserveAction
from skillreel.model.locators import LocatorBundle
from skillreel.services.replaying import ReplayOutcome, ReplayRequest, replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.support.describe import describe_url
from tests.support.factory import build_draft, store_approved, url_environment
from tests.support.narrow import target_of
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

NAME = "save-settings"
SCRIPT = """<p id="ack" hidden>Saved</p>
<script>
document.addEventListener("click", (event) => {
  const hit = event.target.closest("[data-which]");
  if (!hit) return;
  fetch("/clicked?which=" + hit.dataset.which).then(() => { document.getElementById("ack").hidden = false; });
});
</script>"""


def page(buttons: str) -> str:
    return (
        "<!doctype html><html><head><title>Settings</title></head><body><main><h1>Settings</h1>"
        f'<div class="actions">{buttons}</div></main>{SCRIPT}</body></html>'
    )


OLD = page(
    '<button type="button" id="save" class="btn primary" data-which="save">Save</button>'
    '<button type="button" id="cancel" class="btn" data-which="cancel">Cancel</button>'
)
NEW = page(
    '<button type="button" id="cancel" class="btn" data-which="cancel">Cancel</button>'
    '<button type="button" id="persist" name="persist" class="btn primary" data-testid="settings-save" '
    'aria-label="Save settings" data-which="save">Save</button>'
)


def clicks(server: LocalServer) -> list[str]:
    return [
        parse_qs(urlsplit(path).query)["which"][0]
        for _, path in server.requests
        if path.startswith("/clicked")
    ]


async def replay_on(server: LocalServer, store: Store, html: str, *, sessions: WarmSessions) -> ReplayOutcome:
    server.set_page("/settings", html)
    server.requests.clear()
    return await replay_skill(store, ReplayRequest(name=NAME, inputs={}), session_factory=sessions)


def healed(outcome: ReplayOutcome) -> set[str]:
    return {step.action_id for step in outcome.steps if step.healed}


async def test_an_adopted_heal_replays_without_healing_on_the_old_and_the_new_page(
    server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    old = await describe_url(server, "/settings", OLD, {"save": "#save", "ack": "#ack"})
    new = await describe_url(server, "/settings", NEW, {"save": "#persist"})
    # The premise: the redesign heals from the old fingerprint, and the new fingerprint alone would
    # not find the old page's button exactly (so a replaced bundle would heal back, or fail).
    forward = compare(old["save"].fingerprint, new["save"].fingerprint)
    backward = compare(new["save"].fingerprint, old["save"].fingerprint)
    assert similarity(old["save"].fingerprint, forward) >= heal.HEAL_MIN
    assert similarity(new["save"].fingerprint, backward) < heal.EXACT_MIN

    url = server.url("/settings")
    steps: list[Action] = [
        NavigateAction(id="a1", url=url),
        ClickAction(id="a2", target=old["save"]),
        ObserveAction(id="a3", target=old["ack"]),
    ]
    store_approved(store, build_draft(NAME, url_environment(url), steps))

    first = await replay_on(server, store, NEW, sessions=sessions)
    assert first.status == "succeeded", first.error and first.error.to_json()
    assert (healed(first), clicks(server)) == ({"a2"}, ["save"])
    assert first.heal_proposed

    accepted = review_skill(
        store, NAME, "bob", approve=True, expected_revision=store.get(NAME).revision, heal_proposal=True
    )
    assert (accepted.version, accepted.bump) == ("1.0.1", "patch")
    bundle = target_of(store.get(NAME).draft.actions[1])
    assert isinstance(bundle, LocatorBundle)
    # Merged: the healed element's locators first, the approved ones after; both fingerprints kept.
    selectors = [c.selector for c in bundle.candidates]
    assert selectors[0] != "#save"
    assert "#save" in selectors
    assert selectors.index("#save") > max(i for i, s in enumerate(selectors) if "persist" in s)
    assert bundle.fingerprint.attributes["id"] == new["save"].fingerprint.attributes["id"]
    assert bundle.identities == (old["save"].fingerprint,)

    for html in (NEW, OLD, NEW):
        outcome = await replay_on(server, store, html, sessions=sessions)
        assert outcome.status == "succeeded", outcome.error and outcome.error.to_json()
        assert (healed(outcome), outcome.heal_proposed, clicks(server)) == (set(), False, ["save"])
    assert store.get(NAME).status == "validated"
