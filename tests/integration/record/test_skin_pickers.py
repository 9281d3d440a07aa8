"""A native ``<select>`` behind a custom skin (issue 28; tests/integration/record/skin_pickers.py:
select2- and bootstrap-select-like): a choice made in the skin records ONE ``select`` step on the
hidden native select it mirrors (its input an ``enum`` of the select's option values), which replays
on the recorded page, on the skin's next version and on a redesign that swapped one skin for the
other (the native select kept); an option the select no longer has fails closed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillreel.model.actions import SelectAction
from skillreel.store import Store
from tests.integration.record.skin_pickers import SKIN_SELECTORS, skin_page
from tests.support.narrow import narrow
from tests.support.record_replay import record_and_replay
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = [pytest.mark.browser, pytest.mark.slow]

OTHER = {"select2": "bootstrap", "bootstrap": "select2"}


@pytest.fixture
def store(skillreel_home: Path) -> Any:
    with Store.open() as opened:
        yield opened


@pytest.mark.parametrize("kind", sorted(SKIN_SELECTORS))
async def test_a_choice_in_a_skin_is_a_select_of_its_native_select_and_survives_a_new_skin(
    kind: str, server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    steps = [{"do": "select", "selector": SKIN_SELECTORS[kind], "label": "Medium"}]
    versions = [
        (skin_page(kind), {"priority": "high"}),
        (skin_page(kind, changed=True), {"priority": "low"}),
        (skin_page(OTHER[kind], changed=True), {"priority": "medium"}),
    ]
    draft, replayed = await record_and_replay(
        server, store, tmp_path, sessions, page=skin_page(kind), steps=steps, versions=versions, name="prio"
    )
    assert [a.kind for a in draft.actions] == ["navigate", "select"]
    assert narrow(SelectAction, draft.actions[1]).target.fingerprint.tag == "select"
    (parameter,) = draft.parameters
    assert (parameter.name, parameter.type, parameter.values) == (
        "priority",
        "enum",
        ("", "low", "medium", "high"),
    )
    for outcome, _ in replayed:
        assert outcome.error is None, outcome.error.to_json()
    # each replay set the native select (the skin heard it); the last one on the other skin
    assert [log for _, log in replayed] == [
        [{"chose": ["high"]}],
        [{"chose": ["low"]}],
        [{"chose": ["medium"]}],
    ]


async def test_an_option_the_native_select_lost_fails_closed(
    server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    steps = [{"do": "select", "selector": SKIN_SELECTORS["select2"], "label": "Medium"}]
    versions = [(skin_page("bootstrap", ("Low", "High"), changed=True), {"priority": "medium"})]
    _, ((outcome, log),) = await record_and_replay(
        server,
        store,
        tmp_path,
        sessions,
        page=skin_page("select2"),
        steps=steps,
        versions=versions,
        name="prio",
    )
    assert outcome.error is not None
    assert outcome.error.code == "SR_REPLAY_PARAMETER_INVALID", outcome.error.to_json()  # not on the page
    assert log == []  # nothing chosen
