"""A healed step's element whose texts hold a sensitive input of the replay (a button the page named
"Approve <password>") is described in the page with only a yes or no about that: the driver's
``pick(describe=True, hide=...)`` says it echoes, and the step then proposes only its structure (no
salted text hash a guess could test offline). Real Chromium, through the replay's own driver."""

from __future__ import annotations

import pytest

from skillreel.replay.driver import PlaywrightDriver
from skillreel.sandbox.cold import browser_session
from tests.support.describe import describe_url
from tests.support.factory import SALT, url_environment
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

SECRET = "Vault-Pw-Zz81xq"
PAGE = f"""<!doctype html><html><body><main>
<table><tr><td>INV-7</td><td><button id="approve" title="ok">Approve {SECRET}</button></td></tr></table>
<button id="other">Cancel</button>
</main></body></html>"""


@pytest.mark.parametrize(
    ("selector", "hide", "echoes"),
    [
        ("#approve", [SECRET.lower()], True),  # its own text
        ("#approve", ["inv-7"], True),  # its row
        ("#approve", ["someone-else"], False),
        ("#other", [SECRET.lower()], False),
    ],
)
async def test_the_page_says_only_whether_a_healed_element_holds_a_hidden_value(
    server: LocalServer, selector: str, hide: list[str], echoes: bool
) -> None:
    bundle = (await describe_url(server, "/p", PAGE, {"target": selector}))["target"]
    async with browser_session(url_environment(server.url("/p"))) as session:
        await session.goto_start()
        driver = PlaywrightDriver(session)
        probe = await driver.probe(bundle, salt=SALT)
        assert probe.hits, "the element was not found"
        element = probe.hits[0].element
        assert element is not None
        picked = await driver.pick(probe, element, salt=SALT, describe=True, hide=hide)
        assert picked is not None
        assert picked.echoes is echoes
        assert picked.candidates  # the candidates still come back: the step acts as before
        plain = await driver.pick(probe, element, salt=SALT, describe=False, hide=hide)
        assert plain is not None
        assert plain.echoes is False  # no description asked: nothing checked
