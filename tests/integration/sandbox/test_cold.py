"""The cold session's lifecycle (``sandbox.cold.browser_session``): no Chromium left behind, crashes
translated, storage state, setup errors."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError

from skillreel.errors import InputError, ReplayUIError, TargetError
from skillreel.sandbox.chromium import find_chromium
from skillreel.sandbox.cold import browser_session
from skillreel.sandbox.context import BrowserSession
from tests.integration.sandbox.netpeers import HeadRecorder
from tests.integration.sandbox.processes import WAIT_S, chromium_tree, wait_until_gone
from tests.support.factory import html_environment, url_environment
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser


async def test_session_closes_chromium(server: LocalServer) -> None:
    server.set_page("/app", "<p>app</p>")
    async with browser_session(url_environment(server.url("/app"))) as session:
        await session.goto_start()
        pids = chromium_tree(session)
        assert pids
    assert await wait_until_gone(pids) == set()
    assert not session.browser.is_connected()


async def crash_browser_mid_session(server: LocalServer, pids: set[int]) -> None:
    async with browser_session(url_environment(server.url("/app"))) as session:
        await session.goto_start()
        pids |= chromium_tree(session)
        cdp = await session.browser.new_browser_cdp_session()
        with contextlib.suppress(PlaywrightError):
            await cdp.send("Browser.crash")
        await session.page.goto(server.url("/app"))


async def test_browser_crash_is_translated_and_leaves_nothing(server: LocalServer) -> None:
    server.set_page("/app", "<p>app</p>")
    pids: set[int] = set()
    with pytest.raises(ReplayUIError) as info:
        await crash_browser_mid_session(server, pids)
    assert info.value.code == "SR_REPLAY_UI_BROWSER_CRASHED"
    assert pids
    assert await wait_until_gone(pids) == set()


async def crash_renderer_mid_session(server: LocalServer) -> None:
    async with browser_session(url_environment(server.url("/app"))) as session:
        await session.goto_start()
        async with session.page.expect_event("crash", timeout=WAIT_S * 1000):
            with contextlib.suppress(PlaywrightError):
                await session.page.goto("chrome://crash")
        await session.page.evaluate("1 + 1")


async def test_renderer_crash_is_translated(server: LocalServer) -> None:
    server.set_page("/app", "<p>app</p>")
    with pytest.raises(ReplayUIError) as info:
        await crash_renderer_mid_session(server)
    assert info.value.code == "SR_REPLAY_UI_BROWSER_CRASHED"


async def test_other_errors_in_the_body_pass_through(server: LocalServer) -> None:
    server.set_page("/app", "<p>app</p>")
    sessions: list[BrowserSession] = []

    async def fail_inside() -> None:
        async with browser_session(url_environment(server.url("/app"))) as session:
            sessions.append(session)
            await session.goto_start()
            raise LookupError("the caller's own error")

    with pytest.raises(LookupError):
        await fail_inside()
    assert not sessions[0].browser.is_connected()


async def test_storage_state_cookies_reach_the_allowed_server(tmp_path: Path) -> None:
    app = HeadRecorder()
    await app.start()
    try:
        state = {
            "cookies": [
                {
                    "name": "sid",
                    "value": "c00k1e",
                    "domain": "127.0.0.1",
                    "path": "/",
                    "expires": -1,
                    "httpOnly": True,
                    "secure": False,
                    "sameSite": "Lax",
                }
            ],
            "origins": [],
        }
        path = tmp_path / "state.json"
        path.write_text(json.dumps(state))
        async with browser_session(url_environment(f"{app.origin}/start"), storage_state=path) as session:
            await session.goto_start()
            assert await session.page.inner_text("#t") == "recorded"
        assert session.ledger.denied_count == 0
        assert "sid=c00k1e" in app.header_values("cookie")
    finally:
        await app.close()


@pytest.mark.parametrize(
    ("content", "code"),
    [
        ("not json", "SR_RECORD_INPUT_MALFORMED"),
        ("[]", "SR_RECORD_INPUT_MALFORMED"),
        ('{"cookies": "nope"}', "SR_RECORD_INPUT_MALFORMED"),
    ],
)
async def test_bad_storage_state_is_an_input_error(tmp_path: Path, content: str, code: str) -> None:
    path = tmp_path / "state.json"
    path.write_text(content)
    with pytest.raises(InputError) as info:
        async with browser_session(url_environment("http://127.0.0.1:9/app"), storage_state=path):
            pass
    assert info.value.code == code
    assert "nope" not in info.value.message


async def test_storage_state_symlink_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text('{"cookies": [], "origins": []}')
    link = tmp_path / "link.json"
    link.symlink_to(real)
    with pytest.raises(InputError) as info:
        async with browser_session(url_environment("http://127.0.0.1:9/app"), storage_state=link):
            pass
    assert info.value.code == "SR_RECORD_INPUT_NOT_REGULAR"


async def test_fixture_must_match_its_digest() -> None:
    environment = html_environment("<p>recorded</p>")
    with pytest.raises(TargetError) as info:
        async with browser_session(environment, html="<p>changed</p>"):
            pass
    assert info.value.code == "SR_RECORD_ENVIRONMENT_DRIFT"


@pytest.mark.parametrize("case", ["html-missing", "html-with-url", "state-with-html"])
async def test_target_arguments_must_fit_the_environment(case: str, tmp_path: Path) -> None:
    html = "<p>x</p>"
    state = tmp_path / "state.json"
    state.write_text("{}")
    cases: dict[str, dict[str, Any]] = {
        "html-missing": {"environment": html_environment(html)},
        "html-with-url": {"environment": url_environment("http://127.0.0.1:9/"), "html": html},
        "state-with-html": {"environment": html_environment(html), "html": html, "storage_state": state},
    }
    with pytest.raises(TargetError) as info:
        async with browser_session(**cases[case]):
            pass
    assert info.value.code == "SR_RECORD_TARGET_INVALID"


@pytest.mark.parametrize("value", ["/nonexistent", "not-executable", "/tmp"])
def test_unusable_skillreel_chromium_is_a_setup_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str
) -> None:
    if value == "not-executable":
        value = str(tmp_path / "chromium")
        Path(value).write_text("plain file")
        Path(value).chmod(0o644)
    monkeypatch.setenv("SKILLREEL_CHROMIUM", value)
    with pytest.raises(ReplayUIError) as info:
        find_chromium()
    assert info.value.code == "SR_REPLAY_UI_CHROMIUM_SETUP"
    assert value not in info.value.message


def test_no_chromium_anywhere_is_a_setup_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SKILLREEL_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))
    with pytest.raises(ReplayUIError) as info:
        find_chromium()
    assert info.value.code == "SR_REPLAY_UI_CHROMIUM_SETUP"


async def test_missing_chromium_fails_the_session_before_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLREEL_CHROMIUM", "/nonexistent")
    with pytest.raises(ReplayUIError) as info:
        async with browser_session(url_environment("http://127.0.0.1:9/app")):
            pass
    assert info.value.code == "SR_REPLAY_UI_CHROMIUM_SETUP"


async def test_a_binary_that_is_not_chromium_is_a_setup_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.setenv("SKILLREEL_CHROMIUM", str(fake))
    with pytest.raises(ReplayUIError) as info:
        async with browser_session(url_environment("http://127.0.0.1:9/app")):
            pass
    assert info.value.code == "SR_REPLAY_UI_CHROMIUM_SETUP"


async def test_headed_without_a_display_is_a_setup_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(ReplayUIError) as info:
        async with browser_session(url_environment("http://127.0.0.1:9/app"), headless=False):
            pass
    assert info.value.code == "SR_REPLAY_UI_CHROMIUM_SETUP"


@pytest.mark.skipif(not Path("/usr/bin/Xvfb").exists() or not hasattr(os, "geteuid"), reason="needs Xvfb")
async def test_headed_session_under_xvfb(monkeypatch: pytest.MonkeyPatch, server: LocalServer) -> None:
    xvfb = await asyncio.create_subprocess_exec(
        "/usr/bin/Xvfb",
        "-displayfd",
        "1",
        "-screen",
        "0",
        "1280x1024x24",
        "-nolisten",
        "tcp",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        assert xvfb.stdout is not None
        display = (await asyncio.wait_for(xvfb.stdout.readline(), WAIT_S)).decode().strip()
        monkeypatch.setenv("DISPLAY", f":{display}")
        server.set_page("/app", "<h1 id=t>headed</h1>")
        async with browser_session(url_environment(server.url("/app")), headless=False) as session:
            await session.goto_start()
            assert await session.page.inner_text("#t") == "headed"
            assert await session.page.evaluate("navigator.webdriver") is True
        assert session.ledger.denied_count == 0
    finally:
        xvfb.terminate()
        await xvfb.wait()
