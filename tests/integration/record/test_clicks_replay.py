"""Recorded by the scripted driver (trusted mouse input at each element's centre), then replayed
(real Chromium both ways): the click that opens a Quasar-like select through its label, a
MUI-like select opened on mousedown behind a backdrop, and a readonly date input that opens a
picker are recorded on the right element (a popup picker's opening click and option one choose
step on its combobox, record/picker.js), so the replay opens the menu and picks the option."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillreel.services.preflight import ReplayRequest
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.integration.record.clicks_pages import ANT_SELECT, DATE, MUI_SELECT, QUASAR

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _pick(opener: str, option: int, shows: str) -> list[dict[str, Any]]:
    """Open a listbox by clicking `opener`, click its `option`-th option once it is actionable (no
    wait of its own: a wait between the opening click and the choice would be a step before the
    picker opens at replay), extract `shows`."""
    return [
        {"do": "click", "selector": opener},
        {"do": "click", "selector": f"[role=option]:nth-child({option})"},
        {"do": "extract", "selector": shows, "as": "shown"},
    ]


PICKED = ["navigate", "choose", "extract"]  # the opening click and the option: one choose step
CASES: dict[str, tuple[str, list[dict[str, Any]], list[str], dict[str, str], dict[str, Any]]] = {
    "quasar": (QUASAR, _pick("#prio-field", 3, "#prio-shown"), PICKED, {"priority": "Low"}, {"shown": "Low"}),
    "ant": (ANT_SELECT, _pick("#ant-shown", 3, "#ant-shown"), PICKED, {"choice": "Jack"}, {"shown": "Jack"}),
    "mui": (
        MUI_SELECT,
        _pick("#age-select", 2, "#age-shown"),
        PICKED,
        {"age": "Thirty"},
        {"shown": "Thirty"},
    ),
    "date": (
        DATE,
        [
            {"do": "click", "selector": "#due"},
            {"do": "click", "selector": "#picker button:nth-child(14)"},
            {"do": "extract", "selector": "#due-shown", "as": "shown"},
        ],
        ["navigate", "click", "click", "extract"],
        {},
        {"shown": "2026-12-14"},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
async def test_a_recorded_popup_click_replays(tmp_path: Path, skillreel_home: Path, case: str) -> None:
    page, steps, kinds, inputs, outputs = CASES[case]
    html = tmp_path / "page.html"
    html.write_text(page)
    automation = tmp_path / "a.json"
    automation.write_text(json.dumps({"steps": steps}))
    with Store.open(skillreel_home) as store:
        result = await record_skill(store, RecordRequest(name="pick", html_path=html, automation=automation))
        assert [a.kind for a in result.entry.draft.actions] == kinds
        assert result.dropped == ()
        review_skill(store, "pick", "alice", approve=True, expected_revision=1)
        outcome = await replay_skill(
            store, ReplayRequest(name="pick", html_path=html, inputs=inputs, timeout_ms=5_000)
        )
    assert outcome.error is None, outcome.error
    assert outcome.outputs == outputs
