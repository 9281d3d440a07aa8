"""No click is dropped or misplaced (issue 28, point 2): a click on a readonly field, a combobox or
its label is a click step on the control; a click that lands on <body> or a backdrop opened on
mousedown is the pointer-down element's; a label click is its control's; a click into a field no
edit follows is a step after all. Trusted mouse input in real Chromium, on pages reproducing the
component libraries' patterns (clicks_pages.py)."""

from __future__ import annotations

import pytest

from skillreel.model.events import RecordedEvent
from tests.integration.record.clicks_pages import (
    ANT_SELECT,
    DATE,
    FORM,
    MOUSEDOWN_MENU,
    MUI_SELECT,
    MUI_TEXT,
    QUASAR,
)
from tests.integration.record.rig import Rig, Run, click_centre, page_html

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


def shape(events: list[RecordedEvent]) -> list[tuple[str, str | None, str | None]]:
    """Each event as (kind, target tag, target role)."""
    return [
        (
            e.type,
            e.target.fingerprint.tag if e.target else None,
            e.target.fingerprint.role if e.target else None,
        )
        for e in events
    ]


async def designates(run: Run, event: RecordedEvent, selector: str) -> bool:
    """The event's first CSS-like candidate (an id or css one) finds exactly the element `selector` names."""
    assert event.target is not None
    for candidate in event.target.candidates:
        if candidate.strategy in ("id", "css", "testid", "name", "attr"):
            return bool(
                await run.page.evaluate(
                    "([c, s]) => { const f = document.querySelectorAll(c);"
                    " return f.length === 1 && f[0] === document.querySelector(s); }",
                    [candidate.selector, selector],
                )
            )
    return False


# (page, what is clicked, the control the click is recorded on, its tag, the option, what it shows)
POPUPS = {
    # Quasar-like: a click on the <label> around a readonly role=combobox input
    "label-of-readonly-combobox": (QUASAR, "#prio-field", "#f_7c1e9a", "input", 3, ("#prio-shown", "High")),
    # MUI-like: opened on mousedown behind a backdrop, the click event lands on <body>
    # Ant Design-like: a click on the shown value drawn over the combobox input of its wrapper
    "face-of-a-select-over-its-combobox": (
        ANT_SELECT,
        "#ant-shown",
        "#rc_select_0",
        "input",
        3,
        ("#ant-shown", "Tom"),
    ),
    "opened-on-mousedown-behind-a-backdrop": (
        MUI_SELECT,
        "#age-select",
        "#age-select",
        "div",
        2,
        ("#age-shown", "Twenty"),
    ),
}


@pytest.mark.parametrize("case", sorted(POPUPS))
async def test_the_click_that_opens_a_popup_acts_on_its_combobox(rig: Rig, case: str) -> None:
    page, clicked, control, tag, option, (shows, name) = POPUPS[case]
    async with rig.recording(page) as run:
        await click_centre(run.page, clicked)
        await run.page.wait_for_selector("[role=listbox]")
        await click_centre(run.page, f"[role=option]:nth-child({option})")
        shown = await run.page.text_content(shows)
        events = await run.events()
        assert await designates(run, events[0], control)
    assert shown == name
    # the opening click and the option chosen are one choose step on the combobox (record/picker.js)
    assert shape(events) == [("choose", tag, "combobox")]


async def test_a_backdrop_click_that_closes_a_menu_stays_a_click_on_it(rig: Rig) -> None:
    async with rig.recording(MUI_SELECT) as run:
        await click_centre(run.page, "#age-select")
        await run.page.wait_for_selector("[role=option]")
        await run.page.mouse.click(5, 5)  # pressed and released on the backdrop itself
        await run.page.wait_for_selector(".menu-layer", state="detached")
        events = await run.events()
    assert shape(events) == [("click", "div", "combobox"), ("click", "div", None)]
    assert events[1].target is not None
    assert events[1].target.fingerprint.tag != "body"


async def test_a_readonly_date_input_that_opens_a_picker_is_a_click(rig: Rig) -> None:
    async with rig.recording(DATE) as run:
        await click_centre(run.page, "#due")
        await click_centre(run.page, "#picker button:nth-child(14)")
        value = await run.page.input_value("#due")
        events = await run.events()
        assert await designates(run, events[0], "#due")
    assert value == "2026-12-14"
    assert shape(events) == [("click", "input", "textbox"), ("click", "button", "button")]


async def test_a_floating_label_clicked_then_typed_into_is_one_type_step(rig: Rig) -> None:
    async with rig.recording(MUI_TEXT) as run:
        await click_centre(run.page, "#name-label")  # no for=: its form control focuses the input
        await run.page.keyboard.type("Ann Lee")
        await click_centre(run.page, "[id=':r3:-label']")  # for= a generated id
        await run.page.keyboard.type("ann@example.com")
        events = await run.events()
    assert shape(events) == [("input", "input", "textbox"), ("input", "input", "textbox")]


async def test_a_floating_label_clicked_without_typing_is_a_click_on_its_input(rig: Rig) -> None:
    async with rig.recording(MUI_TEXT) as run:
        await click_centre(run.page, "[id=':r3:-label']")
        await click_centre(run.page, "#save")
        events = await run.events()
    assert shape(events) == [("click", "input", "textbox"), ("click", "button", "button")]
    assert events[0].target is not None
    assert events[0].target.fingerprint.type == "email"


async def test_a_click_into_a_field_then_typing_is_only_the_type_step(rig: Rig) -> None:
    async with rig.recording(FORM) as run:
        await click_centre(run.page, "#city")
        await run.page.keyboard.type("Lyon")
        await click_centre(run.page, "#email-label")
        await run.page.keyboard.type("a@example.com")
        await click_centre(run.page, "#go")
        events = await run.events()
    assert [e.type for e in events] == ["input", "input", "click"]


@pytest.mark.parametrize(
    ("then", "expected"),
    [
        ("click", ["click", "click"]),  # the next event
        ("tab", ["click", "press"]),  # a press
        ("end", ["click"]),  # the end of the recording
        ("blur", ["click"]),  # focus-out
    ],
)
async def test_a_click_into_a_field_no_edit_follows_is_a_click(
    rig: Rig, then: str, expected: list[str]
) -> None:
    async with rig.recording(FORM) as run:
        await click_centre(run.page, "#city")
        if then == "click":
            await click_centre(run.page, "#go")
        elif then == "tab":
            await run.page.keyboard.press("Tab")
        elif then == "blur":
            await run.page.evaluate("document.activeElement.blur()")
        events = await run.events()
        assert await designates(run, events[0], "#city")
    assert [e.type for e in events] == expected
    assert events[0].target is not None
    assert events[0].target.fingerprint.tag == "input"


async def test_a_click_into_a_field_before_a_navigation_is_kept(rig: Rig) -> None:
    async with rig.recording(FORM) as run:
        await click_centre(run.page, "#city")
        await run.page.goto(rig.server.url(rig.serve(FORM)))  # as from the address bar
        events = await run.events()
    assert [e.type for e in events] == ["click", "navigate"]


async def test_an_edit_before_an_address_bar_navigation_is_kept(rig: Rig) -> None:
    async with rig.recording(FORM) as run:
        await click_centre(run.page, "#city")
        await run.page.keyboard.type("Lyon")
        await run.page.goto(rig.server.url(rig.serve(FORM)))
        events = await run.events()
    assert [e.type for e in events] == ["input", "navigate"]


async def test_an_item_that_acts_on_mousedown_and_leaves_the_page_is_a_click(rig: Rig) -> None:
    async with rig.recording(MOUSEDOWN_MENU) as run:
        await click_centre(run.page, "#more")
        await click_centre(run.page, "[role=menuitem]:nth-child(2)")  # no click event: it is gone
        done = await run.page.text_content("#done")
        await click_centre(run.page, "#done")
        events = await run.events()
    assert done == "Delete"
    assert shape(events) == [("click", "button", "button"), ("click", "li", "menuitem"), ("click", "p", None)]


LABELLED = page_html("""
<div style="padding:40px;position:relative">
  <label id=status-label style="position:absolute;left:44px;top:46px;z-index:1">Status</label>
  <div id=status role=combobox tabindex=0 aria-haspopup=listbox aria-labelledby=status-label
    style="margin-top:2px;width:200px;height:28px;border:1px solid #999"
    onclick="this.dataset.opened = (+this.dataset.opened || 0) + 1"></div>
  <label id=side-label style="display:block;margin-top:24px">Owner</label>
  <div id=owner role=combobox tabindex=0 aria-haspopup=listbox aria-labelledby=side-label
    style="width:200px;height:28px;border:1px solid #999"></div>
</div>
""")


async def test_a_label_over_a_custom_control_is_its_control_and_one_beside_it_stays_the_label(
    rig: Rig,
) -> None:
    async with rig.recording(LABELLED) as run:
        await click_centre(run.page, "#status-label")  # drawn over the combobox it names
        await click_centre(run.page, "#side-label")  # beside the one it names: no click reached it
        events = await run.events()
    assert shape(events) == [("click", "div", "combobox"), ("click", "label", None)]


PEOPLE = page_html("""
<form action="javascript:void 0" style="padding:40px"><input id=q name=q></form>
<div id=people>
  <label class=person><input type=radio name=who value=1> Bob Stone</label>
  <label class=person><input type=radio name=who value=2> Alice Smith</label>
  <label class=person><input type=radio name=who value=3> Carol Jones</label>
</div>
""")


async def test_a_label_that_shows_a_typed_value_still_chooses_by_it(rig: Rig) -> None:
    async with rig.recording(PEOPLE) as run:
        await click_centre(run.page, "#q")
        await run.page.keyboard.type("Alice Smith")
        await click_centre(run.page, "#people label:nth-child(2)")
        checked = await run.page.is_checked("input[value='2']")
        events = await run.events()
    assert checked
    assert [e.type for e in events] == ["input", "click"]
    assert events[1].chosen_by is not None  # the label of the row showing the input, as before


async def test_text_beside_a_combobox_in_a_larger_block_is_not_taken_for_it(rig: Rig) -> None:
    async with rig.recording(ANT_SELECT) as run:
        await click_centre(run.page, ".card")
        events = await run.events()
    assert shape(events) == [("click", "p", None)]
