"""Waits until a URL or a text and scrolls, authored by `skillreel edit` (issue 33, point 2), replayed in
real Chromium on a page where each matters: the page saves late (its URL changes, then its status
text says so) and its list loads more entries only when scrolled."""

from __future__ import annotations

from typing import Any

import pytest

from skillreel.model.actions import (
    Action,
    ClickAction,
    ExtractAction,
    NavigateAction,
    ObserveAction,
    TypeAction,
)
from skillreel.model.refs import ParameterRef
from skillreel.record.edits import EditPatch, apply_edits
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import Store
from tests.support.describe import describe_url
from tests.support.factory import content_free, element_set, graph_draft, store_approved, url_environment
from tests.support.late_pages import DESK
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

EDITS: list[dict[str, Any]] = [
    {"op": "add-wait", "after": "a3", "until": "url", "expected": "/desk/saved", "timeoutMs": 5000},
    {
        "op": "add-wait",
        "before": "a4",
        "until": "text",
        "target": "a4",
        "value": {"ref": "parameter", "name": "order"},
        "timeoutMs": 5000,
    },
    {"op": "add-scroll", "before": "a6", "target": "a5", "to": "end", "maxRounds": 10},
]


async def test_waits_and_a_scroll_added_by_edits_hold_on_a_late_page(
    server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    selectors = {"order": "#order", "save": "#save", "status": "#status", "feed": "#feed"}
    bundles = await describe_url(server, "/desk", DESK, selectors)
    url = server.url("/desk")
    recorded: list[Action] = [
        NavigateAction(id="a1", url=url),
        TypeAction(id="a2", target=bundles["order"], value=ParameterRef(name="order")),
        ClickAction(id="a3", target=bundles["save"]),
        ExtractAction(id="a4", output="status", target=content_free(bundles["status"])),
        ObserveAction(id="a5", target=bundles["feed"]),
        ExtractAction(id="a6", output="entries", read="count", items=element_set("#feed li.entry", tag="li")),
    ]
    draft = graph_draft(recorded, name="as-recorded", environment=url_environment(url))
    edited = apply_edits(draft, EditPatch.parse({"schema": "skillreel.edit/v1", "edits": EDITS})).draft
    steps = [(a.id, a.to_json()) for a in edited.actions]
    waits = [s for _, s in steps if s["kind"] == "wait"]
    assert [(w["until"], w.get("expected"), w.get("value")) for w in waits] == [
        ("url", "/desk/saved", None),
        ("text", None, {"ref": "parameter", "name": "order"}),
    ]
    assert [s["kind"] for _, s in steps] == [
        "navigate",
        "type",
        "click",
        "wait",
        "wait",
        "extract",
        "observe",
        "scroll",
        "extract",
    ]
    store_approved(store, draft)
    store_approved(store, edited.evolve(name="edited"))

    async def play(name: str) -> object:
        request = ReplayRequest(name=name, inputs={"order": "ORDER-7"}, timeout_ms=8_000)
        outcome = await replay_skill(store, request, session_factory=sessions)
        assert outcome.error is None, outcome.error.to_json()
        return outcome.outputs

    # as recorded, the steps run before the page has saved and before the list has loaded more
    assert await play("as-recorded") == {"status": "Not saved", "entries": 10}
    assert await play("edited") == {"status": "Saved ORDER-7", "entries": 50}
