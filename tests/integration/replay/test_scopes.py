"""Replay inside open shadow roots and same-origin frames, recorded by the real recorder (shadow)
or described by fingerprint.js inside the frame (frames): the right element on the recorded page
and on a changed one, and an ambiguous page fails closed with nothing clicked. The server's
``/clicked`` log is the click log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillreel.model.actions import Action, ClickAction, NavigateAction, TypeAction
from skillreel.model.lifecycle import approve
from skillreel.model.refs import ParameterRef
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import AuditNote, Store, utc_now
from tests.support.factory import build_draft, store_approved, url_environment
from tests.support.frames import FRAME_DOC, clicks, describe_in_frame, frame, framed
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

WIDGET = """
customElements.define("search-box", class extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({mode: "open"});
    root.innerHTML = this.getAttribute("layout") === "new"
      ? '<div class="bar"><span><label for="q">Query</label><input id="q" name="q" class="in"></span>' +
        '<button type="button" class="primary">Find</button></div>'
      : '<label for="q">Query</label><input id="q" name="q"><button type="button">Find</button>';
    root.querySelector("button").addEventListener("click", () => {
      fetch("/clicked?which=" + (this.dataset.which || "find") + "&q=" +
            encodeURIComponent(root.querySelector("input").value));
    });
  }
});
"""


def shadow_page(body: str) -> str:
    return f"<!doctype html><html><body><main>{body}</main><script>{WIDGET}</script></body></html>"


RECORDED = shadow_page('<h1>Find</h1><search-box id="finder"></search-box>')
# The host lost its id and moved, the widget's inside was rewrapped: every chain candidate breaks.
CHANGED = shadow_page('<h1>Find</h1><section><search-box class="wide" layout="new"></search-box></section>')
TWO = shadow_page('<search-box data-which="one"></search-box><search-box data-which="two"></search-box>')


@pytest.fixture
def store(skillreel_home: Path) -> Any:
    with Store.open() as opened:
        yield opened


async def record_shadow(server: LocalServer, store: Store, tmp_path: Path) -> None:
    server.set_page("/find", RECORDED)
    automation = tmp_path / "a.json"
    automation.write_text(
        json.dumps(
            {
                "steps": [
                    {"do": "type", "selector": "search-box #q", "text": "first"},
                    {"do": "click", "selector": "search-box button"},
                ]
            }
        )
    )
    result = await record_skill(
        store, RecordRequest(name="find", url=server.url("/find"), automation=automation)
    )
    kinds = [a.kind for a in result.entry.draft.actions]
    assert kinds == ["navigate", "type", "click"]
    store.update(
        "find", lambda e: approve(e, "reviewer", utc_now()), AuditNote(kind="review", reviewer="reviewer")
    )


@pytest.mark.parametrize(("page", "healed"), [(RECORDED, False), (CHANGED, True)])
async def test_replay_inside_an_open_shadow_root(
    page: str, healed: bool, server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    await record_shadow(server, store, tmp_path)
    server.set_page("/find", page)
    server.requests.clear()
    outcome = await replay_skill(
        store, ReplayRequest(name="find", inputs={"q": "second"}), session_factory=sessions
    )
    assert outcome.status == "succeeded", outcome.error and outcome.error.to_json()
    assert clicks(server) == [{"which": ["find"], "q": ["second"]}]
    assert any(s.healed for s in outcome.steps) is healed


async def test_two_identical_shadow_widgets_fail_closed(
    server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    await record_shadow(server, store, tmp_path)
    server.set_page("/find", TWO)
    server.requests.clear()
    outcome = await replay_skill(
        store, ReplayRequest(name="find", inputs={"q": "second"}, timeout_ms=5_000), session_factory=sessions
    )
    assert outcome.error is not None
    assert outcome.error.code == "SR_REPLAY_UI_TARGET_AMBIGUOUS"
    assert outcome.error.action_id == "a2"
    assert clicks(server) == []


@pytest.mark.parametrize("case", ["recorded", "frame-renamed", "two-frames"])
async def test_replay_inside_a_same_origin_frame(
    case: str, server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    bundles = await describe_in_frame(server)
    assert bundles["title"].candidates[0].selector == "#editor >>> #t"
    assert bundles["title"].fingerprint.boundaries == 1
    url = server.url("/edit")
    actions: list[Action] = [
        NavigateAction(id="a1", url=url),
        TypeAction(id="a2", target=bundles["title"], value=ParameterRef(name="title")),
        ClickAction(id="a3", target=bundles["store"]),
    ]
    store_approved(store, build_draft("edit-title", url_environment(url), actions))
    changed = {
        "recorded": framed(FRAME_DOC),
        "frame-renamed": framed(FRAME_DOC.replace("id=ok", "id=save"), frame_id="composer"),
        "two-frames": framed(FRAME_DOC, extra=frame(FRAME_DOC, "copy")),
    }
    server.set_page("/edit", changed[case])
    server.requests.clear()
    outcome = await replay_skill(
        store,
        ReplayRequest(name="edit-title", inputs={"title": "Framed"}, timeout_ms=5_000),
        session_factory=sessions,
    )
    if case == "two-frames":
        assert outcome.error is not None
        assert outcome.error.code == "SR_REPLAY_UI_TARGET_AMBIGUOUS"
        assert clicks(server) == []
        return
    assert outcome.status == "succeeded", outcome.error and outcome.error.to_json()
    assert clicks(server) == [{"which": ["store"], "title": ["Framed"]}]
