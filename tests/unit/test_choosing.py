"""The ``choose`` step (an option of a popup picker, by its accessible name) without a browser: the
pure decision, the engine over the FakeDriver, and how the step reads in intents and SKILL.md."""

from __future__ import annotations

import pytest

from skillreel.agent_skills.skill_md import _step_line
from skillreel.errors import ReplayUIError
from skillreel.model.actions import ChooseAction, NavigateAction, capability_manifest
from skillreel.model.events import FieldInfo, RecordedEvent
from skillreel.model.intents import generated_intent
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate
from skillreel.model.refs import ParameterRef
from skillreel.record.project import plan
from skillreel.record.redact import TypedValues, scrub_options
from skillreel.replay.engine import EngineOptions, ReplayEngine
from skillreel.replay.fake import FakeDriver, FakeElement, FakePage
from skillreel.replay.steps.choosing import option_index, option_name
from tests.support.clock import Clock
from tests.support.factory import SALT

URL = "https://app.test/form"
PICKER = Fingerprint(tag="div", role="combobox", parent_path=("form", "body", "html"))
TARGET = LocatorBundle(
    candidates=(LocatorCandidate(strategy="css", selector="#priority", match_count=1),), fingerprint=PICKER
)


def test_the_one_option_of_that_name_as_people_read_it() -> None:
    names = ["Low", "Medium", "High", "High  priority"]
    assert option_index(names, "High") == 2
    assert option_index(names, " High\n priority ") == 3  # white space collapsed
    assert option_index(names, "high") == "none"  # case as shown
    assert option_index(names, "Hig") == "none"  # never a near name
    assert option_index(["A", "B", "A"], "A") == "many"
    assert option_name("  Twenty\t One ") == "Twenty One"


def step() -> list[NavigateAction | ChooseAction]:
    return [
        NavigateAction(id="a1", url=URL),
        ChooseAction(id="a2", target=TARGET, value=ParameterRef(name="priority")),
    ]


def run(labels: tuple[str, ...]) -> tuple[FakeDriver, FakeElement, ReplayEngine]:
    """A page with one picker whose list shows ``labels`` (none: no list opens)."""
    element = FakeElement(PICKER, {"#priority"}, labels=labels)
    driver = FakeDriver({URL: FakePage(URL, [element])}, start_url=URL)
    engine = ReplayEngine(driver, EngineOptions(salt=SALT, timeout_ms=1000, settle_ms=0), clock=Clock())
    return driver, element, engine


async def test_a_choose_step_opens_the_picker_and_picks_the_option() -> None:
    driver, element, engine = run(("Low", "Medium", "High"))
    records = await engine.run(step(), {"priority": "Medium"})
    assert element.value == "Medium"
    assert driver.actions[1:] == [("open", 0), ("choose", 0)]
    assert {"target", "chosenCheck", "afterState"} <= set(records[1].evidence.facts)
    assert "Medium" not in str(records[1].evidence.to_json())


@pytest.mark.parametrize(
    ("labels", "code"),
    [
        (("Low", "High"), "SR_REPLAY_UI_OPTION_NOT_FOUND"),
        (("Medium", "Medium"), "SR_REPLAY_UI_OPTION_AMBIGUOUS"),
        ((), "SR_REPLAY_UI_OPTION_NOT_FOUND"),  # no list opened
    ],
)
async def test_none_or_several_options_fail_closed_and_close_the_list(
    labels: tuple[str, ...], code: str
) -> None:
    driver, element, engine = run(labels)
    with pytest.raises(ReplayUIError) as info:
        await engine.run(step(), {"priority": "Medium"})
    assert info.value.code == code
    assert "Medium" not in info.value.message
    assert element.value == ""  # nothing chosen
    assert driver.actions[1:] == [("open", 0), ("close", 0)]


def test_the_step_reads_as_a_choice_everywhere() -> None:
    action = step()[1]
    assert capability_manifest([action]) == ("ui.interact",)
    assert generated_intent(action) == (
        "open the picker `#priority` and choose the option named by the input `priority`"
    )
    assert (
        _step_line(2, action) == "2. `a2` choose: choose the option named by parameter `priority` in a picker"
    )


# ---- recording: the choose event and its projection ------------------------------------------------


def choose_event(seq: int, names: tuple[str, ...] | None) -> RecordedEvent:
    field = FieldInfo(control="select", param_hint="priority", sensitive=False)
    return RecordedEvent(seq=seq, type="choose", target=TARGET, field=field, options=names)


def test_a_choose_event_becomes_a_choose_step_with_an_enum_of_the_names() -> None:
    start = RecordedEvent(seq=0, type="navigate", url=URL, reason="start")
    steps = plan([start, choose_event(1, ("Low", "High"))])
    assert [a.kind for a in steps.actions] == ["navigate", "choose"]
    (parameter,) = steps.parameters
    assert (parameter.name, parameter.type, parameter.values) == ("priority", "enum", ("Low", "High"))
    free = plan([start, choose_event(1, None)])  # a list searched or loading lazily: any name
    assert (free.parameters[0].type, free.parameters[0].values) == (None, None)  # untyped: a string
    twice = plan([start, choose_event(1, ("Low",)), choose_event(2, ("Low", "High"))])  # the last one
    assert [a.kind for a in twice.actions] == ["navigate", "choose"]


def test_choices_in_a_list_left_open_are_a_step_each() -> None:
    """A multi-select (control ``multiselect``): each choice is its own choose step and parameter."""
    start = RecordedEvent(seq=0, type="navigate", url=URL, reason="start")
    field = FieldInfo(control="multiselect", param_hint="priority", sensitive=False)
    first = RecordedEvent(seq=1, type="choose", target=TARGET, field=field, options=("Low", "High"))
    steps = plan([start, first, first.model_copy(update={"seq": 2})])
    assert [a.kind for a in steps.actions] == ["navigate", "choose", "choose"]
    assert [p.name for p in steps.parameters] == ["priority", "priority_2"]


def test_only_a_select_or_a_choose_lists_options() -> None:
    with pytest.raises(ValueError, match="only a select or a choose lists its options"):
        RecordedEvent(seq=1, type="click", target=TARGET, options=("Low",))


def test_option_names_that_echo_a_typed_value_make_no_enum() -> None:
    typed = TypedValues(["Hunter-Secret-9"])
    assert scrub_options(("Low", "Hunter-Secret-9"), typed) is None
    assert scrub_options(("Low", "High"), typed) == ("Low", "High")


async def test_a_picker_that_does_not_show_the_choice_fails_closed() -> None:
    driver, _element, engine = run(("Low", "Medium"))

    async def not_shown(index: int, name: str, *, timeout_ms: int) -> bool:
        return False

    driver.pick_option = not_shown  # type: ignore[method-assign]
    with pytest.raises(ReplayUIError) as info:
        await engine.run(step(), {"priority": "Medium"})
    assert info.value.code == "SR_REPLAY_UI_OPTION_NOT_SHOWN"
    assert "Medium" not in info.value.message
