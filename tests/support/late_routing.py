"""Fault injection for settling tests: Playwright's report of a page's request comes too late.

Playwright reports a request once the browser process has paused it for routing, which under load
can come after the page has answered the measurement that followed the action (CI: a confirm
dialog's ``fetch`` was seen after the replay had ended). ``unreported(monkeypatch, path)`` makes
that lateness total and deterministic for the requests to ``path``: the replay driver's
:class:`~skillreel.replay.settling.PageActivity` never hears of them from Playwright (its request,
response, finished and failed events are dropped), while the request itself still goes through
routing and the enforcing proxy to the server as always. What settling then knows of such a
request, it knows from the renderer (``PageActivity.watch``).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.async_api import Request, Response

import skillreel.replay.driver
from skillreel.replay.settling import PageActivity


def unreported_activity(path: str) -> type[PageActivity]:
    """A PageActivity that never hears of a request to ``path`` from Playwright."""

    def reported(request: Request) -> bool:
        return urlsplit(request.url).path != path

    class Unreported(PageActivity):
        def _on_request(self, request: Request) -> None:
            if reported(request):
                super()._on_request(request)

        def _on_response(self, response: Response) -> None:
            if reported(response.request):
                super()._on_response(response)

        def _on_done(self, request: Request) -> None:
            if reported(request):
                super()._on_done(request)

    return Unreported


def unreported(monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    """Every replay driver created from now on (in this process) never hears of a request to
    ``path`` from Playwright."""
    monkeypatch.setattr(skillreel.replay.driver, "PageActivity", unreported_activity(path))
