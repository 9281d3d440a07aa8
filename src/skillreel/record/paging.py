"""What a recording keeps of pages and downloads (issue 32.3, 32.4): the recorder already captures
every page the context opens (each its own index, ``RecordedEvent.page``); this module adds the
two things a page's own events do not say. A download the page started makes the page's last click
a ``download`` event (the automation's ``"download"`` name, else ``download``, ``download_2``...;
a download that follows no click is a step a person does). A popup that closed is a ``close``
event. Both go through the recorder's queue, so they are logged after everything the page reported
before them. The recording context accepts no download: nothing is saved while recording.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.async_api import Page

from .capture import CaptureLog

# What the recorder's queue runs in order: a function of nothing.
Enqueue = Callable[[Callable[[], None]], None]


def watch(page: Page, index: int, enqueue: Enqueue, log: CaptureLog, names: list[str]) -> None:
    """Listen to ``page`` (the recorder's page ``index``) for downloads and, a popup, its close.
    ``names``: the output names an automation asked for, taken in order by the next downloads."""

    def downloaded() -> None:
        if not log.downloaded(index, names.pop(0) if names else None):
            log.append_event("human", reason="other", page=index)

    def closed() -> None:
        log.append_event("close", page=index)

    page.on("download", lambda _download: enqueue(downloaded))
    if index:
        page.on("close", lambda _page: enqueue(closed))


def noted(item: Any) -> bool:
    """Run ``item`` when it is one of this module's queued functions (True), else leave it."""
    if callable(item):
        item()
        return True
    return False
