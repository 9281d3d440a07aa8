"""Name hashes are salted per skill, not per recording (issue 28): recording a stored skill again
reuses its ``fingerprintSalt``, so identical elements get identical identities and ``skillreel
diff`` between two recordings of the same page shows no changed step. Another skill gets its own
salt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillreel.services.diffing import diff_skill
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.store import Store

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><body><main>
<form id="f"><label for="q">Search</label><input id="q" name="q">
<button type="button" class="btn"
  onclick="document.getElementById('out').textContent = 'Found 3'">Search</button>
<a href="#/orders/7/">Orders</a></form><p>Result: <span class="out" id="out"></span></p>
</main></body></html>"""

STEPS = [
    {"do": "type", "selector": "#q", "text": "acme"},
    {"do": "click", "selector": "button.btn"},
    {"do": "wait", "selector": "#out:not(:empty)"},
    {"do": "extract", "selector": "#out", "as": "result"},
]


async def test_recording_a_skill_again_keeps_its_salt_and_diffs_clean(
    tmp_path: Path, skillreel_home: Path
) -> None:
    (tmp_path / "desk.html").write_text(PAGE)
    (tmp_path / "a.json").write_text(json.dumps({"steps": STEPS}))

    def request(name: str) -> RecordRequest:
        return RecordRequest(name=name, html_path=tmp_path / "desk.html", automation=tmp_path / "a.json")

    with Store.open(skillreel_home) as store:
        first = await record_skill(store, request("find"))
        second = await record_skill(store, request("find"))
        other = await record_skill(store, request("other"))
        salt = first.entry.draft.fingerprint_salt
        assert second.entry.draft.fingerprint_salt == salt
        assert other.entry.draft.fingerprint_salt != salt
        assert second.entry.revision == first.entry.revision + 1
        diff = diff_skill(store, "find", str(first.entry.revision), str(second.entry.revision)).to_json()
        assert diff["steps"] == [], diff["steps"]
        assert first.entry.draft.actions == second.entry.draft.actions
