"""Recording the v2 steps with a scripted demonstration in real Chromium: extraction of an element
and of a list, a wait, a dialog, a click chosen by a typed value, and a select's option values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from skillreel.errors import InputError
from skillreel.model.actions import ClickAction, DialogAction, ExtractAction, WaitAction
from skillreel.model.draft import V2
from skillreel.model.locators import content_hashes
from skillreel.model.refs import ParameterRef
from skillreel.record.automation import AutomationScript, perform
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.store import Store
from tests.integration.record.rig import Rig, page_html

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

DESK = page_html("""
<form id=search action="javascript:void 0">
  <label for=q>Invoice</label><input id=q name=q>
  <label for=region>Region</label>
  <select id=region name=region><option value=north>North</option><option value=south>South</option></select>
  <button id=go type=submit>Search</button>
</form>
<table id=results><thead><tr><th>Invoice</th><th>Customer</th><th>Amount</th></tr></thead>
<tbody></tbody></table>
<section id=detail hidden><h2>Invoice <span class=number></span></h2>
  <p>Total: <b id=total></b></p><button id=approve type=button>Approve</button><p id=done hidden>Approved</p>
</section>
<script>
const rows = [];
for (let i = 0; i < 20; i++) {
  rows.push({id: String(1000 + i), who: "Customer " + i, amount: (1200 + i * 11.5).toFixed(2)});
}
const body = document.querySelector("#results tbody");
function show(list) {
  body.textContent = "";
  for (const r of list) {
    const tr = document.createElement("tr");
    tr.innerHTML = `<td><a href="#" class="open">Order ${r.id}</a></td><td class=who>${r.who}</td>` +
      `<td class=amount>$${Number(r.amount).toLocaleString("en-US", {minimumFractionDigits: 2})}</td>`;
    tr.querySelector("a").addEventListener("click", (e) => { e.preventDefault(); open_(r); });
    body.appendChild(tr);
  }
}
function open_(r) {
  document.querySelector("#detail").hidden = false;
  document.querySelector("#detail .number").textContent = r.id;
  document.querySelector("#total").textContent = "$" + r.amount;
}
document.querySelector("#search").addEventListener("submit", () => {
  const q = document.querySelector("#q").value.trim();
  show(rows.filter((r) => r.id.includes(q) || q === "*"));
});
document.querySelector("#approve").addEventListener("click", () => {
  if (confirm("Approve this invoice?")) document.querySelector("#done").hidden = false;
});
show(rows);
</script>
""")


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data))
    return path


async def record(tmp_path: Path, home: Path, steps: list[dict[str, Any]], name: str = "desk") -> Any:
    html = tmp_path / "desk.html"
    html.write_text(DESK)
    automation = write(tmp_path / f"{name}.json", {"steps": steps})
    request = RecordRequest(name=name, html_path=html, automation=automation, timeout_ms=5_000)
    with Store.open(home) as store:
        await record_skill(store, request)
        return store.get(name)


async def test_search_open_extract_approve(tmp_path: Path, skillreel_home: Path) -> None:
    entry = await record(
        tmp_path,
        skillreel_home,
        [
            {
                "do": "extract",
                "selector": "#results tbody tr",
                "as": "invoices",
                "all": True,
                "fields": {"invoice": "a.open", "amount": {"selector": "td.amount", "type": "number"}},
            },
            {"do": "type", "selector": "#q", "text": "1003"},
            {"do": "select", "selector": "#region", "value": "south"},
            {"do": "click", "selector": "#go"},
            {"do": "click", "selector": "#results a.open"},
            {"do": "wait", "selector": "#total"},
            {"do": "extract", "selector": "#total", "as": "total", "type": "number"},
            {"do": "click", "selector": "#approve"},
            {"do": "dialog", "accept": True},
            {"do": "extract", "selector": "#done", "as": "approved", "read": "presence"},
        ],
    )
    draft = entry.draft
    assert draft.schema_ == V2
    kinds = [a.kind for a in draft.actions]
    assert kinds == [
        "navigate",
        "extract",
        "type",
        "select",
        "click",
        "click",
        "wait",
        "extract",
        "click",
        "dialog",
        "extract",
    ]
    listing, total, approved = (a for a in draft.actions if isinstance(a, ExtractAction))
    assert (listing.output, listing.read, listing.limit) == ("invoices", "list", 100)
    assert listing.items is not None
    assert listing.items.candidates[0].match_count == 20
    assert [(f.name, f.read, f.value_type) for f in listing.fields] == [
        ("invoice", "text", "string"),
        ("amount", "text", "number"),
    ]
    assert all(
        f.target is not None and f.target.candidates[0].selector.startswith(":scope") for f in listing.fields
    )
    assert (total.output, total.read, total.value_type) == ("total", "text", "number")
    assert (approved.output, approved.read, approved.value_type) == ("approved", "presence", "boolean")
    for bundle in (total.target, approved.target):
        assert bundle is not None
        assert content_hashes(bundle.fingerprint) == ()
    chosen = draft.actions[5]
    assert isinstance(chosen, ClickAction)
    assert chosen.target.filter is not None
    assert chosen.target.filter.contains_token == ParameterRef(name="q")
    assert content_hashes(chosen.target.fingerprint) == ()
    assert chosen.target.fingerprint.label_hash is None
    assert chosen.target.fingerprint.attributes == {}
    wait = draft.actions[6]
    assert isinstance(wait, WaitAction)
    assert wait.until == "appears"
    dialog = draft.actions[9]
    assert isinstance(dialog, DialogAction)
    assert (dialog.accept, dialog.expects) == (True, "confirm")
    region = draft.parameter("region")
    assert region is not None
    assert (region.type, region.values) == ("enum", ("north", "south"))
    assert [o.name for o in draft.outputs] == ["invoices", "total", "approved"]
    stored = json.dumps([entry.to_json()]).lower()
    for page_text in ("order 10", "customer 1", "1,2", "1234.", "approve this invoice"):
        assert page_text not in stored


async def test_a_dismissed_confirm_is_recorded(tmp_path: Path, skillreel_home: Path) -> None:
    entry = await record(
        tmp_path,
        skillreel_home,
        [
            {"do": "click", "selector": "#results tbody tr:first-child a.open"},
            {"do": "click", "selector": "#approve"},
            {"do": "dialog", "accept": False},
        ],
        name="dismiss",
    )
    dialog = entry.draft.actions[-1]
    assert isinstance(dialog, DialogAction)
    assert not dialog.accept


@pytest.mark.parametrize(
    ("step", "why"),
    [
        ({"do": "extract", "selector": "#results a.open", "as": "one"}, "matches 20 elements"),
        ({"do": "extract", "selector": "#nothing", "as": "one"}, "matches no element"),
        (
            {"do": "extract", "selector": "#results tbody tr", "as": "rows", "all": True, "limit": 5},
            "more than its limit 5",
        ),
        (
            {
                "do": "extract",
                "selector": "#results tbody tr",
                "as": "rows",
                "all": True,
                "fields": {"x": "td"},
            },
            "field 'x'",
        ),
        ({"do": "extract", "selector": "#total", "as": "total", "pattern": "(a)(b)"}, "exactly one group"),
        ({"do": "wait", "selector": "#done", "timeout": 1}, None),
        ({"do": "dialog", "accept": True}, "must follow the step that opens"),
        ({"do": "dialog", "accept": True}, "opened no dialog"),
    ],
)
async def test_a_scripted_v2_step_that_cannot_be_recorded_is_refused(
    rig: Rig, step: dict[str, Any], why: str | None
) -> None:
    if why is None:  # an unknown key: the file is refused before anything runs
        with pytest.raises(ValidationError):
            AutomationScript.parse({"steps": [step]})
        return
    steps = [{"do": "click", "selector": "#go"}, step]
    if why.startswith("must follow"):
        steps = [step, {"do": "click", "selector": "#go"}]
    script = AutomationScript.parse({"steps": steps})
    async with rig.recording(DESK) as run:
        with pytest.raises(InputError) as info:
            await perform(run.page, script, timeout_ms=3_000, between=run.recorder.settle, marks=run.recorder)
        assert info.value.code == "SR_RECORD_AUTOMATION_FAILED"
        assert why in info.value.message
        assert [e.type for e in await run.events()] in (["click"], [])
