"""Address-bar navigations and reloads are recorded; navigations the page made are not."""

from __future__ import annotations

import pytest

from tests.integration.record.rig import Rig, click_centre, page_html

pytestmark = [pytest.mark.browser]


LINKS = page_html("""
<a id=next href="/next-page">next</a>
<button id=script onclick="location.href = '/scripted'">script</button>
<button id=again onclick="location.reload()">again</button>
<a id=popup href="/popup-page" target=_blank>popup</a>
""")


@pytest.mark.asyncio(loop_scope="module")
async def test_address_bar_reload_and_back_are_navigations(rig: Rig) -> None:
    other = rig.serve(page_html("<p id=o>other</p>"))
    async with rig.recording(LINKS) as run:
        tokens = "?code=CanaryCode1&keep=1&state=open&token=t#access_token=CanaryTok2"
        await run.page.goto(rig.server.url(other) + tokens)
        await run.page.reload()
        await run.page.go_back()
        events = await run.events()
    assert [(e.type, e.reason) for e in events] == [
        ("navigate", "address-bar"),
        ("navigate", "reload"),
        ("navigate", "address-bar"),
    ]
    # a secret-shaped code, a credential key and the fragment go; the business key state=open stays
    assert events[0].url == rig.server.url(other) + "?keep=1&state=open"
    assert events[1].url == events[0].url
    assert events[2].url == run.url


@pytest.mark.asyncio(loop_scope="module")
async def test_navigations_the_page_makes_are_not_recorded(rig: Rig) -> None:
    rig.server.set_page("/next-page", page_html('<button id=b onclick="history.back()">back</button>'))
    rig.server.set_page("/scripted", page_html("<p>scripted</p>"))
    async with rig.recording(LINKS) as run:
        async with run.page.expect_navigation():
            await click_centre(run.page, "#next")
        await run.page.go_back()
        async with run.page.expect_navigation():
            await click_centre(run.page, "#again")
        async with run.page.expect_navigation():
            await click_centre(run.page, "#script")
        await run.page.wait_for_url("**/scripted")
        events = await run.events()
    assert [(e.type, e.reason) for e in events] == [
        ("click", None),
        ("navigate", "address-bar"),
        ("click", None),
        ("click", None),
    ]


@pytest.mark.asyncio(loop_scope="module")
async def test_events_in_a_popup_carry_its_page_number(rig: Rig) -> None:
    rig.server.set_page("/popup-page", page_html("<button id=in-popup>in popup</button>"))
    async with rig.recording(LINKS) as run:
        async with run.context.expect_page() as waiting:
            await click_centre(run.page, "#popup")
        popup = await waiting.value
        await popup.wait_for_load_state()
        await run.recorder.settle()
        await click_centre(popup, "#in-popup")
        events = await run.events()
    assert [(e.type, e.page) for e in events] == [("click", 0), ("click", 1)]
