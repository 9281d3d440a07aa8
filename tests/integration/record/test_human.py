"""What cannot be replayed safely becomes a `human` step: cross-origin frames, rich text, uploads,
drags. (Same-origin frames and shadow roots are captured: test_scopes.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from skillreel.model.actions import HumanAction
from skillreel.record.project import plan
from tests.integration.record.rig import Rig, click_centre, page_html
from tests.support.narrow import narrow

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

PAGE = page_html("""
<iframe id=frame sandbox="allow-scripts allow-forms"
        srcdoc="<input id=inner name=inner><button id=ib>in frame</button>"
        style="width:300px;height:80px"></iframe>
<div id=card role=button tabindex=0 aria-label="Note card" onclick="this.dataset.opened = 1">
  <h3>Note</h3><div id=editor contenteditable=true style="min-height:30px;border:1px solid"></div>
</div>
<label id=up-label for=up>Attach</label><input type=file id=up name=up>
<div id=drag draggable=true style="width:60px;height:30px;background:#ccc">drag me</div>
<div id=drop style="width:120px;height:60px;margin-top:40px;background:#eee"
     ondragover="event.preventDefault()">drop here</div>
<button id=after>after</button>
""")


async def test_cross_origin_frame_interactions_are_one_human_step(rig: Rig) -> None:
    """A sandboxed frame has an opaque origin: nothing in it can be described from the top."""
    async with rig.recording(PAGE) as run:
        frame = run.page.frame_locator("#frame")
        box = await frame.locator("#inner").bounding_box()
        assert box is not None
        await run.page.mouse.click(box["x"] + 5, box["y"] + 5)
        await run.page.keyboard.type("in the frame")
        await run.page.keyboard.press("Enter")
        await click_centre(run.page, "#after")
        capture = await run.capture()
    events = capture.events.events[1:]
    assert {e.reason for e in events if e.type == "human"} == {"iframe"}
    assert "input" not in [e.type for e in events]
    assert capture.typed.values() == ()
    assert [a.kind for a in plan(capture.events.events).actions] == ["navigate", "human", "click"]


async def test_rich_text_inside_a_clickable_card_is_a_human_step(rig: Rig) -> None:
    async with rig.recording(PAGE) as run:
        await click_centre(run.page, "#editor")
        await run.page.keyboard.type("CanaryRich9")
        await click_centre(run.page, "#after")
        capture = await run.capture()
    actions = plan(capture.events.events).actions
    assert [a.kind for a in actions] == ["navigate", "human", "click"]
    assert narrow(HumanAction, actions[1]).reason == "rich-text"
    assert "canaryrich9" not in capture.events.model_dump_json().lower()
    assert capture.typed.values() == ()


async def test_file_upload_is_a_human_step(rig: Rig) -> None:
    async with rig.recording(PAGE) as run:
        async with run.page.expect_file_chooser():
            await click_centre(run.page, "#up-label")
        events = await run.events()
    assert [(e.type, e.reason) for e in events][:1] == [("human", "upload")]
    assert {e.reason for e in events} == {"upload"}


async def test_drag_is_a_human_step(rig: Rig) -> None:
    async with rig.recording(PAGE) as run:
        await run.page.drag_and_drop("#drag", "#drop")
        events = await run.events()
    assert ("human", "drag") in [(e.type, e.reason) for e in events]
    assert "click" not in [e.type for e in events]


async def test_one_file_chosen_in_the_file_chooser_is_an_upload_step(rig: Rig, tmp_path: Path) -> None:
    """A person's file chooser (issue 32.2): the click that opened it and the file chosen are one
    ``upload`` step with a ``file`` input; nothing of the file (its name, its content) is kept."""
    chosen = tmp_path / "canary-invoice-77.pdf"
    chosen.write_bytes(b"CanaryFileBody42")
    async with rig.recording(PAGE) as run:
        async with run.page.expect_file_chooser() as info:
            await click_centre(run.page, "#up-label")
        await (await info.value).set_files(chosen)
        await click_centre(run.page, "#after")
        capture = await run.capture()
    result = plan(capture.events.events)
    assert [a.kind for a in result.actions] == ["navigate", "upload", "click"]
    assert [(p.name, p.type) for p in result.parameters] == [("up", "file")]
    kept = capture.events.model_dump_json().lower()
    assert "canary" not in kept
    assert "invoice" not in kept
