"""The scripted page switches and downloads of a demonstration (``--automation``; issue 32.3,
32.4), performed with trusted input and recorded like a person's:

* ``{"do": "page", "to": "popup"}``: the following steps act on the newest popup a page opened
  since the previous switch to a popup (waited for until the step's timeout); the recorder records
  a ``page`` step before the first event there (``record.project``);
* ``{"do": "page", "to": "main"}``: back to the first page; with ``"close": true`` the popup is
  closed first (recorded as ``to: "main", close: true``);
* ``{"do": "click", "selector": S, "download": NAME}``: the click must start a download, recorded
  as a ``download`` step kept as the output NAME (the recording context saves nothing).

On a popup only clicks, typing, selects, key presses and page switches are performed: the marks
(extract, wait on a selector, scroll, dialog, absent) resolve on the first page, so they are
refused there rather than recorded against the wrong page.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Final, Literal, Protocol

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from ..model.base import Document
from .actionability import step_failed

POLL_S: Final = 0.05


class PageStep(Document):
    do: Literal["page"]
    to: Literal["popup", "main"]
    close: bool = False


class Downloads(Protocol):
    """What a scripted download needs of the recorder."""

    download_names: list[str]

    async def settle(self) -> None: ...

    @property
    def events(self) -> tuple[Any, ...]: ...


class Pages:
    """The pages of one scripted demonstration: the first, and the popups already switched to."""

    def __init__(self, main: Page) -> None:
        self.main = main
        self._seen: list[Page] = []

    def _popups(self) -> list[Page]:
        return [p for p in self.main.context.pages if p is not self.main and p not in self._seen]

    async def switch(self, current: Page, step: PageStep, n: int, timeout_ms: int) -> Page:
        """The page the next steps act on."""
        if step.close and step.to != "main":
            raise step_failed(n, "page", "only a switch to main closes the popup")
        if step.to == "main":
            if step.close and current is not self.main:
                await current.close()
            return self.main
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_ms / 1000
        while not (fresh := self._popups()):
            if loop.time() >= deadline:
                raise step_failed(n, "page", "no popup opened")
            await asyncio.sleep(POLL_S)
        self._seen.extend(fresh)
        popup = fresh[-1]
        try:
            await popup.wait_for_load_state("load", timeout=max(1, int((deadline - loop.time()) * 1000)))
        except PlaywrightError as exc:
            raise step_failed(n, "page", "the popup did not load") from exc
        return popup


def refused_on_popup(n: int, do: str) -> Exception:
    return step_failed(n, do, "only click, type, select, press and page steps act on a popup")


async def download_click(
    page: Page, name: str, n: int, timeout_ms: int, marks: Downloads, click: Callable[[], Awaitable[None]]
) -> None:
    """Click (``click``) with the download armed; the click must start one, and the recorder
    must have kept it as a download named ``name``."""
    marks.download_names.append(name)
    try:
        async with page.expect_download(timeout=timeout_ms):
            await click()
    except PlaywrightTimeoutError as exc:
        marks.download_names.clear()
        raise step_failed(n, "click", "the click started no download") from exc
    await marks.settle()
    marks.download_names.clear()
    if not any(getattr(e, "type", None) == "download" and e.output == name for e in marks.events):
        raise step_failed(
            n, "click", "the download was not recorded (no click of the page came right before)"
        )
