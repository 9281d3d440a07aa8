"""Capture inside open shadow roots and same-origin frames; what the recorder cannot see (a closed
shadow root) is a `human` step and a typed value is never silently dropped."""

from __future__ import annotations

import pytest

from skillreel.record.project import plan
from tests.integration.record.rig import Rig, click_centre, page_html

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

SHADOW = page_html("""
<main>
  <search-box id=finder></search-box>
  <locked-box id=vault></locked-box>
  <button id=after>after</button>
</main>
<script>
customElements.define("search-box", class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({mode: "open"}).innerHTML =
      '<label for=q>Query</label><input id=q name=q><button id=go type=button>Find</button>';
  }
});
customElements.define("locked-box", class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({mode: "closed"}).innerHTML =
      '<input id=secret name=secret style="width:200px"><button id=in type=button>Inside</button>';
  }
});
</script>
""")

FRAMED = page_html("""
<main><iframe id=editor srcdoc="<label for=t>Title</label><input id=t name=title><button id=ok>Store</button>"
  style="width:400px;height:120px"></iframe><button id=after>after</button></main>
""")


async def test_typing_and_clicking_inside_an_open_shadow_root(rig: Rig) -> None:
    async with rig.recording(SHADOW) as run:
        await click_centre(run.page, "search-box #q")
        await run.page.keyboard.type("open sesame")
        await click_centre(run.page, "search-box #go")
        capture = await run.capture()
    events = capture.events.events[1:]
    assert [e.type for e in events] == ["input", "click"]
    typed, clicked = events
    assert capture.typed.values() == ("open sesame",)
    assert typed.value_digest is None  # no salted digest beside its salt (issue 11 item 7)
    assert typed.field is not None
    assert typed.field.param_hint == "q"
    assert typed.target is not None
    assert typed.target.fingerprint.boundaries == 1
    assert typed.target.fingerprint.tag == "input"
    assert [(c.strategy, c.selector) for c in typed.target.candidates][:2] == [
        ("id", "#finder >>> #q"),
        ("name", '#finder >>> input[name="q"]'),
    ]
    assert all(c.selector.startswith("#finder >>> ") for c in typed.target.candidates)
    assert clicked.target is not None
    assert clicked.target.fingerprint.tag == "button"
    assert all(c.match_count == 1 for c in clicked.target.candidates)
    actions = plan(capture.events.events).actions
    assert [a.kind for a in actions] == ["navigate", "type", "click"]


async def test_typing_into_a_closed_shadow_root_is_a_human_step_never_dropped(rig: Rig) -> None:
    async with rig.recording(SHADOW) as run:
        await click_centre(run.page, "#vault")
        await run.page.keyboard.type("CanaryClosed1")
        await click_centre(run.page, "#after")
        capture = await run.capture()
    actions = plan(capture.events.events).actions
    assert [a.kind for a in actions] == ["navigate", "human", "click"]
    assert actions[1].reason == "closed-shadow"  # type: ignore[union-attr]
    assert "canaryclosed1" not in capture.events.model_dump_json().lower()
    assert capture.typed.values() == ()


async def test_same_origin_frame_is_captured_through_its_frame_element(rig: Rig) -> None:
    async with rig.recording(FRAMED) as run:
        frame = run.page.frame_locator("#editor")
        box = await frame.locator("#t").bounding_box()
        assert box is not None
        await run.page.mouse.click(box["x"] + 5, box["y"] + 5)
        await run.page.keyboard.type("Framed title")
        button = await frame.locator("#ok").bounding_box()
        assert button is not None
        await run.page.mouse.click(button["x"] + 5, button["y"] + 5)
        await click_centre(run.page, "#after")
        capture = await run.capture()
    events = capture.events.events[1:]
    assert [e.type for e in events] == ["input", "click", "click"]
    assert capture.typed.values() == ("framed title",)
    typed = events[0]
    assert typed.target is not None
    assert typed.target.fingerprint.boundaries == 1
    assert typed.target.candidates[0].selector == "#editor >>> #t"
    assert events[1].target is not None
    assert events[1].target.candidates[0].selector == "#editor >>> #ok"
    assert "human" not in [e.type for e in events]
