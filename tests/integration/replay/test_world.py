"""The replay's isolated world in each new document (``replay/world.py``): registered to start
with every document of the main frame (``Page.addScriptToEvaluateOnNewDocument``), so the first
call there costs no world creation and no install; never in a child frame, never visible to the
page; a document the registered script did not reach gets the scripts installed on first use."""

from __future__ import annotations

from typing import Any

import pytest

from skillreel.replay import world as world_module
from skillreel.replay.driver import PlaywrightDriver
from skillreel.replay.world import World
from skillreel.sandbox.cold import browser_session
from skillreel.sandbox.context import BrowserSession
from tests.support.factory import url_environment
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

TIMEOUT_MS = 15_000
FIRST = "<!doctype html><title>first</title><a id='next' href='/second'>next</a>"
SECOND = (
    "<!doctype html><title>second</title><p id='text'>second page</p>"
    "<iframe id='child' srcdoc='<p>inside</p>'></iframe>"
)


def serve(server: LocalServer) -> None:
    server.set_page("/first", FIRST)
    server.set_page("/second", SECOND)


async def worlds(
    session: BrowserSession, name: str, expression: str = "typeof SkillreelSettle"
) -> dict[str, list[Any]]:
    """``expression`` (``typeof SkillreelSettle``) in every execution context of the page, by kind:
    our world in the main frame, our world in a child frame, the page's own (main) world. Read on a
    session of its own, which is told about every existing context when it enables the Runtime
    domain."""
    cdp = await session.page.context.new_cdp_session(session.page)
    contexts: list[dict[str, Any]] = []
    cdp.on("Runtime.executionContextCreated", lambda event: contexts.append(event["context"]))
    await cdp.send("Runtime.enable")
    main_frame = (await cdp.send("Page.getFrameTree"))["frameTree"]["frame"]["id"]
    found: dict[str, list[Any]] = {"ours": [], "ours in a child frame": [], "the page's": []}
    for context in contexts:
        aux = context.get("auxData") or {}
        if context.get("name") == name:
            kind = "ours" if aux.get("frameId") == main_frame else "ours in a child frame"
        elif aux.get("isDefault") and aux.get("frameId") == main_frame:
            kind = "the page's"
        else:
            continue
        result = await cdp.send(
            "Runtime.evaluate",
            {"expression": expression, "contextId": context["id"], "returnByValue": True},
        )
        found[kind].append(result["result"]["value"])
    await cdp.detach()
    return found


def count_installs(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    installs: list[str | None] = []
    original = World.install

    async def counted(self: World, cdp: Any) -> None:
        if self.installed != self.unique:
            installs.append(self.unique)
        await original(self, cdp)

    monkeypatch.setattr(World, "install", counted)
    return installs


async def test_a_new_document_starts_with_our_world_in_its_main_frame_only(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    serve(server)
    installs = count_installs(monkeypatch)
    async with browser_session(url_environment(server.url("/first"))) as session:
        driver = PlaywrightDriver(session)
        await driver.start(timeout_ms=TIMEOUT_MS)
        await driver.page_state(salt="s", text=False)  # the start page: registered or installed
        before = len(installs)
        await driver.goto(server.url("/second"), timeout_ms=TIMEOUT_MS)
        await session.page.wait_for_function("document.getElementById('child').contentDocument.body")
        found = await worlds(session, driver._world.name)
        assert found["ours"] == ["object"]  # there before any call of ours in this document
        assert found["ours in a child frame"] in ([], ["undefined"])  # the guard: main frame only
        assert found["the page's"] == ["undefined"]
        # the binding our world tells a replaced target by: in our world only, never in the page's
        binding = await worlds(session, driver._world.name, f"typeof {world_module.REPLACED_BINDING}")
        assert binding["ours"] == ["function"]
        assert binding["the page's"] == ["undefined"]
        summary = await driver.page_state(salt="s", text=True)
        assert summary.elements > 0
        assert len(installs) == before  # the first call found the scripts: nothing installed


async def test_a_document_the_registered_script_did_not_reach_gets_the_scripts_on_first_use(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chromium also announces our world in a new document when the registered script did not run
    there (a world once created in a frame is created again for its next document): a call finds
    the scripts missing, installs them and is made again."""
    serve(server)
    monkeypatch.setattr(world_module, "document_script", lambda: "true;")  # registers nothing useful
    installs = count_installs(monkeypatch)
    async with browser_session(url_environment(server.url("/first"))) as session:
        driver = PlaywrightDriver(session)
        await driver.start(timeout_ms=TIMEOUT_MS)
        await driver.page_state(salt="s", text=False)
        before = len(installs)
        await driver.goto(server.url("/second"), timeout_ms=TIMEOUT_MS)
        found = await worlds(session, driver._world.name)
        assert found["ours"] in ([], ["undefined"])
        summary = await driver.page_state(salt="s", text=True)
        assert summary.elements > 0
        assert summary.text is not None
        assert len(installs) == before + 1
