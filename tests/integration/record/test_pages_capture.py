"""A person's popups and download, captured in real Chromium (issue 32.3, 32.4): the steps on a
tab a ``target=_blank`` link opened and on a ``window.open`` window are recorded on that page, the
popup's close is recorded, and a click that downloads becomes a ``download`` event (the recording
context of ``skillreel record`` accepts no download: see
``tests/integration/replay/test_popups_downloads.py``)."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from skillreel.record.project import plan
from tests.integration.record.rig import Rig, Run, click_centre, page_html

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

DESK = page_html(
    """
<a id=help href="/pages-help" target=_blank>Open help</a>
<button id=report onclick="window.open('/pages-help', 'report', 'width=500,height=400')">Open report</button>
<button id=note>Note</button>
<a id=receipt href="/pages-receipt">Download receipt</a>
"""
)
HELP = page_html("<button id=ok>OK</button>")


async def ok_in_popup(run: Run, opener: str) -> Page:
    """Click ``opener`` on the first page, then OK on the popup it opens (as a person would)."""
    async with run.context.expect_page() as opened:
        await click_centre(run.page, opener)
    popup = await opened.value
    await popup.wait_for_load_state("load")
    await run.recorder.settle()
    await click_centre(popup, "#ok")
    await run.recorder.flush()
    return popup


async def test_a_persons_popups_and_download_are_recorded_on_their_pages(rig: Rig) -> None:
    rig.server.set_page("/pages-help", HELP)
    rig.server.set_route(
        "/pages-receipt",
        body=b"receipt",
        headers={"Content-Type": "text/plain", "Content-Disposition": "attachment; filename=r.txt"},
    )
    async with rig.recording(DESK) as run:
        tab = await ok_in_popup(run, "#help")
        await tab.close()
        await click_centre(run.page, "#note")
        await ok_in_popup(run, "#report")
        async with run.page.expect_download() as downloading:
            await click_centre(run.page, "#receipt")
        await (await downloading.value).cancel()
        events = await run.events()
    assert [(e.type, e.page) for e in events] == [
        ("click", 0),
        ("click", 1),
        ("close", 1),
        ("click", 0),
        ("click", 0),
        ("click", 2),
        ("download", 0),
    ]
    assert events[-1].output == "download"
    steps = plan(events)
    assert [a.to_json().get("to", a.kind) for a in steps.actions] == [
        "click",
        "popup",
        "click",
        "main",
        "click",
        "click",
        "popup",
        "click",
        "main",
        "download",
    ]
