"""The recording indicator (issue 31.2, ``record/indicator.js``): a badge in a closed shadow root
drawn from the recorder's isolated world, put back when the page removes it, drawn again in a new
document, never taking a click; the title prefixed "● recording"; an armed mark outlines the element
under the pointer. The page's main world cannot see into the closed root: the test reads it over
CDP (``DOM.getDocument`` with ``pierce``), as DevTools does."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from playwright.async_api import Page

from tests.integration.record.rig import Rig, Run, click_centre, page_html

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

PREFIX = "\u25cf recording \u2014 "
HOST = "skillreel-recording"
PAGE = page_html(
    """
<button id=corner style="position:fixed;top:0;right:0;width:240px;height:48px"
        onclick="window.clicked = (window.clicked || 0) + 1">Corner</button>
<p id=total style="margin-top:120px">Total: <b id=amount>$12.50</b></p>
<a id=next href="/other">Next</a>
""",
    head="<title>Desk</title>",
)


def recording(rig: Rig, html: str = PAGE, *, indicator: bool = True) -> AbstractAsyncContextManager[Run]:
    """A recording with the indicator (a headed recording's option) in an 800x600 window."""
    rig.server.set_page("/other", page_html("<p>Other</p>", head="<title>Other</title>"))
    return rig.recording(html, indicator=indicator, viewport={"width": 800, "height": 600})


def _find(node: dict[str, Any], name: str) -> dict[str, Any] | None:
    if node.get("localName") == name:
        return node
    for child in (*node.get("children", ()), *node.get("shadowRoots", ())):
        found = _find(child, name)
        if found is not None:
            return found
    return None


def _text(node: dict[str, Any]) -> str:
    own = node.get("nodeValue", "") if node.get("nodeType") == 3 else ""
    return own + "".join(_text(c) for c in node.get("children", ()))


def _attrs(node: dict[str, Any]) -> dict[str, str]:
    flat = node.get("attributes", [])
    return dict(zip(flat[::2], flat[1::2], strict=True))


async def host_node(page: Page) -> dict[str, Any] | None:
    """The badge's host as CDP sees it (closed shadow roots included)."""
    cdp = await page.context.new_cdp_session(page)
    try:
        doc = await cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
    finally:
        await cdp.detach()
    return _find(doc["root"], HOST)


async def shadow_parts(page: Page) -> dict[str, dict[str, Any]]:
    """The closed root's elements by class (``badge``, ``outline``)."""
    host = await host_node(page)
    assert host is not None, "no badge in the page"
    (root,) = host["shadowRoots"]
    assert root["shadowRootType"] == "closed"
    return {
        _attrs(child).get("class", "").split()[0]: child
        for child in root.get("children", ())
        if child.get("localName") == "div"
    }


async def badge_box(page: Page) -> dict[str, float]:
    """Where the badge is drawn (CDP's box model of the closed root's badge)."""
    cdp = await page.context.new_cdp_session(page)
    try:
        doc = await cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
        host = _find(doc["root"], HOST)
        assert host is not None
        (badge,) = [c for c in host["shadowRoots"][0]["children"] if _attrs(c).get("class") == "badge"]
        model = (await cdp.send("DOM.getBoxModel", {"nodeId": badge["nodeId"]}))["model"]
    finally:
        await cdp.detach()
    quad = model["border"]
    return {"x": quad[0], "y": quad[1], "width": model["width"], "height": model["height"]}


async def badge_back(page: Page) -> None:
    await page.wait_for_function(
        """([name, prefix]) => {
          const host = document.querySelector(name);
          return host !== null && host.parentNode === document.documentElement
            && host.matches(":popover-open") && document.title.startsWith(prefix);
        }""",
        arg=[HOST, PREFIX],
        timeout=5_000,
    )


async def test_the_badge_is_in_a_closed_shadow_root_and_the_title_says_recording(rig: Rig) -> None:
    async with recording(rig) as run:
        await badge_back(run.page)
        seen = await run.page.evaluate(
            """(name) => {
              const host = document.querySelector(name);
              const style = getComputedStyle(host);
              return {root: host.shadowRoot, pointer: style.pointerEvents, z: style.zIndex,
                      title: document.title, html: host.innerHTML};
            }""",
            HOST,
        )
        assert seen == {
            "root": None,
            "pointer": "none",
            "z": "2147483647",
            "title": PREFIX + "Desk",
            "html": "",
        }
        parts = await shadow_parts(run.page)
        assert _text(parts["badge"]) == "\u25cf recording"
        assert "on" not in _attrs(parts["outline"])["class"].split()


async def test_the_page_cannot_remove_hide_or_retitle_the_badge_away(rig: Rig) -> None:
    async with recording(rig) as run:
        page = run.page
        await badge_back(page)
        for attack in (
            f"document.querySelector('{HOST}').remove()",
            "document.body.innerHTML = ''",
            f"document.querySelector('{HOST}').setAttribute('style', 'display:none')",
            f"document.querySelector('{HOST}').hidden = true",
            f"document.querySelector('{HOST}').hidePopover()",
            "document.title = 'Mine'",
        ):
            await page.evaluate(attack)
            await badge_back(page)
        # without a <head> the title cannot be set (nor prefixed); the badge still comes back
        await page.evaluate("document.documentElement.replaceChildren(document.createElement('body'))")
        await page.wait_for_function(f"document.querySelector('{HOST}')?.matches(':popover-open')")
        assert await page.evaluate(f"document.querySelectorAll('{HOST}').length") == 1
        assert await page.evaluate(f"getComputedStyle(document.querySelector('{HOST}')).display") == "block"
        assert _text((await shadow_parts(page))["badge"]) == "\u25cf recording"


@pytest.mark.parametrize("csp", [None, "default-src 'self'; style-src 'self'"], ids=["plain", "strict-csp"])
async def test_the_badge_is_drawn_top_right_even_under_a_strict_csp(rig: Rig, csp: str | None) -> None:
    meta = f'<meta http-equiv="Content-Security-Policy" content="{csp}">' if csp else ""
    async with recording(rig, PAGE.replace("<title>", meta + "<title>")) as run:
        await badge_back(run.page)
        box = await badge_box(run.page)
    assert box["x"] + box["width"] == pytest.approx(800 - 8, abs=1)  # right: 8px in an 800px viewport
    assert box["y"] == pytest.approx(8, abs=1)


async def test_a_page_that_keeps_removing_the_badge_does_not_hang(rig: Rig) -> None:
    """Its observer and ours would take turns forever in one microtask checkpoint: ours puts the
    badge back at most 30 times a second at once, then on a timer, so the page keeps running (and
    the recorder keeps recording)."""
    async with recording(rig) as run:
        await badge_back(run.page)
        await run.page.evaluate(
            f"""() => {{
              window.removals = 0;
              new MutationObserver(() => {{
                const host = document.querySelector('{HOST}');
                if (host) {{ host.remove(); window.removals += 1; }}
              }}).observe(document, {{childList: true, subtree: true}});
              document.querySelector('{HOST}').remove();
            }}"""
        )
        await run.page.wait_for_function("window.removals > 31")  # it came back past the fast repairs
        await click_centre(run.page, "#corner")
        assert await run.page.evaluate("window.clicked") == 1
        assert [e.type for e in await run.events()] == ["click"]


async def test_a_new_document_draws_the_badge_again(rig: Rig) -> None:
    async with recording(rig) as run:
        await click_centre(run.page, "#next")
        await run.page.wait_for_url("**/other")
        await badge_back(run.page)
        assert await run.page.title() == PREFIX + "Other"


async def test_a_click_on_the_badge_reaches_the_element_under_it_and_is_recorded_as_it(rig: Rig) -> None:
    async with recording(rig) as run:
        await badge_back(run.page)
        await run.page.mouse.click(800 - 40, 18)  # the badge's place: top right
        assert await run.page.evaluate("window.clicked") == 1
        events = await run.events()
    assert [e.type for e in events] == ["click"]
    target = events[0].target
    assert target is not None
    assert target.fingerprint.tag == "button"
    assert "#corner" in [c.selector for c in target.candidates]


async def test_an_armed_mark_outlines_the_element_under_the_pointer_until_it_is_done(rig: Rig) -> None:
    async with recording(rig) as run:
        page = run.page
        await badge_back(page)
        box = await page.locator("#amount").bounding_box()
        assert box is not None
        await page.mouse.move(box["x"] + 2, box["y"] + 2)
        assert "on" not in _attrs((await shadow_parts(page))["outline"])["class"].split()
        marked = await run.recorder.arm_mark(all_items=False)
        await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        parts = await shadow_parts(page)
        outline = _attrs(parts["outline"])
        assert outline["class"].split() == ["outline", "on"]
        drawn = dict(rule.split(": ") for rule in outline["style"].rstrip(";").split("; "))
        assert float(drawn["left"].removesuffix("px")) == pytest.approx(box["x"] - 2, abs=0.01)
        assert float(drawn["top"].removesuffix("px")) == pytest.approx(box["y"] - 2, abs=0.01)
        assert float(drawn["width"].removesuffix("px")) == pytest.approx(box["width"] + 4, abs=0.01)
        assert _text(parts["badge"]) == "\u25cf recording \u2014 marking: click the element"
        await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        assert (await marked).target is not None
        parts = await shadow_parts(page)
        assert "on" not in _attrs(parts["outline"])["class"].split()
        assert _text(parts["badge"]) == "\u25cf recording"


async def test_a_scripted_recording_draws_nothing(rig: Rig) -> None:
    async with recording(rig, indicator=False) as run:
        await click_centre(run.page, "#corner")
        assert await run.page.evaluate(f"document.querySelector('{HOST}')") is None
        assert await run.page.title() == "Desk"
        assert await host_node(run.page) is None
