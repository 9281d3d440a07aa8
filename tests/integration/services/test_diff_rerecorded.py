"""``diff`` between two recordings of the same skill, aligned by what the steps do (issue 32.6), in
real Chromium: a step inserted in the middle of the second recording is one added step, and every
other step, renumbered, is unchanged; a step whose button was replaced is one changed step showing
the old and the new button. On main (steps matched by id) every step after the insertion showed
as changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillreel.services.diffing import diff_skill
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.store import Store

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGE = """<!doctype html><html><body><main>
<form id="f" action="javascript:void 0"><label for="q">Search</label><input id="q" name="q">
<label for="city">City</label><input id="city" name="city">
<button type="button" id="find" onclick="document.getElementById('out').textContent = 'Found 3'">Find</button>
<button type="button" id="look" onclick="document.getElementById('out').textContent = 'Found 3'">Look</button>
</form><p>Result: <span id="out"></span></p>
</main></body></html>"""

TYPE_Q = {"do": "type", "selector": "#q", "text": "acme"}
TYPE_CITY = {"do": "type", "selector": "#city", "text": "Lyon"}
WAIT = {"do": "wait", "selector": "#out:not(:empty)"}
EXTRACT = {"do": "extract", "selector": "#out", "as": "result"}


async def _record(store: Store, tmp_path: Path, steps: list[dict[str, Any]]) -> int:
    (tmp_path / "page.html").write_text(PAGE)
    automation = tmp_path / "steps.json"
    automation.write_text(json.dumps({"steps": steps}))
    request = RecordRequest(name="find", html_path=tmp_path / "page.html", automation=automation)
    return (await record_skill(store, request)).entry.revision


async def test_a_step_inserted_in_a_new_recording_is_one_added_step(
    tmp_path: Path, skillreel_home: Path
) -> None:
    click = {"do": "click", "selector": "#find"}
    with Store.open(skillreel_home) as store:
        first = await _record(store, tmp_path, [TYPE_Q, click, WAIT, EXTRACT])
        second = await _record(store, tmp_path, [TYPE_Q, TYPE_CITY, click, WAIT, EXTRACT])
        diff = diff_skill(store, "find", str(first), str(second)).to_json()

    assert [(s["id"], s["change"], s["kind"]) for s in diff["steps"]] == [("a3", "added", "type")]
    assert diff["unchangedSteps"] == 5  # the navigation and the four steps, renumbered


async def test_a_replaced_button_is_one_changed_step_with_both_descriptions(
    tmp_path: Path, skillreel_home: Path
) -> None:
    with Store.open(skillreel_home) as store:
        first = await _record(store, tmp_path, [TYPE_Q, {"do": "click", "selector": "#find"}, WAIT, EXTRACT])
        second = await _record(store, tmp_path, [TYPE_Q, {"do": "click", "selector": "#look"}, WAIT, EXTRACT])
        diff = diff_skill(store, "find", str(first), str(second)).to_json()

    (step,) = diff["steps"]
    assert (step["id"], step["change"], step["kind"]) == ("a3", "changed", "click")
    shown = {c["field"]: c for c in step["changes"]}
    # what a person reads of each: the buttons' display names (issue 31.1)
    assert shown["target.description"]["before"] == ['the button "Find"']
    assert shown["target.description"]["after"] == ['the button "Look"']
    assert diff["unchangedSteps"] == 4
