"""Recorded, then replayed (real Chromium both ways): a click chosen by the search input opens the
right row of a 20-row results table for three other values and fails closed (nothing clicked)
when no row, two rows or only a longer token match; the extracted values reach the caller only."""

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
from tests.integration.record.rig import page_html

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROWS = [str(1000 + i) for i in range(18)] + ["1005", "10071"]  # 1005 twice; 10071 holds 1007 only as part
DESK = page_html(
    """
<form id=search action="javascript:void 0"><input id=q name=q><button id=go type=submit>Search</button></form>
<table id=results><tbody></tbody></table>
<p id=opened></p>
<script>
const ids = IDS;
const body = document.querySelector("#results tbody");
document.querySelector("#search").addEventListener("submit", () => {
  body.textContent = "";
  ids.forEach((id, n) => {
    const tr = document.createElement("tr");
    tr.innerHTML = `<td><a href="#" class=open>Order ${id}</a></td><td class=amount>${100 + n}.50</td>`;
    tr.querySelector("a").addEventListener("click", (e) => {
      e.preventDefault();
      document.querySelector("#opened").textContent = "Opened row " + (n + 1);
    });
    body.appendChild(tr);
  });
});
</script>
""".replace("IDS", json.dumps(ROWS))
)
STEPS = [
    {"do": "type", "selector": "#q", "text": "1003"},
    {"do": "click", "selector": "#go"},
    {"do": "click", "selector": "#results tr:nth-child(4) a"},
    {"do": "wait", "selector": "#opened:not(:empty)"},
    {
        "do": "extract",
        "selector": "#opened",
        "as": "opened",
        "pattern": "Opened row ([0-9]+)",
        "type": "integer",
    },
]


async def test_a_recorded_input_chosen_click_replays_with_other_values(
    tmp_path: Path, skillreel_home: Path
) -> None:
    html = tmp_path / "desk.html"
    html.write_text(DESK)
    automation = tmp_path / "a.json"
    automation.write_text(json.dumps({"steps": STEPS}))
    with Store.open(skillreel_home) as store:
        await record_skill(store, RecordRequest(name="open-order", html_path=html, automation=automation))
        review_skill(store, "open-order", "alice", approve=True, expected_revision=1)
        for q, row in (("1007", 8), ("1012", 13), ("1017", 18)):
            outcome = await replay_skill(
                store, ReplayRequest(name="open-order", inputs={"q": q}, html_path=html, timeout_ms=5_000)
            )
            assert outcome.error is None, outcome.error
            assert outcome.outputs == {"opened": row}
        for q in ("4242", "1005", "007"):  # no row; two rows; only part of a longer token
            outcome = await replay_skill(
                store, ReplayRequest(name="open-order", inputs={"q": q}, html_path=html, timeout_ms=3_000)
            )
            assert outcome.status == "failed"
            assert outcome.error is not None
            assert outcome.error.action_id == "a4"
            assert outcome.error.code in ("SR_REPLAY_UI_TARGET_NOT_FOUND", "SR_REPLAY_UI_TARGET_AMBIGUOUS")
            assert [(s.action_id, s.status) for s in outcome.steps] == [
                ("a1", "done"),
                ("a2", "done"),
                ("a3", "done"),
                ("a4", "failed"),
            ]
            assert not outcome.steps[-1].side_effects  # nothing clicked at a4
    stored = b"".join(p.read_bytes() for p in skillreel_home.rglob("*") if p.is_file())
    for page_text in (b"Order 10", b"101.50", b"112.50"):  # ("Opened row" is the pattern: the author's text)
        assert page_text not in stored
