"""Pickers that keep several choices (issue 28: multi-select chips), recorded by a scripted
demonstration and replayed in real Chromium on faithful pages (tests/integration/record/
multi_pickers.py: MUI Select ``multiple`` behind a backdrop, MUI Autocomplete ``multiple`` with
chips and keyboard choices): each choice in a list that stays open is its own ``choose`` step on the
same combobox; replay opens the list when it is closed, picks, checks the option is selected or shown
as a chip, and leaves the list closed as it found it, on the recorded page and on its next version;
a renamed option fails closed with nothing chosen. What closed the list (a backdrop click, Escape)
is no step: the record result lists it as dropped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillreel.model.actions import ChooseAction
from skillreel.store import Store
from tests.integration.record.multi_pickers import MULTI_SELECTORS, multi_page
from tests.support.narrow import narrow
from tests.support.record_replay import logged, record_and_replay, record_result, replay
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def store(skillreel_home: Path) -> Any:
    with Store.open() as opened:
        yield opened


def inputs(names: list[str], *values: str) -> dict[str, str]:
    return dict(zip(names, values, strict=True))


def chose(server: LocalServer) -> list[str]:
    return [q["chose"][0] for q in logged(server) if "chose" in q]


async def test_each_choice_of_a_list_left_open_is_a_choose_step_on_its_combobox(
    server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    """MUI Select multiple: the backdrop click that closes the list is dropped, listed with its reason."""
    steps: list[dict[str, Any]] = [
        {"do": "select", "selector": MULTI_SELECTORS["mui-multi"], "label": ["Low", "High"]},
        {"do": "click", "selector": "[class$=Backdrop]"},
    ]
    result = await record_result(server, store, tmp_path, multi_page("mui-multi"), steps, "tags")
    actions = result.entry.draft.actions
    assert [a.kind for a in actions] == ["navigate", "choose", "choose"]
    first, second = (narrow(ChooseAction, a).target for a in actions[1:])
    assert first.fingerprint == second.fingerprint  # the same combobox
    assert [d.reason for d in result.dropped] == ["picker-closed"]
    assert chose(server) == ["Low", "High"]
    names = [p.name for p in result.entry.draft.parameters]
    assert len(names) == 2
    for changed in (False, True):
        server.set_page("/form", multi_page("mui-multi", changed=changed))
        outcome = await replay(server, store, sessions, "tags", inputs(names, "Medium", "Low"), 8_000)
        assert outcome.error is None, outcome.error.to_json()
        # each step opened the list, chose, and closed it again
        assert logged(server) == [
            {"chose": ["Medium"]},
            {"closed": ["1"]},
            {"chose": ["Low"]},
            {"closed": ["1"]},
        ]


async def test_a_chosen_option_is_not_clicked_out_and_a_renamed_one_fails_closed(
    server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    """Choosing High twice leaves it chosen (a multi-select's option is not clicked out); on the next
    version, whose Medium is now Mid, the step choosing Medium fails closed with nothing chosen."""
    steps = [{"do": "select", "selector": MULTI_SELECTORS["mui-multi"], "label": ["Low", "Medium"]}]
    versions = [
        (multi_page("mui-multi"), {"tags": "High", "tags_2": "High"}),
        (multi_page("mui-multi", ("Low", "Mid", "High"), changed=True), {"tags": "Low", "tags_2": "Medium"}),
    ]
    draft, [(twice, twice_log), (renamed, renamed_log)] = await record_and_replay(
        server,
        store,
        tmp_path,
        sessions,
        page=multi_page("mui-multi"),
        steps=steps,
        versions=versions,
        name="tags",
    )
    assert [p.name for p in draft.parameters] == ["tags", "tags_2"]
    assert twice.error is None, twice.error.to_json()
    assert [q for q in twice_log if "closed" not in q] == [{"chose": ["High"]}]  # never "removed"
    assert renamed.error is not None
    assert (renamed.error.code, renamed.error.action_id) == ("SR_REPLAY_UI_OPTION_NOT_FOUND", "a3")
    assert [q for q in renamed_log if "closed" not in q] == [
        {"chose": ["Low"]}
    ]  # nothing for the renamed one


async def test_choices_made_with_arrow_keys_and_enter_are_choose_steps_by_name(
    server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    """MUI Autocomplete multiple: ArrowDown/Enter on the open combobox records the option's name
    (never the keys); the chips' remove buttons and the Save button are clicks."""
    box = MULTI_SELECTORS["autocomplete-multi"]
    steps = [
        {"do": "click", "selector": box},
        {"do": "press", "key": "ArrowDown"},
        {"do": "press", "key": "ArrowDown"},
        {"do": "press", "key": "Enter"},
        {"do": "press", "key": "ArrowDown"},
        {"do": "press", "key": "Enter"},
        {"do": "click", "selector": "#save"},
    ]
    result = await record_result(server, store, tmp_path, multi_page("autocomplete-multi"), steps, "langs")
    assert chose(server) == ["Medium", "High"]
    draft = result.entry.draft
    assert [a.kind for a in draft.actions] == ["navigate", "choose", "choose", "click"]
    names = [p.name for p in draft.parameters]
    for changed, wanted in ((False, ("High", "Low")), (True, ("Low", "Medium"))):
        server.set_page("/form", multi_page("autocomplete-multi", changed=changed))
        outcome = await replay(server, store, sessions, "langs", inputs(names, *wanted), 8_000)
        assert outcome.error is None, outcome.error.to_json()
        assert chose(server) == list(wanted)


async def test_a_select_by_label_of_the_option_already_chosen_is_a_warning(
    server: LocalServer, store: Store, tmp_path: Path
) -> None:
    """record/automation.py's "already chosen" check honours ``label`` as it does ``value``."""
    page = (
        "<!doctype html><html><body><label for=p>Priority</label><select id=p>"
        "<option value=l>Low</option><option value=h selected>High</option></select>"
        "<button type=button id=go>Go</button></body></html>"
    )
    steps = [{"do": "select", "selector": "#p", "label": "High"}, {"do": "click", "selector": "#go"}]
    result = await record_result(server, store, tmp_path, page, steps, "prio")
    assert (
        "automation step 1 (select): its option was already selected; nothing was recorded" in result.warnings
    )
