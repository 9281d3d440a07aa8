"""Schema v2 overhead: "extract 100 rows" and "loop over 100 items", replayed by skillreel and by a
hand-written Playwright script doing the same work on the same Chromium, runs interleaved.

    .venv/bin/python bench/graph_overhead.py            # 7 interleaved pairs per figure
    .venv/bin/python bench/graph_overhead.py --quick    # 3 pairs

The page is a table of 100 orders (number, amount, status, an "Approve" button).

* **extract 100 rows**: skillreel runs a list extraction of 3 typed fields (`extract` `read: list`,
  one in-page evaluation, then typing: integer, number, enum); the baseline reads the same cells
  with ``locator.all()`` and ``inner_text`` per cell, as a person would write it, and types them in
  Python.
* **loop over 100 items**: skillreel runs a `loop` over the rows reading the status field and
  branching on it, clicking "Approve" inside the row when the order is open (50 clicks); the baseline
  iterates the row locators, reads the status and clicks the row's button. A click posts the
  approval and, once answered, marks the row approved, as an app does (skillreel settles on that
  request; the baseline does not wait for it).

Both run the whole use case (pre-flight, Chromium behind the proxy, evidence, report, store) with
``--settle 0``. Printed: medians of the whole run and of the steps alone, and their ratios. Goal
(issue 12): at most 1.25x. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import report
from playwright.async_api import Page, async_playwright
from tests.support.factory import SALT, events_log, url_environment
from tests.support.server import LocalServer

from skillreel.locate import locate_script
from skillreel.model.actions import (
    Action,
    BranchAction,
    ClickAction,
    ExtractAction,
    LoopAction,
    NavigateAction,
    capability_manifest,
)
from skillreel.model.conditions import CompareCondition
from skillreel.model.draft import Draft
from skillreel.model.lifecycle import approve, new_entry
from skillreel.model.locators import ElementSet, LocatorBundle, LocatorCandidate
from skillreel.model.reads import FieldSpec
from skillreel.model.refs import ItemRef, LiteralValue
from skillreel.replay.engine import StepProgress
from skillreel.sandbox.chromium import find_chromium
from skillreel.sandbox.cold import browser_session
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import AuditNote, Store, utc_now

GOAL = 1.25
COMMAND = "python bench/graph_overhead.py"
ROWS = 100
ROW_HTML = (
    '<tr class="order"><td class="number">Order {n}</td><td class="amount">${amount:,}.50</td>'
    '<td class="status">{status}</td><td><button type="button" class="approve" '
    "onclick=\"fetch('/approve?id={n}').then((r) => r.text())"
    ".then(() => {{ this.closest('tr').querySelector('td.status').textContent = 'approved'; }})\">"
    "Approve</button></td></tr>"
)
PAGE = (
    "<!doctype html><html><head><title>Orders</title></head><body><main><h1>Orders</h1><table>"
    "<thead><tr><th>Number</th><th>Amount</th><th>Status</th><th></th></tr></thead><tbody>"
    + "".join(
        ROW_HTML.format(n=1000 + i, amount=1000 + 7 * i, status="approved" if i % 2 else "open")
        for i in range(ROWS)
    )
    + "</tbody></table></main></body></html>"
)
DESCRIBE = """([src, salt, selectors]) => {
  (0, eval)(src);
  const out = {};
  for (const s of selectors) out[s] = SkillreelLocate.describe(document.querySelector(s), salt);
  return out;
}"""


def css(selector: str, count: int = 1) -> tuple[LocatorCandidate, ...]:
    return (LocatorCandidate(strategy="css", selector=selector, match_count=count),)


async def bundles(server: LocalServer) -> dict[str, LocatorBundle]:
    selectors = [
        "tbody tr.order",
        "tbody tr.order td.number",
        "tbody tr.order td.amount",
        "tbody tr.order td.status",
        "tbody tr.order button.approve",
    ]
    async with browser_session(url_environment(server.url("/orders"))) as session:
        await session.goto_start()
        data = await session.page.evaluate(DESCRIBE, [locate_script(), SALT, selectors])
    found = {k: LocatorBundle.parse(v) for k, v in data.items()}
    return {k: b.without_content() or b for k, b in found.items()}


def fields(found: dict[str, LocatorBundle]) -> tuple[FieldSpec, ...]:
    def cell(name: str) -> LocatorBundle:
        return LocatorBundle(
            candidates=css(f":scope > td.{name}"), fingerprint=found[f"tbody tr.order td.{name}"].fingerprint
        )

    return (
        FieldSpec(name="number", target=cell("number"), type="integer", pattern=r"(\d+)"),
        FieldSpec(name="amount", target=cell("amount"), type="number"),
        FieldSpec(name="status", target=cell("status"), type="enum", values=("open", "approved")),
    )


def store_skill(store: Store, name: str, url: str, actions: list[Action]) -> None:
    draft = Draft.build(
        name=name,
        description="A schema v2 benchmark skill.",
        actions=tuple(actions),
        parameters=(),
        capabilities=capability_manifest(actions),
        failure_conditions=(),
        environment=url_environment(url),
        fingerprint_salt=SALT,
        events_digest=events_log().events_digest,
    )
    now = utc_now()
    store.insert(new_entry(draft, events_log(), now), AuditNote(kind="record"))
    store.update(name, lambda e: approve(e, "bench", now), AuditNote(kind="review", reviewer="bench"))


async def build_skills(server: LocalServer, store: Store) -> None:
    found = await bundles(server)
    url = server.url("/orders")
    rows = ElementSet(candidates=css("tbody tr.order", ROWS), fingerprint=found["tbody tr.order"].fingerprint)
    extract = ExtractAction(
        id="a2", output="orders", read="list", items=rows, fields=fields(found), limit=ROWS
    )
    store_skill(store, "extract-rows", url, [NavigateAction(id="a1", url=url), extract])
    button = found["tbody tr.order button.approve"]
    approve_step = ClickAction(
        id="a4",
        target=LocatorBundle(
            candidates=css(":scope button.approve"), fingerprint=button.fingerprint, within="item"
        ),
    )
    branch = BranchAction(
        id="a3",
        condition=CompareCondition(
            value=ItemRef(field="status"), op="equals", expected=LiteralValue(value="open")
        ),
        then=(approve_step,),
    )
    loop = LoopAction(id="a2", items=rows, limit=ROWS, fields=fields(found)[2:], body=(branch,))
    store_skill(store, "loop-rows", url, [NavigateAction(id="a1", url=url), loop])


async def run_skillreel(store: Store, name: str) -> tuple[float, float]:
    marks: list[float] = []

    def progress(step: StepProgress) -> None:
        if step.phase == "start" and step.index == 0 and not marks:
            marks.append(time.perf_counter())
        if step.phase == "done":
            marks.append(time.perf_counter())

    start = time.perf_counter()
    outcome = await replay_skill(store, ReplayRequest(name=name, settle_ms=0), progress=progress)
    total = time.perf_counter() - start
    if outcome.error is not None:
        raise RuntimeError(f"the skillreel replay failed: {outcome.error.to_json()}")
    if name == "extract-rows":
        rows = (outcome.outputs or {}).get("orders")
        if not isinstance(rows, list) or len(rows) != ROWS:
            raise RuntimeError("the extraction did not return every row")
    return total, marks[-1] - marks[0]


async def extract_by_hand(page: Page) -> None:
    out = []
    for row in await page.locator("tbody tr.order").all():
        number = int((await row.locator("td.number").inner_text()).split()[-1])
        amount = Decimal((await row.locator("td.amount").inner_text()).replace("$", "").replace(",", ""))
        status = (await row.locator("td.status").inner_text()).strip()
        out.append({"number": number, "amount": float(amount), "status": status})
    if len(out) != ROWS:
        raise RuntimeError("the baseline did not read every row")


async def loop_by_hand(page: Page) -> None:
    for row in await page.locator("tbody tr.order").all():
        if (await row.locator("td.status").inner_text()).strip() == "open":
            await row.locator("button.approve").click()


async def run_playwright(server: LocalServer, name: str) -> tuple[float, float]:
    start = time.perf_counter()
    async with async_playwright() as pw:
        args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
        browser = await pw.chromium.launch(executable_path=str(find_chromium(headless=True)), args=args)
        page = await browser.new_page()
        steps_start = time.perf_counter()
        await page.goto(server.url("/orders"), wait_until="load")
        await (extract_by_hand(page) if name == "extract-rows" else loop_by_hand(page))
        steps = time.perf_counter() - steps_start
        await browser.close()
    return time.perf_counter() - start, steps


async def main(pairs: int) -> None:
    server = LocalServer()
    server.start()
    server.set_page("/orders", PAGE)
    results: dict[str, tuple[list[tuple[float, float]], list[tuple[float, float]]]] = {}
    with tempfile.TemporaryDirectory() as home:
        os.environ["SKILLREEL_HOME"] = home
        with Store.open(Path(home)) as store:
            await build_skills(server, store)
            for name in ("extract-rows", "loop-rows"):
                await run_skillreel(store, name)  # warm-up
                await run_playwright(server, name)
                ours: list[tuple[float, float]] = []
                theirs: list[tuple[float, float]] = []
                for run in range(1, pairs + 1):
                    ours.append(await run_skillreel(store, name))
                    theirs.append(await run_playwright(server, name))
                    sys.stdout.write(
                        f"  {name} pair {run}: skillreel {ours[-1][0]:.2f} s (steps {ours[-1][1]:.2f} s), "
                        f"playwright {theirs[-1][0]:.2f} s (steps {theirs[-1][1]:.2f} s)\n"
                    )
                results[name] = (ours, theirs)
    server.stop()
    for name, label in (("extract-rows", "extract 100 rows"), ("loop-rows", "loop over 100 items")):
        ours, theirs = results[name]
        for part, index in (("whole run", 0), ("steps only", 1)):
            a = statistics.median(r[index] for r in ours)
            b = statistics.median(r[index] for r in theirs)
            report(
                f"{label}, {part}",
                goal=f"<= {GOAL}x hand-written Playwright",
                measured=a * 1000,
                unit="ms",
                baseline=f"Playwright script {b * 1000:.0f} ms",
                ratio=a / b,
                command=COMMAND,
                met=a / b <= GOAL,
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 pairs instead of 7")
    args = parser.parse_args()
    asyncio.run(main(3 if args.quick else 7))
