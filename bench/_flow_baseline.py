"""The hand-written Playwright script of the reference flow (``bench/_flow.py``): what a person
would write for the same 18 actions. It imports only Playwright, so it also runs as a whole process:

    python bench/_flow_baseline.py BASE_URL RUN CHROMIUM   # password: SKILLREEL_SECRET_PAY_INVOICE_PASSWORD

CSS selectors; ``fill``, ``select_option``, ``check``, ``click``, ``press`` with Playwright's own
auto-waiting (a click that navigates waits for the new document to commit; the next action waits
for its element); one wait for the confirmation before reading its text. Same Chromium as skillreel,
headless, launched directly: no enforcing proxy and no request routing (skillreel has both).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import Any


def inputs(run: int) -> dict[str, str]:
    """The non-sensitive inputs of one run (the password comes from the environment)."""
    return {
        "user": f"operator{run}",
        "q": f"ACME {run}",
        "status": ("open", "paid", "all")[run % 3],
        "amount": f"{100 + run}.50",
        "note": f"run {run} note",
        "method": ("sepa", "card", "cheque")[run % 3],
        "code": f"C{run:04d}",
        "comment": f"comment {run}",
    }


async def baseline_steps(page: Any, base: str, values: dict[str, str], password: str) -> None:
    """The 18 actions."""
    await page.goto(base + "/login", wait_until="load")
    await page.fill("#user", values["user"])
    await page.fill("#password", password)
    await page.click("button[type=submit]")
    await page.fill("#q", values["q"])
    await page.select_option("#status", values["status"])
    await page.press("#q", "Enter")
    await page.click("a.open-invoice")
    await page.fill("#amount", values["amount"])
    await page.fill("#note", values["note"])
    await page.check("#urgent")
    await page.select_option("#method", values["method"])
    await page.click("#continue")
    await page.fill("#code", values["code"])
    await page.fill("#comment", values["comment"])
    await page.click("#confirm-button")
    await page.wait_for_selector("#done", state="visible")
    text = await page.text_content("#done")
    if "scheduled" not in (text or ""):
        raise RuntimeError("the baseline did not reach the confirmation")


def chromium_args() -> list[str]:
    """What a hand-written script on this machine needs: no sandbox when running as root; plus
    ``BENCH_BASELINE_ARGS`` (space-separated) where a benchmark tunes the script's launch too."""
    extra = os.environ.get("BENCH_BASELINE_ARGS", "").split()
    return (["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []) + extra


async def main(base: str, run: int, chromium: str) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium, args=chromium_args())
        page = await browser.new_page()
        started = time.perf_counter()
        await baseline_steps(page, base, inputs(run), os.environ["SKILLREEL_SECRET_PAY_INVOICE_PASSWORD"])
        sys.stderr.write(f"steps {time.perf_counter() - started:.4f}\n")
        await browser.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
