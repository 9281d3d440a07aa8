"""An automation edit that types an earlier extract's output (``"from"``; issue 33), recorded and
replayed in real Chromium: the recorded step types the output (no parameter is made), the replay
types what the page shows then, and neither value is stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillreel.errors import SkillreelError
from skillreel.model.actions import Retry, SelectAction, TypeAction
from skillreel.model.refs import OutputRef
from skillreel.services.preflight import ReplayRequest
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.integration.record.rig import page_html
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DESK = page_html(
    """
<p>Latest: <span id=latest>Order 48151623</span> <span id=tier>Gold</span></p>
<input id=q name=q>
<select id=level><option value="">-</option><option value=s>Silver</option>
<option value=g>Gold</option></select>
<button id=go type=button>Search</button>
<p id=result></p>
<script>
document.querySelector("#go").addEventListener("click", () => {
  const q = document.querySelector("#q").value, level = document.querySelector("#level").value;
  fetch("/log?q=" + encodeURIComponent(q) + "&level=" + level);
  document.querySelector("#result").textContent = "Searched";
});
</script>
"""
)
STEPS = [
    {"do": "extract", "selector": "#latest", "as": "order_id", "pattern": "Order ([0-9]+)"},
    {"do": "extract", "selector": "#tier", "as": "tier"},
    {"do": "type", "selector": "#q", "from": "order_id"},
    {"do": "select", "selector": "#level", "from": "tier"},
    {"do": "click", "selector": "#go"},
    {"do": "wait", "selector": "#result:not(:empty)"},
]


async def test_a_typed_value_comes_from_an_earlier_extract(
    tmp_path: Path, skillreel_home: Path, record_server: LocalServer
) -> None:
    automation = tmp_path / "desk.json"
    automation.write_text(json.dumps({"steps": STEPS}))
    record_server.set_route("/log", body=b"ok")
    record_server.set_page("/desk", DESK)
    url = record_server.url("/desk")
    with Store.open(skillreel_home) as store:
        result = await record_skill(store, RecordRequest(name="desk", url=url, automation=automation))
        draft = result.entry.draft
        assert draft.parameters == ()  # nothing to give: the values come from the page
        edits = [a for a in draft.actions if isinstance(a, TypeAction | SelectAction)]
        assert [a.value for a in edits] == [
            OutputRef(step="a2", field="order_id"),
            OutputRef(step="a3", field="tier"),
        ]
        assert b"48151623" not in json.dumps(draft.to_json()).encode()
        review_skill(store, "desk", "alice", approve=True, expected_revision=1)
        record_server.set_page(
            "/desk", DESK.replace("48151623", "27182818").replace(">Gold</span>", ">Silver</span>")
        )
        record_server.requests.clear()
        outcome = await replay_skill(store, ReplayRequest(name="desk", inputs={}, url=url, timeout_ms=5_000))
        assert outcome.error is None, outcome.error and outcome.error.to_json()
        assert outcome.outputs == {"order_id": "27182818", "tier": "Silver"}
        assert ("GET", "/log?q=27182818&level=s") in record_server.requests
    stored = b"".join(p.read_bytes() for p in skillreel_home.rglob("*") if p.is_file())
    assert b"48151623" not in stored
    assert b"27182818" not in stored


async def test_an_edit_from_an_output_no_earlier_step_reads_is_refused(
    tmp_path: Path, skillreel_home: Path, record_server: LocalServer
) -> None:
    automation = tmp_path / "desk.json"
    automation.write_text(json.dumps({"steps": [{"do": "type", "selector": "#q", "from": "order_id"}]}))
    record_server.set_page("/desk", DESK)
    with Store.open(skillreel_home) as store:
        with pytest.raises(SkillreelError) as err:
            await record_skill(
                store, RecordRequest(name="desk", url=record_server.url("/desk"), automation=automation)
            )
        assert err.value.code == "SR_RECORD_AUTOMATION_FAILED"
        assert err.value.details.get("step") == 1
        assert store.find("desk") is None


async def test_automation_retries_are_recorded_on_the_steps_that_take_them(
    tmp_path: Path, skillreel_home: Path, record_server: LocalServer
) -> None:
    record_server.set_page("/desk", DESK)
    record_server.set_page("/other", DESK)
    retry = {"times": 2, "intervalMs": 250}
    steps = [
        {"do": "extract", "selector": "#latest", "as": "order_id", "retry": retry},
        {"do": "goto", "url": record_server.url("/other"), "retry": {"times": 1}},
        {"do": "wait", "selector": "#tier", "retry": retry},
        {"do": "click", "selector": "#go"},
    ]
    automation = tmp_path / "desk.json"
    automation.write_text(json.dumps({"steps": steps}))
    with Store.open(skillreel_home) as store:
        result = await record_skill(
            store, RecordRequest(name="desk", url=record_server.url("/desk"), automation=automation)
        )
    kinds = [(a.kind, getattr(a, "retry", None)) for a in result.entry.draft.actions]
    assert kinds == [
        ("navigate", None),
        ("extract", Retry(times=2, interval_ms=250)),
        ("navigate", Retry(times=1, interval_ms=1000)),
        ("wait", Retry(times=2, interval_ms=250)),
        ("click", None),
    ]
