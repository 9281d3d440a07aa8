"""An enum input of a recorded ``<select>`` (issue 33, defect 8a), in real Chromium: the recording
keeps the salted hashes of the options' labels beside their values (``labelHashes``, never the
labels), so a replay with a value that is neither an option value nor a label (``status=zzz``) is
refused in pre-flight, before any browser starts and before anything is typed; an option's label
("Shipped") still replays. On main the invalid value was let through to the page, which typed into
the fields before the select step refused it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn

import pytest

from skillreel.model.locators import text_hash
from skillreel.services.preflight import ReplayRequest
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><head><title>Order</title></head><body><main>
<label for="note">Note</label><input id="note" name="note">
<label for="status">Status</label><select id="status" name="status">
<option value="new">New</option><option value="shp">Shipped</option><option value="cnl">Cancelled</option>
</select><button id="save" type="button" onclick="document.getElementById('out').textContent =
document.getElementById('status').value">Save</button><p id="out"></p></main></body></html>"""
STEPS = [
    {"do": "type", "selector": "#note", "text": "call first"},
    {"do": "select", "selector": "#status", "value": "cnl"},
    {"do": "click", "selector": "#save"},
    {"do": "extract", "selector": "#out", "as": "saved"},
]


async def no_browser(*args: Any, **kwargs: Any) -> NoReturn:
    raise AssertionError("a browser was started")


async def test_a_select_input_is_checked_against_values_and_label_hashes(
    tmp_path: Path, skillreel_home: Path
) -> None:
    html = tmp_path / "page.html"
    html.write_text(PAGE)
    automation = tmp_path / "a.json"
    automation.write_text(json.dumps({"steps": STEPS}))
    with Store.open(skillreel_home) as store:
        recorded = await record_skill(
            store, RecordRequest(name="order", html_path=html, automation=automation)
        )
        draft = recorded.entry.draft
        (status,) = [p for p in draft.parameters if p.type == "enum"]
        assert status.values == ("new", "shp", "cnl")
        salt = draft.fingerprint_salt
        assert status.label_hashes == tuple(
            sorted(text_hash(salt, t) or "" for t in ("New", "Shipped", "Cancelled"))
        )
        assert "Shipped" not in json.dumps(draft.to_json())  # the labels themselves are not kept
        review_skill(store, "order", "alice", approve=True, expected_revision=1)

        inputs = {"note": "x", status.name: "zzz"}
        request = ReplayRequest(name="order", html_path=html, inputs=inputs, timeout_ms=5_000)
        refused = await replay_skill(store, request, session_factory=no_browser)  # type: ignore[arg-type]
        assert refused.error is not None
        error = refused.error.to_json()
        assert error["code"] == "SR_REPLAY_PARAMETER_INVALID"
        assert "zzz" not in json.dumps(error)  # names the parameter and its rule, never the value
        assert not refused.side_effects

        by_label = {"note": "x", status.name: "Shipped"}
        request = ReplayRequest(name="order", html_path=html, inputs=by_label, timeout_ms=5_000)
        outcome = await replay_skill(store, request)
    assert outcome.error is None, outcome.error
    assert outcome.outputs == {"saved": "shp"}
