"""The rig for capture tests: one Chromium (through skillreel's launcher) per module, a fresh context
and recorder per recording, pages from a loopback server, and trusted input as a person gives it.
The fixtures that build it are in this folder's conftest.py."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, Page

from skillreel.model.events import RecordedEvent
from skillreel.record.capture import Capture
from skillreel.record.recorder import Recorder
from tests.support.factory import SALT
from tests.support.server import LocalServer


def scripted(folder: Path, html: str, steps: list[dict[str, Any]]) -> tuple[Path, Path]:
    """The HTML fixture ``html`` and the automation file of ``steps``, written into ``folder``."""
    page, automation = folder / "page.html", folder / "automation.json"
    page.write_text(html)
    automation.write_text(json.dumps({"steps": steps}))
    return page, automation


def page_html(body: str, head: str = "") -> str:
    return f"<!doctype html><html><head><meta charset=utf-8>{head}</head><body>{body}</body></html>"


@dataclass
class Run:
    """One recording in progress: the page, its context, the recorder."""

    page: Page
    context: BrowserContext
    recorder: Recorder
    url: str

    async def capture(self) -> Capture:
        await self.recorder.flush()
        return self.recorder.finish()

    async def events(self) -> list[RecordedEvent]:
        """Everything captured after the start navigation."""
        return list((await self.capture()).events.events[1:])

    async def kinds(self) -> list[str]:
        return [e.type for e in await self.events()]


@dataclass
class Rig:
    browser: Browser
    server: LocalServer
    counter: Iterator[int] = field(default_factory=itertools.count)

    def serve(self, html: str) -> str:
        path = f"/p{next(self.counter)}"
        self.server.set_page(path, html)
        return path

    @asynccontextmanager
    async def recording(
        self, html: str, *, query: str = "", indicator: bool = False, **context_options: Any
    ) -> AsyncIterator[Run]:
        """``indicator``: draw the recording badge, as a person's headed recording does."""
        path = self.serve(html)
        context = await self.browser.new_context(**context_options)
        try:
            page = await context.new_page()
            recorder = Recorder(context, salt=SALT, indicator=indicator)
            await recorder.start(page)
            url = self.server.url(path) + query
            async with recorder.starting(url):
                await page.goto(url)
            try:
                yield Run(page, context, recorder, url)
            finally:
                await recorder.close()
        finally:
            await context.close()


async def click_centre(page: Page, selector: str) -> None:
    """A trusted click at the centre of the element (as the scripted demonstration does)."""
    box = await page.locator(selector).bounding_box()
    assert box is not None
    await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


async def type_into(page: Page, selector: str, text: str) -> None:
    await click_centre(page, selector)
    await page.keyboard.type(text)
