"""Every action kind replays in real Chromium with inputs other than the recorded ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillreel.model.actions import (
    Action,
    AssertAction,
    ClickAction,
    NavigateAction,
    ObserveAction,
    PressAction,
    SelectAction,
    TypeAction,
)
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate
from skillreel.model.refs import ParameterRef
from skillreel.model.report import ReplayReport
from skillreel.model.runs import can_act
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import Store
from skillreel.vault import secret_env_name
from tests.support.describe import describe_on, describe_url
from tests.support.factory import build_draft, html_environment, store_approved, url_environment
from tests.support.narrow import present
from tests.support.readback import audit_json
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

FORM = """<!doctype html><html><head><title>Order</title></head><body><main>
<form id="order">
  <label for="q">Search</label><input id="q" name="q" type="text">
  <label for="pw">Password</label><input id="pw" name="pw" type="password">
  <label for="colour">Colour</label>
  <select id="colour" name="colour"><option value="red">Red</option><option value="green">Green</option>
    <option value="blue">Blue</option></select>
  <label><input id="agree" name="agree" type="checkbox"> I agree</label>
  <button id="send" type="submit">Send</button>
</form>
<p id="result"></p>
</main>
<script>
document.getElementById("order").addEventListener("submit", async (event) => {
  event.preventDefault();
  const f = event.target;
  const body = JSON.stringify({q: f.q.value, pw: f.pw.value, colour: f.colour.value, agree: f.agree.checked});
  if (location.protocol !== "https:") await fetch("/submit", {method: "POST", body});
  document.getElementById("result").textContent = "Sent " + f.colour.value;
});
</script></body></html>"""

SELECTORS = {
    "q": "#q",
    "pw": "#pw",
    "colour": "#colour",
    "agree": "#agree",
    "send": "#send",
    "result": "#result",
}


def option_count_bundle() -> LocatorBundle:
    candidate = LocatorCandidate(strategy="css", selector="#colour > option", match_count=3)
    fingerprint = Fingerprint(
        tag="option", parent_path=("select", "form", "main", "body", "html"), sibling_count=3
    )
    return LocatorBundle(candidates=(candidate,), fingerprint=fingerprint)


def flow(b: dict[str, LocatorBundle], url: str) -> list[Action]:
    return [
        NavigateAction(id="a1", url=url),
        TypeAction(id="a2", target=b["q"], value=ParameterRef(name="query")),
        TypeAction(id="a3", target=b["pw"], value=ParameterRef(name="password")),
        SelectAction(id="a4", target=b["colour"], value=ParameterRef(name="colour")),
        ClickAction(id="a5", target=b["agree"]),
        PressAction(id="a6", key="Enter", target=b["q"]),
        # The page writes its result after its fetch's body: the check waits for it (an assertion
        # polls until it holds), so the observation reads the page the submit led to, not a
        # moment of it (two replays compare its evidence digest).
        AssertAction(id="a7", check="text_contains", target=b["result"], expected="Sent"),
        ObserveAction(id="a8", target=b["result"]),
        AssertAction(id="a9", check="url_matches", expected="/order*"),
        AssertAction(id="a10", check="count", target=option_count_bundle(), expected=3),
        AssertAction(id="a11", check="visible", target=b["send"]),
    ]


async def test_every_kind_replays_on_a_url_target_with_new_inputs(
    server: LocalServer, store: Store, monkeypatch: pytest.MonkeyPatch, sessions: WarmSessions
) -> None:
    bundles = await describe_url(server, "/order", FORM, SELECTORS)
    url = server.url("/order")
    draft = build_draft("order-things", url_environment(url), flow(bundles, url), sensitive=["password"])
    entry = store_approved(store, draft)
    monkeypatch.setenv(secret_env_name("order-things", "password"), "s3cret-Pw!")

    outcome = await replay_skill(
        store,
        ReplayRequest(name="order-things", inputs={"query": "new query", "colour": "blue"}),
        session_factory=sessions,
    )

    assert outcome.error is None, outcome.error
    assert outcome.status == "succeeded"
    posted = [
        json.loads(b)
        for (m, p), b in zip(server.requests, server.bodies, strict=True)
        if (m, p) == ("POST", "/submit")
    ]
    assert posted == [{"q": "new query", "pw": "s3cret-Pw!", "colour": "blue", "agree": True}]
    assert [s.action_id for s in outcome.steps] == [a.id for a in draft.actions]
    assert [s.status for s in outcome.steps] == ["done"] * len(draft.actions)
    assert not any(s.healed for s in outcome.steps)
    # a step has side effects when it acted: typed, selected, clicked, pressed (not the start
    # navigation, not an observation or a check)
    assert [s.side_effects for s in outcome.steps] == [can_act(a) for a in draft.actions]
    assert [s.side_effects for s in outcome.steps] == [False] + [True] * 5 + [False] * 5
    after = store.get("order-things")
    assert (after.status, after.revision) == ("validated", entry.revision + 1)
    assert (outcome.revision, outcome.validated_revision) == (entry.revision, after.revision)
    assert after.last_report is not None
    assert after.last_report == outcome.report
    assert ReplayReport.parse(after.last_report.to_json()).report_digest == outcome.to_json()["reportDigest"]
    assert store.heal_proposals("order-things") == []
    run_end, validate = audit_json(store)[-2:]
    assert (run_end["kind"], run_end["outcome"], run_end["revision"]) == ("run-end", "ok", entry.revision)
    assert run_end["digests"]["report"] == outcome.report.report_digest
    assert (validate["kind"], validate["revision"]) == ("validate", after.revision)
    assert validate["run"] == run_end["run"] == outcome.run_id


async def test_replaying_again_keeps_the_state_and_yields_the_same_evidence(
    server: LocalServer, store: Store, monkeypatch: pytest.MonkeyPatch, sessions: WarmSessions
) -> None:
    bundles = await describe_url(server, "/order", FORM, SELECTORS)
    store_approved(
        store,
        build_draft(
            "order-things",
            url_environment(server.url("/order")),
            flow(bundles, server.url("/order")),
            sensitive=["password"],
        ),
    )
    monkeypatch.setenv(secret_env_name("order-things", "password"), "pw")
    request = ReplayRequest(name="order-things", inputs={"query": "x", "colour": "green"})
    first = await replay_skill(store, request, session_factory=sessions)
    second = await replay_skill(store, request, session_factory=sessions)
    assert first.status == second.status == "succeeded"
    assert [s.evidence_digest for s in first.steps] == [s.evidence_digest for s in second.steps]
    after = store.get("order-things")
    assert after.status == "validated"
    # the first run validated the approved revision (one new revision); the second ran that
    # revision and wrote none: a run is a record, not a revision
    assert second.revision == after.revision == present(first.revision) + 1
    assert (first.validated_revision, second.validated_revision) == (present(first.revision) + 1, None)
    assert [r.record.run_id for r in store.runs("order-things")] == [second.run_id, first.run_id]


async def test_an_html_fixture_replays_offline(store: Store, tmp_path: Path, sessions: WarmSessions) -> None:
    env = html_environment(FORM)
    bundles = await describe_on(env, SELECTORS, html=FORM)
    actions: list[Action] = [
        NavigateAction(id="a1", url="https://fixture.skillreel.invalid/"),
        SelectAction(id="a2", target=bundles["colour"], value=ParameterRef(name="colour")),
        ClickAction(id="a3", target=bundles["send"]),
        AssertAction(id="a4", check="text_equals", target=bundles["result"], expected="Sent green"),
    ]
    store_approved(store, build_draft("fixture-skill", env, actions))
    page = tmp_path / "form.html"
    page.write_text(FORM, encoding="utf-8")
    outcome = await replay_skill(
        store,
        ReplayRequest(name="fixture-skill", inputs={"colour": "green"}, html_path=page),
        session_factory=sessions,
    )
    assert outcome.status == "succeeded", outcome.error
    failing = await replay_skill(
        store,
        ReplayRequest(name="fixture-skill", inputs={"colour": "red"}, html_path=page, timeout_ms=5_000),
        session_factory=sessions,
    )
    assert failing.error is not None
    assert (failing.error.code, failing.error.action_id) == ("SR_REPLAY_UI_ASSERTION_FAILED", "a4")
