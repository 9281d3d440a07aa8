"""Waits until a URL or a text and a scroll, authored in the automation file (issue 33, point 2),
recorded and then replayed in real Chromium on a page where each matters: it saves late (its URL
changes, then its status says so) and its list loads more entries only when scrolled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillreel.errors import SkillreelError
from skillreel.services.preflight import ReplayRequest
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.integration.record.rig import scripted
from tests.support.late_pages import DESK

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STEPS: list[dict[str, Any]] = [
    {"do": "type", "selector": "#order", "text": "ORDER-7"},
    {"do": "click", "selector": "#save"},
    {"do": "wait", "url": "/desk/saved"},
    {"do": "wait", "selector": "#status", "text": {"input": "order"}},
    {"do": "extract", "selector": "#status", "as": "status"},
    {"do": "scroll", "selector": "#feed", "to": "end", "maxRounds": 10},
    {"do": "extract", "selector": "#feed li.entry", "all": True, "read": "count", "as": "entries"},
]


async def test_scripted_waits_and_a_scroll_are_recorded_and_hold_at_replay(
    tmp_path: Path, skillreel_home: Path
) -> None:
    html, automation = scripted(tmp_path, DESK, STEPS)
    with Store.open(skillreel_home) as store:
        await record_skill(store, RecordRequest(name="save-order", html_path=html, automation=automation))
        steps = [a.to_json() for a in store.get("save-order").draft.actions]
        shaped = [(s["kind"], s.get("until"), s.get("expected"), s.get("value"), s.get("to")) for s in steps]
        assert [s for s in shaped if s[0] in ("wait", "scroll")] == [
            ("wait", "url", "/desk/saved", None, None),
            ("wait", "text", None, {"ref": "parameter", "name": "order"}, None),
            ("scroll", None, None, None, "end"),
        ]
        review_skill(store, "save-order", "alice", approve=True, expected_revision=1)
        request = ReplayRequest(
            name="save-order", inputs={"order": "ORDER-9"}, html_path=html, timeout_ms=8_000
        )
        outcome = await replay_skill(store, request)
        assert outcome.error is None, outcome.error.to_json()
        assert outcome.outputs == {"status": "Saved ORDER-9", "entries": 50}


async def test_a_text_wait_on_a_sensitive_input_is_refused(tmp_path: Path, skillreel_home: Path) -> None:
    html, automation = scripted(tmp_path, DESK, STEPS[:4])
    with Store.open(skillreel_home) as store, pytest.raises(SkillreelError) as info:
        await record_skill(
            store,
            RecordRequest(name="save-order", html_path=html, automation=automation, sensitive=("order",)),
        )
    assert info.value.code == "SR_RECORD_PARAMETER_UNKNOWN"
    assert "ORDER-7" not in info.value.message
