"""Real locator bundles for replay tests: each element described by fingerprint.js on the recorded
page version, as the recorder would describe it.

Describing is the tests' scaffolding, not the code under test, so every test of a pytest process
describes in one Chromium (skillreel's :class:`~skillreel.sandbox.warm.WarmBrowser`: a fresh
isolated context and enforcing proxy per page, as the MCP server plays). That browser lives on a
thread of its own with its own event loop, so each test's event loop can use it; it starts with
the first description (only tests marked ``browser`` describe), outside any test's
``SKILLREEL_HOME``, and ``close_describer`` (a session fixture in tests/conftest.py; at exit for a
script in bench/) stops it. A test that kills every Chromium of its process stops it first."""

from __future__ import annotations

import asyncio
import atexit
import os
import threading
from collections.abc import Coroutine, Mapping
from typing import Any, TypeVar

from skillreel.locate import locate_script
from skillreel.model.environment import Environment
from skillreel.model.locators import LocatorBundle
from skillreel.sandbox.warm import WarmBrowser
from skillreel.store.db import ENV_HOME
from tests.support.factory import SALT, html_environment, url_environment
from tests.support.server import LocalServer

# Evaluated in the recorded page: describe each selector's element with the shared fingerprint.js.
DESCRIBE = """([src, selectors, salt]) => {
  const L = (0, eval)(src + "\\n;SkillreelLocate");
  const out = {};
  for (const [key, selector] of Object.entries(selectors)) {
    const found = document.querySelectorAll(selector);
    if (found.length !== 1) throw new Error("not exactly one element for " + key);
    out[key] = L.describe(found[0], salt);
  }
  return out;
}"""

T = TypeVar("T")


class _Describer:
    """One warm Chromium on a thread with its own event loop, for every test's descriptions."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._warm: WarmBrowser | None = None

    def _started(self) -> tuple[asyncio.AbstractEventLoop, WarmBrowser]:
        with self._guard:
            if self._loop is None or self._warm is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="describer", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
                # Launched now, from the test's thread (its loop waits), outside any test's home:
                # tests that look for the Chromium of their SKILLREEL_HOME never find this one.
                home = os.environ.pop(ENV_HOME, None)
                try:
                    self._warm = self._run(self._launched())
                finally:
                    if home is not None:
                        os.environ[ENV_HOME] = home
                atexit.register(self.close)  # a script (bench/) that never closes it
            return self._loop, self._warm

    @staticmethod
    async def _launched() -> WarmBrowser:
        warm = WarmBrowser(idle_s=3600.0)  # created on the describer's loop: its lock lives there
        blank = "<!doctype html><p>describer</p>"
        async with warm.session(html_environment(blank), html=blank):
            pass
        return warm

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    async def describe(
        self, environment: Environment, selectors: Mapping[str, str], html: str | None
    ) -> dict[str, Any]:
        loop, warm = self._started()

        async def on_the_page() -> dict[str, Any]:
            async with warm.session(environment, html=html) as session:
                await session.goto_start()
                data: dict[str, Any] = await session.page.evaluate(
                    DESCRIBE, [locate_script(), dict(selectors), SALT]
                )
            return data

        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(on_the_page(), loop))

    def close(self) -> None:
        with self._guard:
            loop, thread, warm = self._loop, self._thread, self._warm
            self._loop = self._thread = self._warm = None
        if loop is None or thread is None:
            return
        if warm is not None:
            asyncio.run_coroutine_threadsafe(warm.close(), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()


_DESCRIBER = _Describer()


def close_describer() -> None:
    """Stop the describing Chromium, if a test started it."""
    _DESCRIBER.close()


async def describe_on(
    environment: Environment, selectors: Mapping[str, str], *, html: str | None = None
) -> dict[str, LocatorBundle]:
    """Locator bundles for ``selectors`` as the recorder would describe them on that page."""
    data = await _DESCRIBER.describe(environment, selectors, html)
    return {key: LocatorBundle.parse(value) for key, value in data.items()}


async def describe_url(
    server: LocalServer, path: str, html: str, selectors: Mapping[str, str]
) -> dict[str, LocatorBundle]:
    server.set_page(path, html)
    return await describe_on(url_environment(server.url(path)), selectors)
