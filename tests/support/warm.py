"""One Chromium per pytest worker for in-process replays whose subject is not the browser launch.

Launching Chromium (and Playwright's Node.js process) costs seconds of CPU on a loaded 2-core machine,
and most replay tests test the engine, healing, settling, the store's bookkeeping, not the
launch. Such a test asks for the ``sessions`` fixture (tests/conftest.py) and passes it to
``replay_skill(..., session_factory=sessions)``: every replay then gets a fresh isolated browser
context behind its own fresh enforcing proxy in the worker's one Chromium -- the product's own
:class:`~skillreel.sandbox.warm.WarmBrowser`, exactly as the MCP server and a batch play -- and
shares nothing with another test but the browser process.

What this leaves to the tests that do not use it (and there are many: every ``skillreel``
subprocess, tests/integration/sandbox/, the crash and lifecycle tests): the cold path
(``sandbox.cold.browser_session``: one Chromium launched through the session's proxy).

A debugging replay (headed, slow motion, a trace) still gets a browser of its own, as
:meth:`WarmBrowser.session` gives a headed one: the warm browser is headless and launched without
those options. A test asking for ``sessions`` runs on the worker's session event loop (the
browser's objects belong to the loop that started them; tests/conftest.py marks such tests).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from skillreel.model.environment import Environment
from skillreel.model.login import LoginState
from skillreel.sandbox.cold import browser_session
from skillreel.sandbox.context import BrowserSession
from skillreel.sandbox.warm import WarmBrowser
from skillreel.store.db import ENV_HOME
from tests.support.factory import html_environment


class WarmSessions:
    """A ``session_factory`` (``services.replaying``) over one :class:`WarmBrowser`."""

    def __init__(self, warm: WarmBrowser) -> None:
        self.warm = warm

    @asynccontextmanager
    async def __call__(
        self,
        environment: Environment,
        *,
        html: str | None = None,
        storage_state: Path | LoginState | None = None,
        headless: bool = True,
        **launch: Any,
    ) -> AsyncIterator[BrowserSession]:
        if launch:  # slow motion or a trace: options of a launch, so a browser of its own
            async with browser_session(
                environment, html=html, storage_state=storage_state, headless=headless, **launch
            ) as cold:
                yield cold
            return
        async with self.warm.session(
            environment, html=html, storage_state=storage_state, headless=headless
        ) as session:
            yield session

    async def start(self) -> None:
        """Launch the browser now, outside any test's ``SKILLREEL_HOME`` (tests that look for the
        Chromium of their home never find this one), as tests/support/describe.py does."""
        home = os.environ.pop(ENV_HOME, None)
        try:
            blank = "<!doctype html><p>warm</p>"
            async with self.warm.session(html_environment(blank), html=blank):
                pass
        finally:
            if home is not None:
                os.environ[ENV_HOME] = home
