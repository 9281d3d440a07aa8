"""A person's hover (issue 32.1): the pointer rests on a menu that opens on hover (a CSS ``:hover``
rule, a ``mouseenter`` handler) and the next click acts inside what it showed: a ``hover`` step
before the click. A hover that showed nothing the click used is no step."""

from __future__ import annotations

import pytest

from skillreel.record.project import plan
from tests.integration.record.rig import Rig, click_centre
from tests.support.hover_pages import CSS_MENU, JS_MENU

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

OTHER = "<button id=other onclick=\"done('other')\">Other</button>"
MENUS = {"css-hover": (CSS_MENU, "#account", "#refund"), "js-mouseenter": (JS_MENU, "#tools", "#export")}


async def _rest_on(rig_page: object, selector: str) -> None:
    page = rig_page
    box = await page.locator(selector).bounding_box()  # type: ignore[attr-defined]
    assert box is not None
    await page.mouse.move(box["x"] + 5, box["y"] + 5, steps=4)  # type: ignore[attr-defined]
    await page.wait_for_timeout(150)  # type: ignore[attr-defined]


@pytest.mark.parametrize("menu", sorted(MENUS))
async def test_a_hover_that_opens_the_menu_clicked_is_a_step(rig: Rig, menu: str) -> None:
    html, trigger, item = MENUS[menu]
    async with rig.recording(html) as run:
        await _rest_on(run.page, trigger)
        await click_centre(run.page, item)
        capture = await run.capture()
    actions = plan(capture.events.events).actions
    assert [a.kind for a in actions] == ["navigate", "hover", "click"]


@pytest.mark.parametrize("menu", sorted(MENUS))
async def test_a_hover_whose_menu_the_click_does_not_use_is_no_step(rig: Rig, menu: str) -> None:
    html, trigger, _ = MENUS[menu]
    async with rig.recording(
        html.replace("<body>", "<body>" + OTHER)
    ) as run:  # above: the menu moves nothing
        await _rest_on(run.page, trigger)
        await click_centre(run.page, "#other")
        capture = await run.capture()
    assert [a.kind for a in plan(capture.events.events).actions] == ["navigate", "click"]


# A single-page app's first paint: the pointer rests on the page itself (no element under it but
# the body) while the app adds its button. The body "showed" the button only as it holds everything.
LATE_APP = """<!doctype html><html><head><style>html,body{margin:0;height:100%}</style></head><body>
<p id=done></p><script>function done(t){document.getElementById('done').textContent=t;}
setTimeout(() => {
  const b = document.createElement("button"); b.id = "late"; b.textContent = "Ship";
  b.style.margin = "200px"; b.onclick = () => done("late"); document.body.append(b);
}, 300);</script></body></html>"""


async def test_a_pointer_resting_on_the_page_itself_while_it_renders_is_no_hover(rig: Rig) -> None:
    """On main of this change (found by the Streamlit corpus task), the body became the hover's
    element: its description has no selector, the event was refused and the recording failed."""
    async with rig.recording(LATE_APP) as run:
        await run.page.mouse.move(20, 20, steps=2)  # on the body, as the app renders
        await run.page.mouse.move(30, 30, steps=2)
        await run.page.locator("#late").wait_for()
        await click_centre(run.page, "#late")
        capture = await run.capture()
    assert [a.kind for a in plan(capture.events.events).actions] == ["navigate", "click"]
