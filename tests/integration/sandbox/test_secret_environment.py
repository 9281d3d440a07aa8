"""No child process inherits the vault (issue 11 item 7): while a browser session is open, neither
Playwright's process nor any Chromium process has a ``SKILLREEL_SECRET_*`` variable or its value
in its environment, and the vault in the replaying process still reads the value."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from skillreel.sandbox.cold import browser_session
from skillreel.vault import EnvKeyringSecrets
from tests.support.factory import html_environment

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]

SECRET = "vault-value-k3q9"
VARIABLE = "SKILLREEL_SECRET_SIGN_IN_PASSWORD"


def descendants(root: int) -> list[int]:
    """Every live process below ``root`` (from /proc/*/stat's parent ids)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def environment_of(pid: int) -> bytes | None:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:  # gone meanwhile
        return None


def command_of(pid: int) -> bytes | None:
    try:
        return os.readlink(f"/proc/{pid}/exe").rsplit("/", 1)[-1].encode()
    except OSError:  # gone meanwhile, or a zombie (another test's child not yet reaped)
        return None


async def test_neither_playwright_nor_chromium_inherits_a_vault_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(VARIABLE, SECRET)
    html = "<!doctype html><html><body><input type=password id=p></body></html>"
    async with browser_session(html_environment(html), html=html) as session:
        await session.goto_start()
        await session.page.fill("#p", "typed in the page, not inherited")
        environments = [env for pid in descendants(os.getpid()) if (env := environment_of(pid)) is not None]
        names = {b"chromium", b"chrome", b"node"}
        commands = {command_of(pid) for pid in descendants(os.getpid())}
    assert len(environments) >= 2  # Playwright's process and at least the browser process
    assert commands & names, commands
    for env in environments:
        assert b"SKILLREEL_SECRET_" not in env
        assert SECRET.encode() not in env
    assert VARIABLE not in os.environ  # sealed away from every later child too
    assert EnvKeyringSecrets(use_keyring=False).get("sign-in", "password") == SECRET
