"""Page scripts can neither see the recorder nor forge its input."""

from __future__ import annotations

import json

import pytest

from skillreel.errors import RecordError
from skillreel.record.recorder import BINDING
from tests.integration.record.rig import Rig, page_html

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

FORGER = page_html("""
<form id=f action="javascript:void 0"><input id=q name=q><select id=s name=s><option value=a>A</option>
<option value=b>B</option></select><button id=go>Go</button></form>
<a id=link href="#x">link</a><div id=ed contenteditable=true>edit</div>
<input type=file id=up>
<script>
  window.__skillreelRecorderEmit = (payload) => { window.forged = payload; };
  window.SkillreelRecorder = {configure() {}, flush() {}};
  function forge() {
    const q = document.getElementById('q');
    document.getElementById('go').click();
    document.getElementById('link').click();
    q.value = 'forged value';
    q.dispatchEvent(new Event('input', {bubbles: true}));
    q.dispatchEvent(new Event('change', {bubbles: true}));
    q.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
    q.dispatchEvent(new FocusEvent('focusout', {bubbles: true}));
    document.getElementById('s').value = 'b';
    document.getElementById('s').dispatchEvent(new Event('change', {bubbles: true}));
    document.getElementById('go').dispatchEvent(new MouseEvent('click', {bubbles: true, detail: 1}));
    document.getElementById('ed').dispatchEvent(new InputEvent('input', {bubbles: true}));
    document.getElementById('up').dispatchEvent(new Event('change', {bubbles: true}));
    document.getElementById('go').dispatchEvent(new DragEvent('dragstart', {bubbles: true}));
    window.__skillreelRecorderEmit(JSON.stringify({v: 1, type: 'click', target: null}));
    document.getElementById('f').requestSubmit();
    return 'done';
  }
</script>
""")


async def test_the_main_world_sees_no_recorder(rig: Rig) -> None:
    async with rig.recording(page_html("<p>hi</p>")) as run:
        seen = await run.page.evaluate(
            "[typeof SkillreelRecorder, typeof SkillreelLocate, typeof window['__skillreelRecorderEmit']]"
        )
        assert seen == ["undefined", "undefined", "undefined"]
        assert await run.events() == []


async def test_synthetic_events_and_a_fake_binding_record_nothing(rig: Rig) -> None:
    async with rig.recording(FORGER) as run:
        assert await run.page.evaluate("forge()") == "done"
        assert await run.page.evaluate("window.forged") is not None  # the page only called itself
        await run.page.evaluate("document.getElementById('q').blur()")
        assert await run.events() == []


async def test_playwright_dispatch_event_is_untrusted_and_ignored(rig: Rig) -> None:
    async with rig.recording(FORGER) as run:
        await run.page.dispatch_event("#go", "click")
        await run.page.dispatch_event("#q", "keydown", {"key": "Enter"})
        await run.page.select_option("#s", "b")
        assert await run.events() == []


async def test_payloads_are_validated_before_they_count(rig: Rig) -> None:
    async with rig.recording(page_html("<p>hi</p>")) as run:
        await run.recorder.settle()
        tap = run.recorder._taps[0]
        world = tap.top_world()
        assert world is not None
        # A payload from another context (not the recorder's world) is ignored.
        run.recorder._on_binding(tap, {"name": BINDING, "executionContextId": -5, "payload": "{}"})
        assert run.recorder.events[1:] == ()
        # A password value, or an unknown key, fails the recording (and is never kept).
        bad = {
            "v": 1,
            "type": "input",
            "value": "hunter2secret",
            "target": {
                "candidates": [{"strategy": "css", "selector": "input", "matchCount": 1}],
                "fingerprint": {"tag": "input"},
            },
            "field": {"control": "password", "paramHint": "pw", "sensitive": True},
        }
        call = {"name": BINDING, "executionContextId": world, "payload": json.dumps(bad)}
        run.recorder._on_binding(tap, call)
        with pytest.raises(RecordError) as info:
            await run.capture()
    assert info.value.code == "SR_RECORD_CAPTURE_FAILED"
    assert "hunter2" not in str(info.value)
