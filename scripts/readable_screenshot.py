"""Re-make the review page's screenshot of readable steps in docs/images/ (the guide links it).

    .venv/bin/python scripts/readable_screenshot.py

A throw-away store (a temporary SKILLREEL_HOME) gets a skill recorded for real: ``skillreel record
--html`` in Chromium over a small sign-in page (a user name, a password, a remember-me box, a
"Sign in" button, a link to the orders), driven by an automation file. ``skillreel ui`` serves it;
real Chromium opens the printed URL and takes the skill page's steps (``review-readable-steps.png``):
each step named by its display name (issue 31), the password's label shown and its value nowhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from playwright.async_api import async_playwright

from skillreel.sandbox.chromium import find_chromium

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
SHOT = IMAGES / "review-readable-steps.png"
NAME = "sign-in"
PAGE = """<!doctype html><html><head><meta charset=utf-8><title>Shop</title></head><body>
<h1>Sign in to the shop</h1>
<form action="javascript:void 0">
  <label for=user>User name</label><input id=user name=user>
  <label for=pw>Password</label><input id=pw name=pw type=password>
  <label><input id=remember type=checkbox> Remember me</label>
  <button id=signin type=submit>Sign in</button>
</form>
<a id=orders href="#orders">My orders</a>
</body></html>"""
STEPS = [
    {"do": "type", "selector": "#user", "text": "ann"},
    {"do": "type", "selector": "#pw", "text": "not-a-real-password"},
    {"do": "click", "selector": "#remember"},
    {"do": "click", "selector": "#signin"},
    {"do": "click", "selector": "#orders"},
]


def _skillreel(*args: str, env: dict[str, str]) -> None:
    subprocess.run([sys.executable, "-m", "skillreel", *args], env=env, check=True, capture_output=True)


@contextlib.contextmanager
def _review_page(env: dict[str, str]) -> Iterator[str]:
    """``skillreel ui`` serving the home of ``env``: the URL it prints, until the block ends."""
    command = [sys.executable, "-m", "skillreel", "ui", "--reviewer", "carol"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env) as ui:
        try:
            yield ui.stdout.readline().split()[-1] if ui.stdout else ""
        finally:
            ui.terminate()


async def _shoot(url: str) -> None:
    skill = url.split("/?", 1)[0] + f"/skills/{NAME}"
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(find_chromium()))
        try:
            page = await browser.new_page(viewport={"width": 1000, "height": 700})
            for address in (url, skill):  # the printed URL sets the page's cookie, then the skill
                await page.goto(address)
            steps = page.locator("h2", has_text="Steps")
            graph = page.locator("ol.graph").first
            await steps.scroll_into_view_if_needed()
            top, bottom = await steps.bounding_box(), await graph.bounding_box()
            assert top is not None
            assert bottom is not None
            clip = {
                "x": 0,
                "y": top["y"] - 8,
                "width": 1000,
                "height": bottom["y"] + bottom["height"] - top["y"] + 16,
            }
            await page.screenshot(path=str(SHOT), clip=clip, full_page=True)
        finally:
            await browser.close()


def main() -> None:
    SHOT.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="skillreel-readable-") as home:
        env = {**os.environ, "SKILLREEL_HOME": home}  # a throw-away store, never the user's
        html, automation = Path(home) / "page.html", Path(home) / "automation.json"
        html.write_text(PAGE)
        automation.write_text(json.dumps({"steps": STEPS}))
        _skillreel(
            "record",
            NAME,
            "--html",
            str(html),
            "--automation",
            str(automation),
            "--description",
            "Sign in to the shop and open my orders.",
            env=env,
        )
        with _review_page(env) as url:
            asyncio.run(_shoot(url))
    print(f"wrote {SHOT}")


if __name__ == "__main__":
    main()
