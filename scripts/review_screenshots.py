"""Re-make the review page's screenshots in docs/images/ (the guide links them).

    .venv/bin/python scripts/review_screenshots.py

A throw-away store (a temporary SKILLREEL_HOME) gets the skill of ``tests/support/review_page.py``: an
approved version, then a pending draft that moves its ``staging`` environment to another origin,
declares ``preview`` and rewords the description and an input's description. ``skillreel ui`` serves
it; real Chromium opens the printed URL and takes the diff page (``review-env.png``) and the
approve form with its environment checkboxes (``review-approve.png``).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.async_api import async_playwright  # noqa: E402
from tests.support.review_page import NAME, seed_environment_review  # noqa: E402

from skillreel.sandbox.chromium import find_chromium  # noqa: E402
from skillreel.store import Store  # noqa: E402

IMAGES = ROOT / "docs" / "images"


async def _shoot(url: str) -> None:
    origin = url.split("/?", 1)[0]
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(find_chromium()))
        try:
            page = await browser.new_page(viewport={"width": 1100, "height": 900})
            await page.goto(url)
            await page.goto(f"{origin}/skills/{NAME}/diff")
            await page.screenshot(path=str(IMAGES / "review-env.png"), full_page=True)
            form = page.locator("form[action$='/approve']")
            await form.locator("input[name=recorded]").check()
            await form.locator("input[name=env][value=preview]").check()
            await page.locator("section.decide").screenshot(path=str(IMAGES / "review-approve.png"))
        finally:
            await browser.close()


def main() -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "SKILLREEL_HOME": home}
        os.environ["SKILLREEL_HOME"] = home
        with Store.open() as store:
            seed_environment_review(store)
        proc = subprocess.Popen(
            [sys.executable, "-m", "skillreel", "ui", "--reviewer", "carol"],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            assert proc.stdout is not None
            url = proc.stdout.readline().split()[-1]
            asyncio.run(_shoot(url))
        finally:
            proc.terminate()
            proc.communicate(timeout=30)
    for name in ("review-env.png", "review-approve.png"):
        print(f"wrote {IMAGES / name}")


if __name__ == "__main__":
    main()
