"""Popup pickers (issue 28, point 1), recorded by a scripted demonstration and replayed in real
Chromium, on faithful pickers (tests/integration/record/pickers.py: Quasar-, MUI-, Headless-UI-,
Radix- and Ant-Design-like, a virtual list, a searchable autocomplete): ``{"do": "select", "label":
...}`` records ONE ``choose`` step whose parameter is an enum of the option names; replay chooses
another option, on the recorded page and on its next version (classes renamed, wrappers added); an
option the page no longer has and an option shown twice fail closed with nothing chosen and the
list closed. The server's ``/log`` requests are the page's own account of what was chosen or
closed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillreel.model.actions import ClickAction
from skillreel.store import Store
from tests.integration.record.pickers import OPTIONS, PARAMETERS, SELECTORS, baseweb_page, picker_page
from tests.support.narrow import narrow
from tests.support.record_replay import logged, record, replay
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = [pytest.mark.browser, pytest.mark.slow]

KINDS = sorted(SELECTORS)
COUNTRIES = ("Germany", "France", "Greece", "Spain")


@pytest.fixture
def store(skillreel_home: Path) -> Any:
    with Store.open() as opened:
        yield opened


async def record_picker(kind: str, server: LocalServer, store: Store, tmp_path: Path) -> None:
    steps = [{"do": "select", "selector": SELECTORS[kind], "label": "Medium"}]
    draft = await record(server, store, tmp_path, picker_page(kind), steps, "pick")
    assert [a.kind for a in draft.actions] == ["navigate", "choose"]
    (parameter,) = draft.parameters
    assert (parameter.name, parameter.type, parameter.values) == (PARAMETERS[kind], "enum", OPTIONS)
    assert logged(server) == [{"chose": ["Medium"]}]


@pytest.mark.parametrize("kind", KINDS)
async def test_a_recorded_choice_replays_with_another_option_on_two_versions(
    kind: str, server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    await record_picker(kind, server, store, tmp_path)
    for changed, name in ((False, "High"), (True, "Low")):
        server.set_page("/form", picker_page(kind, changed=changed))
        outcome = await replay(server, store, sessions, "pick", {PARAMETERS[kind]: name}, 8_000)
        assert outcome.error is None, outcome.error.to_json()
        assert logged(server) == [{"chose": [name]}]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("names", "code"),
    [
        (("Low", "High"), "SR_REPLAY_UI_OPTION_NOT_FOUND"),
        (("Low", "High", " High "), "SR_REPLAY_UI_OPTION_AMBIGUOUS"),
    ],
)
async def test_a_missing_or_doubled_option_fails_closed_with_the_list_closed(
    kind: str,
    names: tuple[str, ...],
    code: str,
    server: LocalServer,
    store: Store,
    tmp_path: Path,
    sessions: WarmSessions,
) -> None:
    await record_picker(kind, server, store, tmp_path)
    server.set_page("/form", picker_page(kind, names))
    wanted = "Medium" if code.endswith("NOT_FOUND") else "High"
    outcome = await replay(server, store, sessions, "pick", {PARAMETERS[kind]: wanted}, 6_000)
    assert outcome.error is not None
    assert outcome.error.code == code
    assert outcome.error.action_id == "a2"
    assert wanted not in json.dumps(outcome.error.to_json())
    assert logged(server) == [{"closed": ["1"]}]  # nothing chosen, the list closed


@pytest.mark.parametrize("kind", KINDS)
async def test_a_picker_opened_and_closed_without_a_choice_is_the_click_it_was(
    kind: str, server: LocalServer, store: Store, tmp_path: Path
) -> None:
    """Never dropped: the readonly combobox input inside its label (Quasar) and the picker that opens
    on mousedown under a backdrop (MUI, whose click lands on <body>) are a click on the picker."""
    steps = [{"do": "click", "selector": SELECTORS[kind]}, {"do": "press", "key": "Escape"}]
    actions = (await record(server, store, tmp_path, picker_page(kind), steps, "peek")).actions
    assert [a.kind for a in actions] == ["navigate", "click", "press"]
    clicked = narrow(ClickAction, actions[1]).target.fingerprint
    assert clicked.role == "combobox" or clicked.tag == "button"  # the picker, not <body> or nothing
    assert logged(server) == [{"closed": ["1"]}]


NATIVE = """<!doctype html><html><body><label for=r>Region</label>
<select id=r name=region><option value="">Choose</option><option value="n1">North</option>
<option value="s1">South</option></select>
<button type=button onclick="fetch('/log?region=' + document.getElementById('r').value)">Save</button>
</body></html>"""


async def test_a_native_select_is_chosen_by_its_visible_label(
    server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    steps = [{"do": "select", "selector": "#r", "label": "South"}, {"do": "click", "selector": "button"}]
    draft = await record(server, store, tmp_path, NATIVE, steps, "region")
    assert [a.kind for a in draft.actions] == ["navigate", "select", "click"]
    assert logged(server) == [{"region": ["s1"]}]
    outcome = await replay(server, store, sessions, "region", {"region": "n1"}, 6_000)
    assert outcome.error is None, outcome.error.to_json()
    assert logged(server) == [{"region": ["n1"]}]


async def test_a_searched_choice_is_one_step_whose_input_is_the_name(
    server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    """Typing "Ge" to filter, then clicking "Germany": one choose step (the typed filter is no
    parameter of its own) whose input is a free name; replay types the name to filter, then picks."""
    steps = [
        {"do": "type", "selector": "#country", "text": "Ge"},
        {"do": "click", "selector": "#country-listbox [role=option] >> text=Germany"},
    ]
    draft = await record(server, store, tmp_path, picker_page("autocomplete", COUNTRIES), steps, "country")
    assert [a.kind for a in draft.actions] == ["navigate", "choose"]
    assert [(p.name, p.type, p.values) for p in draft.parameters] == [("country", None, None)]
    assert logged(server) == [{"chose": ["Germany"]}]
    for changed, name in ((False, "France"), (True, "Greece")):
        server.set_page("/form", picker_page("autocomplete", COUNTRIES, changed=changed))
        outcome = await replay(server, store, sessions, "country", {"country": name}, 8_000)
        assert outcome.error is None, outcome.error.to_json()
        assert logged(server) == [{"chose": [name]}]


async def test_a_click_into_a_searchable_combobox_with_no_choice_is_a_focusing_click(
    server: LocalServer, store: Store, tmp_path: Path
) -> None:
    """As any text field's: no click step (what is typed there is the step)."""
    steps = [{"do": "click", "selector": "#country"}, {"do": "press", "key": "Escape"}]
    draft = await record(server, store, tmp_path, picker_page("autocomplete", COUNTRIES), steps, "peek")
    assert [a.kind for a in draft.actions] == ["navigate", "press"]
    assert logged(server) == [{"closed": ["1"]}]


async def test_a_person_clicks_the_field_around_a_quasar_combobox_then_an_option(
    server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    """The field's label text is what a person clicks (the combobox input is 1 px, invisible): one
    choose step on the combobox, replayed through that input."""
    steps = [
        {"do": "click", "selector": ".q1-field__label"},
        {"do": "click", "selector": "#prio-lb [role=option] >> text=High"},
    ]
    draft = await record(server, store, tmp_path, picker_page("quasar"), steps, "pick")
    assert [a.kind for a in draft.actions] == ["navigate", "choose"]
    assert draft.parameters[0].values == OPTIONS
    outcome = await replay(server, store, sessions, "pick", {"priority": "Low"}, 8_000)
    assert outcome.error is None, outcome.error.to_json()
    assert logged(server) == [{"chose": ["Low"]}]


async def test_a_virtual_list_makes_a_free_name_not_an_enum_of_what_it_rendered(
    server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    """40 cities, 6 rendered: the names seen are not the list, so the input is any name; a rendered
    one is chosen, one the list did not render fails closed."""
    cities = tuple(f"City {n}" for n in range(40))
    steps = [{"do": "select", "selector": "#city", "label": "City 2"}]
    draft = await record(server, store, tmp_path, picker_page("virtual", cities), steps, "city")
    assert [a.kind for a in draft.actions] == ["navigate", "choose"]
    assert [(p.name, p.type, p.values) for p in draft.parameters] == [("city", None, None)]
    for name, code in (("City 4", None), ("City 30", "SR_REPLAY_UI_OPTION_NOT_FOUND")):
        outcome = await replay(server, store, sessions, "city", {"city": name}, 5_000)
        assert (outcome.error.code if outcome.error else None) == code
        assert logged(server) == ([{"chose": [name]}] if code is None else [{"closed": ["1"]}])


STATUSES = ("Open", "Held", "Done")


def desk(priority: str | None, status: str | None = None) -> str:
    """A BaseWeb-like page (Streamlit's selectbox) with a Priority picker showing ``priority`` and,
    when given, a Status picker showing ``status``."""
    pickers = [("prio", "Priority", OPTIONS, priority)] if priority else []
    return baseweb_page(pickers + ([("status", "Status", STATUSES, status)] if status else []))


async def test_a_picker_named_by_the_option_it_shows_is_found_showing_another(
    server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    """BaseWeb names its combobox "Selected Low. Priority": recorded choosing High while it showed
    Low, replayed choosing Low while it shows Medium. The parameter is named by the label, and the
    name it showed (with its option) is nowhere in the draft."""
    steps = [{"do": "select", "selector": "#prio-input", "label": "High"}]
    draft = await record(server, store, tmp_path, desk("Low"), steps, "prio")
    assert [a.kind for a in draft.actions] == ["navigate", "choose"]
    assert [p.name for p in draft.parameters] == ["priority"]
    assert "selected" not in draft.model_dump_json().lower()
    assert logged(server) == [{"picker": ["prio"], "chose": ["High"]}]
    server.set_page("/form", desk("Medium"))
    outcome = await replay(server, store, sessions, "prio", {"priority": "Low"}, 8_000)
    assert outcome.error is None, outcome.error.to_json()
    assert logged(server) == [{"picker": ["prio"], "chose": ["Low"]}]


async def test_of_two_pickers_named_by_what_they_show_the_one_recorded_is_chosen(
    server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    """Priority and Status, each showing another option than at recording: the Status step chooses
    in Status; on a page without Status it fails closed rather than choosing in Priority."""
    steps = [{"do": "select", "selector": "#status-input", "label": "Held"}]
    draft = await record(server, store, tmp_path, desk("High", "Open"), steps, "status")
    assert [p.name for p in draft.parameters] == ["status"]
    server.set_page("/form", desk("Low", "Held"))
    outcome = await replay(server, store, sessions, "status", {"status": "Done"}, 8_000)
    assert outcome.error is None, outcome.error.to_json()
    assert logged(server) == [{"picker": ["status"], "chose": ["Done"]}]
    server.set_page("/form", desk("Medium"))
    outcome = await replay(server, store, sessions, "status", {"status": "Done"}, 5_000)
    assert outcome.error is not None
    assert outcome.error.code == "SR_REPLAY_UI_TARGET_NOT_FOUND"
    assert logged(server) == []  # nothing opened, nothing chosen


ORDERS = (("1003", "Chiara Neri"), ("1004", "Kofi Mensah"))
# Streamlit's order desk: a filter, the rows it leaves, then the picker and a button outside them
DESK_FILTER = (
    """<input aria-label="Customer filter" id="filter"><div id="orders">"""
    + "".join(f'<div class="row" data-c="{c}"><div>Order {n}</div><div>{c}</div></div>' for n, c in ORDERS)
    + """</div><button type="button" onclick="fetch('/log?saved=1')">Save priority</button>
<script>
document.getElementById("filter").addEventListener("keydown", (e) => {
  if (e.key !== "Enter") return;
  const q = e.target.value.trim().toLowerCase();
  document.querySelectorAll(".row").forEach((r) => { r.hidden = !r.dataset.c.toLowerCase().includes(q); });
});
</script>"""
)


async def test_a_button_outside_the_filtered_rows_is_no_row_chosen_by_the_filter(
    server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    """Filter by customer, choose a priority, save: the Save button is in the app's root, which
    shows the customer but is no row (its like sibling is an empty <div>): a plain click that replay
    finds for another customer."""
    page = baseweb_page([("prio", "Priority", OPTIONS, "Low")], after=DESK_FILTER)
    steps = [
        {"do": "type", "selector": "#filter", "text": "Chiara Neri"},
        {"do": "press", "key": "Enter"},
        {"do": "select", "selector": "#prio-input", "label": "High"},
        {"do": "click", "selector": "text=Save priority"},
    ]
    draft = await record(server, store, tmp_path, page, steps, "desk")
    assert [a.kind for a in draft.actions] == ["navigate", "type", "press", "choose", "click"]
    save = narrow(ClickAction, draft.actions[4]).target
    assert (save.filter, save.row) == (None, None)
    outcome = await replay(
        server, store, sessions, "desk", {"filter": "Kofi Mensah", "priority": "Medium"}, 8_000
    )
    assert outcome.error is None, outcome.error.to_json()
    assert logged(server) == [{"picker": ["prio"], "chose": ["Medium"]}, {"saved": ["1"]}]
