"""Checks authored in an automation file (issue 33), recorded and replayed in real Chromium:
``{"do": "assert", "selector": S, "check": "not_empty" | "count", ...}`` records the check at that
point of the skill. On main the automation file's ``assert`` took ``absent`` only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillreel.services.preflight import ReplayRequest
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store

pytestmark = pytest.mark.browser


CHECKED = """<!doctype html><html><head><title>Orders</title></head><body><main>
<button id="load" type="button" onclick="document.getElementById('ref').textContent = 'R-1001';
document.getElementById('rows').innerHTML = '<li>one</li><li>two</li>'">Load</button>
<p id="ref" style="min-height: 1em"></p><ul id="rows"></ul></main></body></html>"""


async def test_an_automation_file_records_not_empty_and_count_checks_that_replay(
    tmp_path: Path, skillreel_home: Path
) -> None:
    """``{"do": "assert", "selector": S, "check": ...}`` records the check at that point (issue 33):
    a ``not_empty`` target found without its text, a ``count`` whose locator is S itself."""
    html = tmp_path / "page.html"
    html.write_text(CHECKED)
    automation = tmp_path / "a.json"
    steps = [
        {"do": "click", "selector": "#load"},
        {"do": "assert", "selector": "#ref", "check": "not_empty"},
        {"do": "assert", "selector": "#rows li", "check": "count", "atLeast": 1, "atMost": 5},
    ]
    automation.write_text(json.dumps({"steps": steps}))
    with Store.open(skillreel_home) as store:
        recorded = await record_skill(
            store, RecordRequest(name="load", html_path=html, automation=automation)
        )
        actions = recorded.entry.draft.actions
        assert [(a.kind, getattr(a, "check", None)) for a in actions] == [
            ("navigate", None),
            ("click", None),
            ("assert", "not_empty"),
            ("assert", "count"),
        ]
        count = actions[3]
        assert (count.at_least, count.at_most) == (1, 5)  # type: ignore[union-attr]
        assert [c.selector for c in count.target.candidates] == ["#rows li"]  # type: ignore[union-attr]
        assert "R-1001" not in json.dumps(recorded.entry.draft.to_json())
        review_skill(store, "load", "alice", approve=True, expected_revision=1)
        outcome = await replay_skill(store, ReplayRequest(name="load", html_path=html, timeout_ms=5_000))
    assert outcome.error is None, outcome.error
