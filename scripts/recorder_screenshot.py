"""Re-make the headed recorder's screenshot in docs/images/recorder.png (the guide links it).

    xvfb-run -a .venv/bin/python scripts/recorder_screenshot.py     # or with DISPLAY set

The demo's invoice desk is served on 127.0.0.1; ``skillreel record desk --url ...`` runs as a person's
recording in a throw-away SKILLREEL_HOME, its Chromium started through a wrapper that opens a DevTools
port. Over that port the script types a user name, arms a mark from the terminal (``mark user``),
points at the heading and takes the page's screenshot: the "● recording" badge and the armed mark's
outline (record/indicator.js). Then it cancels the mark and discards the recording (Ctrl-C).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from playwright.async_api import async_playwright  # noqa: E402

from skillreel.demo.app import InvoiceDesk  # noqa: E402

OUT = ROOT / "docs" / "images" / "recorder.png"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _shoot(work: Path) -> None:
    desk = InvoiceDesk({"unused"}).start()
    port = _free_port()
    wrapper = work / "chromium-with-devtools"
    wrapper.write_text(f'#!/bin/sh\nexec /usr/bin/chromium --remote-debugging-port={port} "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, "SKILLREEL_CHROMIUM": str(wrapper), "SKILLREEL_HOME": str(work / "home")}
    command = [sys.executable, "-m", "skillreel", "record", "desk", "--url", desk.start_url]
    command += ["--viewport", "1000x560"]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdin is not None
    assert proc.stderr is not None
    stderr, lines = proc.stderr, []
    threading.Thread(target=lambda: lines.extend(iter(stderr.readline, "")), daemon=True).start()

    def printed(text: str) -> None:
        deadline = time.monotonic() + 60
        while text not in "".join(lines):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the recorder never printed " + repr(text) + ":\n" + "".join(lines))
            time.sleep(0.1)

    try:
        printed("press Enter here to finish")
        async with async_playwright() as pw:
            browser = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
            page = next(p for c in browser.contexts for p in c.pages if p.url.startswith(desk.origin))
            await page.wait_for_load_state("load")
            await page.locator("#username").click()
            await page.keyboard.type("ana")
            await page.locator("#password").click()
            printed("a2")
            proc.stdin.write("mark user\n")
            proc.stdin.flush()
            printed("to extract it as user")
            box = await page.locator("h1").first.bounding_box()
            assert box is not None
            await page.mouse.move(box["x"] + 20, box["y"] + box["height"] / 2)
            await page.wait_for_function("document.title.startsWith('\\u25cf recording')")
            await page.screenshot(path=str(OUT))
            print(f"wrote {OUT} (title: {await page.title()})")
            await browser.close()
    finally:
        proc.send_signal(signal.SIGINT)  # discard: nothing is stored
        proc.wait(timeout=30)
    print("".join(lines), end="")


def main() -> None:
    if not os.environ.get("DISPLAY"):
        raise SystemExit("a headed recording needs a display: run under xvfb-run -a")
    with tempfile.TemporaryDirectory(prefix="sr-recorder-shot-") as work:
        asyncio.run(_shoot(Path(work)))


if __name__ == "__main__":
    main()
