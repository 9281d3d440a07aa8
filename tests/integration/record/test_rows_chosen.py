"""Rows chosen by what was typed (issue 28), recorded and replayed in real Chromium.

A user list filtered by a typed name: the row's id link ("2") and its icon-only "⋮" menu button
(the menu teleported to the end of <body>, then a menu item clicked) show no typed value
themselves; their row does. Replayed with another name, the other row's link and menu are used;
a name two rows show is ambiguous and nothing is clicked; a name no row shows is not found. A
results table restructured (table -> div grid, classes and wrappers changed, the link text "Order
1007" unchanged) still finds the input-chosen link through the fallback by role.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillreel.errors import InputError
from skillreel.model.actions import ClickAction
from skillreel.record.edits import EditPatch
from skillreel.services.editing import edit_skill
from skillreel.services.preflight import ReplayRequest
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.integration.record.rig import page_html
from tests.support.describe import describe_on
from tests.support.factory import html_environment
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]
AMBIGUOUS, NOT_FOUND = "SR_REPLAY_UI_TARGET_AMBIGUOUS", "SR_REPLAY_UI_TARGET_NOT_FOUND"

USERS = [
    [2, "Alice Smith"],
    [3, "Ann Jonesy"],
    [4, "Jo Smithson"],
    [5, "Bob Jones"],
    [6, "Bob Marley"],
    [8, "Carl Bobbins"],
]
# A list filtered by name (substring, as such filters are): each row an id link, the name and a
# "⋮" button that opens a row menu teleported to the end of <body> (MUI / Quasar style).
USER_LIST = page_html(
    """
<form id=search action="javascript:void 0"><input id=q name=q><button id=go type=submit>Filter</button></form>
<table class=users><thead><tr><th>Id</th><th>Name</th><th></th></tr></thead><tbody></tbody></table>
<p id=opened></p>
<script>
const users = USERS;
const body = document.querySelector("table.users tbody");
function menuFor(id, button) {
  document.querySelectorAll(".menu-paper").forEach((m) => m.remove());
  const paper = document.createElement("div");
  paper.className = "menu-paper";
  paper.innerHTML = '<ul role=menu><li role=menuitem tabindex=-1>Edit</li>' +
    '<li role=menuitem tabindex=-1>Delete</li></ul>';
  const box = button.getBoundingClientRect();
  paper.style = `position:absolute;left:${box.left}px;top:${box.bottom + window.scrollY}px;background:#fff`;
  paper.querySelectorAll("[role=menuitem]").forEach((item) => item.addEventListener("click", () => {
    document.querySelector("#opened").textContent = item.textContent + "ing user " + id;
    paper.remove();
  }));
  document.body.appendChild(paper);
}
document.querySelector("#search").addEventListener("submit", () => {
  const q = document.querySelector("#q").value.toLowerCase();
  body.textContent = "";
  for (const [id, name] of users.filter(([, n]) => n.toLowerCase().includes(q))) {
    const tr = document.createElement("tr");
    tr.innerHTML = `<td><a href="/users/${id}">${id}</a></td><td>${name}</td>` +
      `<td><button type=button class=more><span class=icon>⋮</span></button></td>`;
    tr.querySelector("a").addEventListener("click", (e) => {
      e.preventDefault();
      document.querySelector("#opened").textContent = "Opened user " + id;
    });
    tr.querySelector("button.more").addEventListener("click", (e) => menuFor(id, e.currentTarget));
    body.appendChild(tr);
  }
});
</script>
""".replace("USERS", json.dumps(USERS))
)
OPENED = {"do": "extract", "selector": "#opened", "as": "user", "pattern": "user ([0-9]+)", "type": "integer"}
SEARCH: list[dict[str, Any]] = [
    {"do": "type", "selector": "#q", "text": "Smith"},
    {"do": "click", "selector": "#go"},
]
BY_ID_LINK = [
    *SEARCH,
    {"do": "click", "selector": "table.users tbody tr:nth-child(1) a"},
    {"do": "wait", "selector": "#opened:not(:empty)"},
    OPENED,
]
BY_ROW_MENU = [
    *SEARCH,
    {"do": "click", "selector": "table.users tbody tr:nth-child(1) button.more"},
    {"do": "click", "selector": ".menu-paper [role=menuitem]:nth-child(1)"},
    {"do": "wait", "selector": "#opened:not(:empty)"},
    OPENED,
]


async def _record(store: Store, tmp_path: Path, name: str, html: str, steps: list[dict[str, Any]]) -> Path:
    page = tmp_path / f"{name}.html"
    page.write_text(html)
    automation = tmp_path / f"{name}.json"
    automation.write_text(json.dumps({"steps": steps}))
    await record_skill(store, RecordRequest(name=name, html_path=page, automation=automation))
    review_skill(store, name, "alice", approve=True, expected_revision=1)
    return page


@pytest.mark.parametrize("steps", [BY_ID_LINK, BY_ROW_MENU], ids=["id-link", "row-menu"])
async def test_a_row_chosen_by_a_typed_name_replays_with_another_name(
    tmp_path: Path, skillreel_home: Path, steps: list[dict[str, Any]]
) -> None:
    with Store.open(skillreel_home) as store:
        page = await _record(store, tmp_path, "open-user", USER_LIST, steps)
        for q, user in (("Smith", 2), ("Jones", 5), ("marley", 6)):
            outcome = await replay_skill(
                store, ReplayRequest(name="open-user", inputs={"q": q}, html_path=page, timeout_ms=5_000)
            )
            assert outcome.error is None, (q, outcome.error)
            assert outcome.outputs == {"user": user}
        for q, code in (("Bob", AMBIGUOUS), ("Nobody", NOT_FOUND)):
            outcome = await replay_skill(
                store, ReplayRequest(name="open-user", inputs={"q": q}, html_path=page, timeout_ms=2_000)
            )
            assert outcome.error is not None
            assert outcome.error.code == code, (q, outcome.error)
            assert outcome.error.action_id == "a4"
            assert not outcome.steps[-1].side_effects  # nothing clicked at a4
        click = next(a for a in store.get("open-user").draft.actions if a.id == "a4")
        assert isinstance(click, ClickAction)
        assert click.target.filter is not None
        assert getattr(click.target, "row", None) is not None
        assert click.target.fingerprint.name_hash is None or steps is BY_ROW_MENU  # "2" is no identity
    stored = b"".join(p.read_bytes() for p in skillreel_home.rglob("*") if p.is_file())
    for page_text in (b"Alice", b"Smith", b"/users/2"):
        assert page_text not in stored


ORDERS = ["1003", "1005", "1007", "10071", "1012"]


def orders_page(markup: str, ids: list[str], row: str) -> str:
    """A results page: ``markup`` (a form #search with #q, a container, #opened), then one result
    per id made by the JavaScript ``row`` (a function of the id, returning [container, element])
    whose link "Order <id>" opens it."""
    return page_html(
        markup
        + """<script>
document.querySelector("#search").addEventListener("submit", () => {
  IDS.forEach((id, n) => {
    const [box, el] = (ROW)(id);
    if (n === 0) box.textContent = "";
    el.querySelector("a").addEventListener("click", (e) => {
      e.preventDefault();
      document.querySelector("#opened").textContent = "Opened order " + id;
    });
    box.appendChild(el);
  });
});
</script>""".replace("IDS", json.dumps(ids)).replace("ROW", row)
    )


SEARCH_FORM = (
    '<form id=search action="javascript:void 0"><input id=q name=q>'
    "<button id=go type=submit>Search</button></form>"
)
ORDER_TABLE = orders_page(
    f"""<nav><a href="#">Orders</a> <a href="#">Customers</a></nav>{SEARCH_FORM}
<table id=results><tbody></tbody></table><p id=opened></p>""",
    ORDERS,
    """(id) => {
  const tr = document.createElement("tr");
  tr.innerHTML = `<td><a href="#" class=order-link>Order ${id}</a></td><td class=amount>10.50</td>`;
  return [document.querySelector("#results tbody"), tr];
}""",
)
# The same results as a div grid: another id, no table, new classes and wrappers, same link text.
ORDER_GRID = orders_page(
    f"""<header><nav class=top><a href="#">Orders</a> <a href="#">Customers</a></nav></header>{SEARCH_FORM}
<main><section class=orders-v2><div class=grid role=presentation></div></section></main><p id=opened></p>""",
    [*ORDERS, "2007", "1005"],
    """(id) => {
  const row = document.createElement("div");
  row.className = "grid-row";
  row.innerHTML = `<div class=cell><span class=wrap><a href="#" class=link-order>Order ${id}</a></span>` +
    `</div><div class="cell num">10.50</div>`;
  return [document.querySelector(".grid"), row];
}""",
)


async def test_an_input_chosen_link_is_found_on_a_restructured_table_by_its_role(
    tmp_path: Path, skillreel_home: Path, record_server: LocalServer
) -> None:
    steps = [
        {"do": "type", "selector": "#q", "text": "1003"},
        {"do": "click", "selector": "#go"},
        {"do": "click", "selector": "#results tr:nth-child(1) a"},
        {"do": "wait", "selector": "#opened:not(:empty)"},
        {**OPENED, "as": "order", "pattern": "order ([0-9]+)"},
    ]
    automation = tmp_path / "orders.json"
    automation.write_text(json.dumps({"steps": steps}))
    url = record_server.url("/orders")
    record_server.set_page("/orders", ORDER_TABLE)
    with Store.open(skillreel_home) as store:
        await record_skill(store, RecordRequest(name="open-order", url=url, automation=automation))
        review_skill(store, "open-order", "alice", approve=True, expected_revision=1)
        record_server.set_page("/orders", ORDER_GRID)  # the next version of the page
        for q in ("1007", "2007"):
            outcome = await replay_skill(
                store, ReplayRequest(name="open-order", inputs={"q": q}, url=url, timeout_ms=5_000)
            )
            assert outcome.error is None, (q, outcome.error)
            assert outcome.outputs == {"order": int(q)}
            assert outcome.report is not None
            assert outcome.report.healed  # found by its role: the table is gone
        for q, code in (
            ("1005", AMBIGUOUS),  # two orders 1005 in the grid
            ("4242", NOT_FOUND),
            ("007", NOT_FOUND),  # only a part of "Order 10071"
        ):
            outcome = await replay_skill(
                store, ReplayRequest(name="open-order", inputs={"q": q}, url=url, timeout_ms=2_000)
            )
            assert outcome.error is not None
            assert outcome.error.code == code, (q, outcome.error)
            assert not outcome.steps[-1].side_effects


async def test_a_bare_id_or_number_is_never_a_links_identity() -> None:
    html = page_html(
        """<a id=x1 href="/users/2">2</a> <a href="/o/1007">#1007</a> <button>INV-1007</button>
<a href="/uuid">3f2a9c1e-77aa-4b1c-9d00-1a2b3c4d5e6f</a>
<a href="/orders/1007">Order 1007</a> <button>Save</button> <button>Q3 report</button>"""
    )
    selectors = {
        "two": "a[href='/users/2']",
        "hash": "a[href='/o/1007']",
        "invoice": "button:nth-of-type(1)",
        "uuid": "a[href='/uuid']",
        "order": "a[href='/orders/1007']",
        "save": "button:nth-of-type(2)",
        "report": "button:nth-of-type(3)",
    }
    bundles = await describe_on(html_environment(html), selectors, html=html)
    strategies = {key: {c.strategy for c in bundle.candidates} for key, bundle in bundles.items()}
    for bare in ("two", "hash", "invoice", "uuid"):
        assert "role-name" not in strategies[bare], bare
        assert bundles[bare].fingerprint.name_hash is not None  # still a feature for healing
    for named in ("order", "save", "report"):
        assert "role-name" in strategies[named], named
    assert "href" in strategies["two"]  # its destination, ids normalised, still identifies it


TEAMS = [[2, "Alice Smith", "Sales"], [5, "Bob Jones", "Ops"], [7, "Cara Diaz", "Legal"]]
# Every member listed; a team chosen in a <select> (its values are never "typed text" the recorder
# chooses by), then the "⋮" of the row showing that team: only a reviewer can say the row was
# chosen by the team.
TEAM_LIST = page_html(
    """
<label>Team <select id=team name=team><option value=sales>Sales</option><option value=ops>Ops</option>
<option value=legal>Legal</option></select></label>
<table class=users><tbody></tbody></table>
<p id=opened></p>
<script>
const body = document.querySelector("table.users tbody");
function menuFor(id, button) {
  document.querySelectorAll(".menu-paper").forEach((m) => m.remove());
  const paper = document.createElement("div");
  paper.className = "menu-paper";
  paper.innerHTML = '<ul role=menu><li role=menuitem tabindex=-1>Edit</li></ul>';
  paper.querySelector("[role=menuitem]").addEventListener("click", () => {
    document.querySelector("#opened").textContent = "Editing user " + id;
    paper.remove();
  });
  document.body.appendChild(paper);
}
for (const [id, name, team] of TEAMS) {
  const tr = document.createElement("tr");
  tr.innerHTML = `<td>${id}</td><td>${name}</td><td>${team}</td>` +
    `<td><button type=button class=more aria-label="Row actions">⋮</button></td>`;
  tr.querySelector("button.more").addEventListener("click", (e) => menuFor(id, e.currentTarget));
  body.appendChild(tr);
}
</script>
""".replace("TEAMS", json.dumps(TEAMS))
)
BY_TEAM: list[dict[str, Any]] = [
    {"do": "select", "selector": "#team", "value": "ops"},
    {"do": "click", "selector": "table.users tr:nth-child(2) button.more"},
    {"do": "click", "selector": ".menu-paper [role=menuitem]"},
    {"do": "wait", "selector": "#opened:not(:empty)"},
    OPENED,
]


async def _replays_by_team(store: Store, name: str, page: Path) -> None:
    for team, user in (("legal", 7), ("sales", 2), ("ops", 5)):
        outcome = await replay_skill(
            store, ReplayRequest(name=name, inputs={"team": team}, html_path=page, timeout_ms=5_000)
        )
        assert outcome.error is None, (team, outcome.error)
        assert outcome.outputs == {"user": user}


async def test_a_reviewed_edit_binds_a_click_to_an_input_over_rows_like_its_row(
    tmp_path: Path, skillreel_home: Path
) -> None:
    with Store.open(skillreel_home) as store:
        page = await _record(store, tmp_path, "edit-member", TEAM_LIST, BY_TEAM)
        bind = {"op": "bind-target", "step": "a3", "by": "team", "over": "rows"}
        patch = EditPatch.parse({"schema": "skillreel.edit/v1", "edits": [bind]})
        edit_skill(store, "edit-member", patch, expected_revision=2)
        review_skill(store, "edit-member", "alice", approve=True, expected_revision=3)
        await _replays_by_team(store, "edit-member", page)


async def test_the_automation_by_form_binds_a_click_to_an_input_while_recording(
    tmp_path: Path, skillreel_home: Path
) -> None:
    steps = [dict(step) for step in BY_TEAM]
    steps[1]["by"] = "team"
    with Store.open(skillreel_home) as store:
        page = await _record(store, tmp_path, "bound-member", TEAM_LIST, steps)
        await _replays_by_team(store, "bound-member", page)
        steps[1]["by"] = "nobody"  # no field made that input: the recording fails, naming the step
        automation = tmp_path / "unknown.json"
        automation.write_text(json.dumps({"steps": steps}))
        with pytest.raises(InputError) as caught:
            await record_skill(store, RecordRequest(name="unknown-by", html_path=page, automation=automation))
        assert caught.value.code == "SR_RECORD_AUTOMATION_FAILED"
        assert "automation step 2" in str(caught.value)


# Cards in a div grid (no table, no list roles), each with an icon-font "more" button (the
# ligature text in an aria-hidden <i>, a title) opening a menu inside the card.
CARDS = page_html(
    """
<form id=search action="javascript:void 0"><input id=q name=q><button id=go type=submit>Find</button></form>
<div class=grid></div>
<p id=opened></p>
<script>
const users = USERS;
document.querySelector("#search").addEventListener("submit", () => {
  const q = document.querySelector("#q").value.toLowerCase();
  const grid = document.querySelector(".grid");
  grid.textContent = "";
  for (const [id, name] of users.filter(([, n]) => n.toLowerCase().includes(q))) {
    const card = document.createElement("div");
    card.className = "card";
    card.innerHTML = `<div class=card-title>${name}</div><div class=card-meta>#${id}</div>` +
      `<div class=card-actions><button type=button class=btn-icon title="More">` +
      `<i class=material-icons aria-hidden=true>more_vert</i></button></div>`;
    card.querySelector(".btn-icon").addEventListener("click", () => {
      if (card.querySelector(".card-menu")) return;
      const menu = document.createElement("div");
      menu.className = "card-menu";
      menu.innerHTML = "<button type=button>Archive</button>";
      menu.querySelector("button").addEventListener("click", () => {
        document.querySelector("#opened").textContent = "Archived user " + id;
      });
      card.appendChild(menu);
    });
    grid.appendChild(card);
  }
});
</script>
""".replace("USERS", json.dumps(USERS))
)


async def test_a_card_chosen_by_a_typed_name_through_its_icon_button_and_its_menu(
    tmp_path: Path, skillreel_home: Path
) -> None:
    steps = [
        *SEARCH,
        {"do": "click", "selector": ".card:nth-child(1) .btn-icon"},
        {"do": "click", "selector": ".card:nth-child(1) .card-menu button"},
        {"do": "wait", "selector": "#opened:not(:empty)"},
        OPENED,
    ]
    with Store.open(skillreel_home) as store:
        page = await _record(store, tmp_path, "archive-user", CARDS, steps)
        for q, user in (("Jones", 5), ("Smith", 2)):
            outcome = await replay_skill(
                store, ReplayRequest(name="archive-user", inputs={"q": q}, html_path=page, timeout_ms=5_000)
            )
            assert outcome.error is None, (q, outcome.error)
            assert outcome.outputs == {"user": user}
        outcome = await replay_skill(
            store, ReplayRequest(name="archive-user", inputs={"q": "Bob"}, html_path=page, timeout_ms=2_000)
        )
        assert outcome.error is not None
        assert outcome.error.code == AMBIGUOUS
        assert outcome.error.action_id == "a4"
        draft = store.get("archive-user").draft
        clicks = draft.actions[3:5]  # the icon button and the menu item, both of the card
        assert all(isinstance(a, ClickAction) and a.target.row is not None for a in clicks)


async def test_a_row_left_alone_by_the_filter_is_still_chosen_by_the_input(
    tmp_path: Path, skillreel_home: Path
) -> None:
    steps = [{**BY_ID_LINK[0], "text": "Marley"}, *BY_ID_LINK[1:]]  # one row: Bob Marley (6)
    with Store.open(skillreel_home) as store:
        page = await _record(store, tmp_path, "open-alone", USER_LIST, steps)
        for q, user in (("Jones", 5), ("Marley", 6)):  # "Jones": Ann Jonesy's row first, then Bob's
            outcome = await replay_skill(
                store, ReplayRequest(name="open-alone", inputs={"q": q}, html_path=page, timeout_ms=5_000)
            )
            assert outcome.error is None, (q, outcome.error)
            assert outcome.outputs == {"user": user}
