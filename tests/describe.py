"""Real locator bundles for replay tests: each element described by fingerprint.js on the recorded
page version, as the recorder would describe it."""

from __future__ import annotations

from collections.abc import Mapping

from skillreel.locate import locate_script
from skillreel.model.environment import Environment
from skillreel.model.locators import LocatorBundle
from skillreel.sandbox.browser import browser_session
from tests.factory import SALT, url_environment
from tests.server import LocalServer

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


async def describe_on(
    environment: Environment, selectors: Mapping[str, str], *, html: str | None = None
) -> dict[str, LocatorBundle]:
    """Locator bundles for ``selectors`` as the recorder would describe them on that page."""
    async with browser_session(environment, html=html) as session:
        await session.goto_start()
        data = await session.page.evaluate(DESCRIBE, [locate_script(), dict(selectors), SALT])
    return {key: LocatorBundle.parse(value) for key, value in data.items()}


async def describe_url(
    server: LocalServer, path: str, html: str, selectors: Mapping[str, str]
) -> dict[str, LocatorBundle]:
    server.set_page(path, html)
    return await describe_on(url_environment(server.url(path)), selectors)
