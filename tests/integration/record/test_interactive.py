"""Interactive recording in a headed window under Xvfb: the terminal lists steps live, Enter
finishes, Ctrl-C discards. The test drives the window with trusted Playwright input over CDP
(Chromium is started through a wrapper that opens a DevTools port) while the CLI waits on stdin."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.async_api import Page, async_playwright

from skillreel.model.actions import AssertAction, ExtractAction
from skillreel.model.envelope import Envelope
from skillreel.record.kept import kept_path
from skillreel.store import Store
from tests.integration.record.rig import click_centre, page_html
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

APP = page_html("""
<form id=f action="javascript:void 0"><input id=q name=q><button id=go type=submit>Search</button></form>
""")
WAIT_S = 60.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Session:
    """The CLI in a subprocess, with its stderr collected as it arrives."""

    proc: subprocess.Popen[str]
    port: int
    stderr: list[str] = field(default_factory=list)

    async def wait_for_stderr(self, text: str) -> None:
        deadline = time.monotonic() + WAIT_S
        while text not in "".join(self.stderr):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"never printed {text!r}: {''.join(self.stderr)}")
            await asyncio.sleep(0.05)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line)
        self.proc.stdin.flush()

    def finish(self, stdin: str | None) -> tuple[int, str, str]:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        if stdin is not None:
            self.proc.stdin.write(stdin)
            self.proc.stdin.flush()
        try:  # its output is one small envelope: it fits the pipe while the process ends
            self.proc.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the recording never ended: {''.join(self.stderr)}") from None
        return self.proc.returncode, self.proc.stdout.read(), "".join(self.stderr)


@contextlib.contextmanager
def interactive_cli(tmp_path: Path, display: str, url: str, name: str, *extra: str) -> Iterator[Session]:
    port = _free_port()
    wrapper = tmp_path / "chromium-with-devtools"
    wrapper.write_text(f'#!/bin/sh\nexec /usr/bin/chromium --remote-debugging-port={port} "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, "DISPLAY": display, "SKILLREEL_CHROMIUM": str(wrapper)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillreel", "record", name, "--url", url, "--json", *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    session = Session(proc, port)
    assert proc.stderr is not None
    stderr = proc.stderr
    reader = threading.Thread(target=lambda: session.stderr.extend(iter(stderr.readline, "")), daemon=True)
    reader.start()
    try:
        yield session
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        reader.join(timeout=10)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


@asynccontextmanager
async def window(session: Session, url: str) -> AsyncIterator[Page]:
    """The CLI's recording page, reached over the DevTools port."""
    endpoint = f"http://127.0.0.1:{session.port}"
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            with urllib.request.urlopen(endpoint + "/json/version", timeout=2):
                break
        except OSError:
            if session.proc.poll() is not None or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)
    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(endpoint)
        page = None
        while page is None:
            page = next((p for c in browser.contexts for p in c.pages if p.url == url), None)
            if page is None:
                if time.monotonic() > deadline:
                    raise AssertionError("the recording page never loaded")
                await asyncio.sleep(0.1)
        await page.wait_for_load_state("load")
        yield page


async def test_enter_finishes_and_steps_are_listed_live(
    tmp_path: Path, xvfb_display: str, server: LocalServer, skillreel_home: Path
) -> None:
    server.set_page("/app", APP)
    url = server.url("/app")
    with interactive_cli(tmp_path, xvfb_display, url, "by-hand") as cli:
        await cli.wait_for_stderr("press Enter here to finish")
        async with window(cli, url) as page:
            # the headed window shows that it records (record/indicator.js; test_indicator.py)
            await page.wait_for_function("document.title.startsWith('\u25cf recording')")
            assert await page.evaluate("document.querySelector('skillreel-recording').shadowRoot") is None
            await click_centre(page, "#q")
            await page.keyboard.type("CanaryLive1")
            await page.keyboard.press("Enter")
            await cli.wait_for_stderr("a3")
            await click_centre(page, "#go")
            await cli.wait_for_stderr("a4")
            code, out, err = cli.finish("\n")
    assert code == 0, out + err
    doc = Envelope.parse(out).data
    assert doc is not None
    assert [(a["id"], a["kind"]) for a in doc["actions"]] == [
        ("a1", "navigate"),
        ("a2", "type"),
        ("a3", "press"),
        ("a4", "click"),
    ]
    # each step is listed with what it does (model.intents), never a value
    for line in (
        r"a1    open the start page on http://127\.0\.0\.1:\d+\n",
        r"a2    type .*q.* into the field .*q",
        r"a3    press Enter in the field .*q",
        r"a4    click the button .*",
    ):
        assert re.search(line, err), (line, err)
    assert "canarylive1" not in (out + err).lower()
    with Store.open(skillreel_home) as store:
        assert store.get("by-hand").revision == 1


@pytest.mark.usefixtures("ctrl_c_reaches_children")
async def test_ctrl_c_discards_and_stores_nothing(
    tmp_path: Path, xvfb_display: str, server: LocalServer, skillreel_home: Path
) -> None:
    server.set_page("/app", APP)
    url = server.url("/app")
    with interactive_cli(tmp_path, xvfb_display, url, "discarded") as cli:
        async with window(cli, url) as page:
            await click_centre(page, "#go")
            await cli.wait_for_stderr("a2")
            cli.proc.send_signal(signal.SIGINT)
            code, out, err = cli.finish(None)
    assert code == 1, out + err
    error = Envelope.parse(out).error  # Ctrl-C, too, is one result envelope on stdout
    assert error is not None
    assert error.code == "SR_RECORD_DISCARDED"
    assert "Traceback" not in err
    with Store.open(skillreel_home) as store:
        assert store.entries() == []


MARKED = page_html("""
<p>Total: <b id=total>$1,234.50</b></p>
<ul id=items><li>Alpha</li><li>Beta</li><li>Gamma</li></ul>
<script>window.seen = []; document.addEventListener("click", () => window.seen.push("click"), true);</script>
""")


async def test_marks_from_the_terminal_become_extract_steps_and_absent_checks(
    tmp_path: Path, xvfb_display: str, server: LocalServer, skillreel_home: Path
) -> None:
    server.set_page("/marked", MARKED)
    url = server.url("/marked")
    with interactive_cli(tmp_path, xvfb_display, url, "marked") as cli:
        await cli.wait_for_stderr("press Enter here to finish")
        async with window(cli, url) as page:
            cli.send("mark total number\n")
            await cli.wait_for_stderr("to extract it as total")
            await click_centre(page, "#total")
            await cli.wait_for_stderr("marked total")
            cli.send("mark all names\n")
            await cli.wait_for_stderr("to extract it as names")
            await click_centre(page, "#items li:nth-child(2)")
            await cli.wait_for_stderr("marked names")
            cli.send("mark total\n")  # a name already used: refused, nothing armed
            await cli.wait_for_stderr("already named 'total'")
            cli.send("absent Already refunded\n")  # issue 31.3: a business failure, marked
            await cli.wait_for_stderr("does not show the text you typed")
            await click_centre(page, "#total")
            await cli.wait_for_stderr("marked an absent check")
            cli.send("absent\n")
            await cli.wait_for_stderr("to check it is gone")
            await click_centre(page, "#items li:nth-child(1)")
            deadline = time.monotonic() + WAIT_S  # the second "marked an absent check"
            while "".join(cli.stderr).count("marked an absent check") < 2:
                assert time.monotonic() < deadline, "".join(cli.stderr)
                await asyncio.sleep(0.05)
            assert await page.evaluate("window.seen") == []  # the page never received a marking click
            code, out, err = cli.finish("\n")
    assert code == 0, out + err
    doc = Envelope.parse(out).data
    assert doc is not None
    assert [(a["id"], a["kind"]) for a in doc["actions"]] == [
        ("a1", "navigate"),
        ("a2", "extract"),
        ("a3", "extract"),
        ("a4", "assert"),
        ("a5", "assert"),
    ]
    for line in (r"a2    \S.*\btotal\b", r"a3    \S.*\bnames\b"):
        assert re.search(line, err), (line, err)
    assert "1,234" not in out + err
    with Store.open(skillreel_home) as store:
        draft = store.get("marked").draft
    assert [(o.name, o.type) for o in draft.outputs] == [("total", "number"), ("names", "list")]
    refunded, gone = draft.action("a4"), draft.action("a5")
    assert isinstance(refunded, AssertAction)
    assert isinstance(gone, AssertAction)
    assert (refunded.check, refunded.expected, gone.check, gone.expected) == (
        "absent",
        "Already refunded",
        "absent",
        None,
    )
    names = draft.action("a3")
    assert isinstance(names, ExtractAction)
    assert names.items is not None
    assert names.items.candidates[0].match_count == 3


CARD = page_html("""
<form id=f action="javascript:void 0">
  <label for=email>Email</label><input id=email name=email>
  <label for=card>Card</label><input id=card name=card_number>
  <button id=go type=submit>Pay</button>
</form>
""")


async def test_enter_with_an_unknown_sensitive_name_keeps_the_recording_going(
    tmp_path: Path, xvfb_display: str, server: LocalServer, skillreel_home: Path
) -> None:
    """Issue 11 item 10: pressing Enter while a --sensitive name matches no field typed yet names
    it and keeps recording (the demonstration used to end and be refused); typing into that field
    and pressing Enter again records it as sensitive."""
    server.set_page("/pay", CARD)
    url = server.url("/pay")
    with interactive_cli(tmp_path, xvfb_display, url, "pay", "--sensitive", "card_number") as cli:
        await cli.wait_for_stderr("press Enter here to finish")
        async with window(cli, url) as page:
            await click_centre(page, "#email")
            await page.keyboard.type("ana@example.org")
            await click_centre(page, "#go")
            await cli.wait_for_stderr("a3")
            assert cli.proc.stdin is not None
            cli.proc.stdin.write("\n")
            cli.proc.stdin.flush()
            await cli.wait_for_stderr("--sensitive names no recorded parameter: card_number")
            assert cli.proc.poll() is None  # still recording
            await click_centre(page, "#card")
            await page.keyboard.type("4111111111111111")
            await click_centre(page, "#go")
            await cli.wait_for_stderr("a5")
            code, out, err = cli.finish("\n")
    assert code == 0, out + err
    doc = Envelope.parse(out).data
    assert doc is not None
    assert [(p["name"], p["sensitive"]) for p in doc["parameters"]] == [
        ("email", False),
        ("card_number", True),
    ]
    assert "4111111111111111" not in out + err
    with Store.open(skillreel_home) as store:
        assert store.get("pay").revision == 1


async def test_a_person_whose_window_closed_resumes_where_it_stopped(
    tmp_path: Path, xvfb_display: str, server: LocalServer, skillreel_home: Path
) -> None:
    """A person's recording that fails (the window closed) keeps its steps; ``--resume`` reopens
    the page, lists the kept steps and appends the new ones."""
    server.set_page("/app", APP)
    url = server.url("/app")
    with interactive_cli(tmp_path, xvfb_display, url, "by-hand") as cli:
        async with window(cli, url) as page:
            await click_centre(page, "#q")
            await page.keyboard.type("CanaryLive2")
            await click_centre(page, "#go")
            await cli.wait_for_stderr("a3")
            await page.close()
            code, out, err = cli.finish(None)
    assert code == 1, out + err
    error = Envelope.parse(out).error
    assert error is not None
    assert error.code == "SR_RECORD_CAPTURE_FAILED"
    assert "`skillreel record by-hand --resume`" in error.message
    assert error.details["kept"] == {"events": 3, "stepsDone": 0}
    kept = kept_path(skillreel_home, "by-hand").read_bytes()
    assert b"canarylive2" not in kept.lower()

    with interactive_cli(tmp_path, xvfb_display, url, "by-hand", "--resume") as cli:
        await cli.wait_for_stderr("a3")  # the kept steps are listed first
        async with window(cli, url) as page:
            await click_centre(page, "#go")
            await cli.wait_for_stderr("a4")
            code, out, err = cli.finish("\n")
    assert code == 0, out + err
    doc = Envelope.parse(out).data
    assert doc is not None
    assert [a["kind"] for a in doc["actions"]] == ["navigate", "type", "click", "click"]
    assert not kept_path(skillreel_home, "by-hand").exists()
