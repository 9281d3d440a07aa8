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


# A sign-in that renders the app's view under the pointer that clicked it, in two passes (a shell,
# then its menu), as a single-page app does: the browser sends the pointer's boundary events for
# the new elements although it never moved.
SIGNED_IN = """<!doctype html><html><body><main id=app>
<button id=login style="margin:40px;padding:40px">Login</button></main>
<p id=done></p><script>function done(t){document.getElementById('done').textContent=t;}
document.getElementById("login").onclick = () => {
  const app = document.getElementById("app");
  app.innerHTML = '<div id=shell style="padding:10px;min-height:400px"></div>';
  setTimeout(() => {
    document.getElementById("shell").innerHTML = '<ul><li><a href="#/a" onclick="done(1)">Orders</a></li>'
      + '<li><a href="#/t" id=tickets onclick="done(2)">Tickets</a></li></ul>';
  }, 150);
};</script></body></html>"""


async def test_a_view_rendered_under_a_still_pointer_after_a_click_is_no_hover(rig: Rig) -> None:
    """Found by the Piccolo Admin corpus tasks: the shell the sign-in rendered under the pointer
    became a hover step before the next click (its menu had appeared "while the pointer rested"),
    and the replay failed closed on the redesign, where that container was not there."""
    async with rig.recording(SIGNED_IN) as run:
        await click_centre(run.page, "#login")
        await run.page.locator("#tickets").wait_for()
        await run.page.wait_for_timeout(200)
        await click_centre(run.page, "#tickets")
        capture = await run.capture()
    assert [a.kind for a in plan(capture.events.events).actions] == ["navigate", "click", "click"]
