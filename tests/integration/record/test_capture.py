"""Each action kind is captured from trusted input, once per user action."""

from __future__ import annotations

import pytest

from skillreel.record.project import plan
from tests.integration.record.rig import Rig, click_centre, page_html, type_into

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

FORM = page_html("""
<form id=f action="javascript:void 0">
  <label for=email>Email</label><input id=email name=email>
  <textarea id=notes name=notes></textarea>
  <select id=country name=country><option value=fr>France</option><option value=de>Germany</option>
    <option value=it disabled>Italy</option><option value=es>Spain</option></select>
  <label id=agree-label><input type=checkbox id=agree name=agree> I agree</label>
  <button id=go type=submit><span id=go-text>Send</span></button>
</form>
<div id=card onclick="this.dataset.n = 1"><p id=card-text>Card text</p></div>
<div id=plain>Plain</div>
""")


async def test_click_is_retargeted_to_its_interactive_ancestor(rig: Rig) -> None:
    async with rig.recording(FORM) as run:
        await click_centre(run.page, "#go-text")
        await click_centre(run.page, "#card-text")
        await click_centre(run.page, "#plain")
        events = await run.events()
    assert [e.type for e in events] == ["click", "click", "click"]
    assert [e.target.fingerprint.tag for e in events if e.target] == ["button", "div", "div"]
    assert events[0].target is not None
    assert events[0].target.candidates[0].selector == "#go"
    assert events[1].target is not None
    assert events[1].target.candidates[0].selector == "#card"


async def test_one_type_event_per_field_edit_and_no_trace_of_its_value(rig: Rig) -> None:
    async with rig.recording(FORM) as run:
        await type_into(run.page, "#email", "alice@example.com")
        await type_into(run.page, "#notes", "line one")
        await run.page.keyboard.press("Enter")  # a newline in a textarea is typing, not a press
        await run.page.keyboard.type("line two")
        capture = await run.capture()
    events = capture.events.events[1:]
    assert [e.type for e in events] == ["input", "input"]
    email, notes = events
    assert email.field is not None
    assert email.field.param_hint == "email"
    assert email.field.control == "email" or email.field.control == "text"
    assert email.value_digest is None  # a salted digest beside its salt gives a short value away
    assert notes.field is not None
    assert notes.field.control == "textarea"
    assert notes.value_digest is None
    assert len(capture.typed) == 2


async def test_select_by_keyboard_is_captured_and_select_option_is_not(rig: Rig) -> None:
    async with rig.recording(FORM) as run:
        await run.page.select_option("#country", "fr")  # untrusted events: not captured, by design
        await run.page.focus("#country")
        await run.page.keyboard.press("ArrowDown")  # fr -> de
        await run.page.keyboard.press("ArrowDown")  # de -> es (it is disabled)
        await click_centre(run.page, "#plain")
        events = await run.events()
    assert [e.type for e in events] == ["select", "select", "click"]
    assert events[1].value_digest is None
    assert events[1].field is not None
    assert events[1].field.control == "select"
    actions = plan(events).actions  # one choice: the last one counts
    assert [a.kind for a in actions] == ["select", "click"]


async def test_enter_tab_escape_are_presses_and_enter_does_not_also_click(rig: Rig) -> None:
    async with rig.recording(FORM) as run:
        await type_into(run.page, "#email", "bob@example.com")
        await run.page.keyboard.press("Enter")  # implicit submission clicks #go (trusted)
        await run.page.keyboard.press("Tab")
        await run.page.keyboard.press("Escape")
        await run.page.keyboard.press("a")  # Tab moved focus to the textarea
        await run.page.keyboard.press("Shift+Tab")  # no modified presses in the vocabulary
        events = await run.events()
    assert [(e.type, e.key or e.reason) for e in events] == [
        ("input", None),
        ("press", "Enter"),
        ("press", "Tab"),
        ("press", "Escape"),
        ("input", None),
        ("human", "other"),
    ]
    assert events[1].target is not None
    assert events[1].target.candidates[0].selector == "#email"


async def test_a_label_click_is_one_click_on_its_control(rig: Rig) -> None:
    async with rig.recording(FORM) as run:
        box = await run.page.locator("#agree-label").bounding_box()
        assert box is not None
        await run.page.mouse.click(box["x"] + box["width"] - 5, box["y"] + box["height"] / 2)
        checked = await run.page.is_checked("#agree")
        events = await run.events()
    assert checked
    assert [e.type for e in events] == ["click"]
    assert events[0].target is not None
    assert events[0].target.fingerprint.tag == "input"  # the control's locator, not the label's
    assert events[0].target.candidates[0].selector == "#agree"


async def test_clicking_into_a_field_is_not_a_step_and_edits_flush_at_the_end(rig: Rig) -> None:
    async with rig.recording(FORM) as run:
        await click_centre(run.page, "#email")
        await run.page.keyboard.type("x1")
        assert await run.kinds() == ["input"]
