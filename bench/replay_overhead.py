"""Replay overhead: a 20-step flow over local pages, replayed by skillreel and by a hand-written
Playwright script doing the same actions on the same Chromium, runs interleaved.

    .venv/bin/python bench/replay_overhead.py            # 7 interleaved pairs
    .venv/bin/python bench/replay_overhead.py --quick    # 3 pairs

The flow: load a form, type 8 fields, choose in 2 selects, tick a box, go to a second page, type 4
fields, submit with Enter, wait for the result and check its text. skillreel runs the whole use case
(`services.replaying.replay_skill`: pre-flight, Chromium behind the enforcing proxy, isolated-world
resolution of every target with the competitor check, verified typing, evidence, network checks,
report and store update) with ``--settle 0``; the baseline is what a person would write with
Playwright: CSS selectors, ``fill``/``select_option``/``click``/``press``, one wait for the result.

Printed: the medians of the whole run (launch included) and of the steps alone (first step to last),
and their ratios. Goal (issue 4): at most 1.25x. The default ``--settle 100`` adds 100 ms per step
on purpose (time for the page to react); it is measured once for information. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import report
from playwright.async_api import async_playwright
from tests.factory import SALT, events_log, url_environment
from tests.server import LocalServer

from skillreel.locate import locate_script
from skillreel.model.actions import (
    Action,
    AssertAction,
    ClickAction,
    NavigateAction,
    ObserveAction,
    ParameterRef,
    PressAction,
    SelectAction,
    TypeAction,
    capability_manifest,
    parameter_refs,
)
from skillreel.model.draft import Draft, Parameter
from skillreel.model.lifecycle import approve, new_entry
from skillreel.model.locators import LocatorBundle
from skillreel.replay.engine import StepProgress
from skillreel.sandbox.browser import browser_session, find_chromium
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import AuditNote, Store, utc_now

GOAL = 1.25
COMMAND = "python bench/replay_overhead.py"
FIELDS = [f"f{i}" for i in range(1, 9)]
SECOND = [f"g{i}" for i in range(1, 5)]
OPTIONS = "".join(f'<option value="v{i}">Option {i}</option>' for i in range(1, 6))

PAGE_ONE = (
    '<!doctype html><html><head><title>Step one</title></head><body><main><form id="one">'
    + "".join(f'<label for="{f}">Field {f}</label><input id="{f}" name="{f}">' for f in FIELDS)
    + f'<label for="s1">First</label><select id="s1" name="s1">{OPTIONS}</select>'
    + f'<label for="s2">Second</label><select id="s2" name="s2">{OPTIONS}</select>'
    + '<label><input id="agree" name="agree" type="checkbox"> I agree</label>'
    + '<button id="next" type="button" onclick="location.href=\'/two\'">Next</button>'
    + "</form></main></body></html>"
)
PAGE_TWO = (
    '<!doctype html><html><head><title>Step two</title></head><body><main><form id="two">'
    + "".join(f'<label for="{g}">Field {g}</label><input id="{g}" name="{g}">' for g in SECOND)
    + '<button type="submit">Send</button></form><p id="result" hidden></p></main><script>'
    + 'document.getElementById("two").addEventListener("submit", (e) => { e.preventDefault();'
    + ' const r = document.getElementById("result"); r.textContent = "Done " + e.target.g4.value;'
    + " r.hidden = false; });</script></body></html>"
)

DESCRIBE = """([src, salt, selectors]) => {
  (0, eval)(src);
  const out = {};
  for (const s of selectors) out[s] = SkillreelLocate.describe(document.querySelector(s), salt);
  return out;
}"""


def values(run: int) -> dict[str, str]:
    found = {f: f"value {f} run {run}" for f in FIELDS + SECOND}
    found.update(s1=f"v{run % 5 + 1}", s2=f"v{(run + 2) % 5 + 1}")
    return found


async def describe(server: LocalServer, path: str, selectors: list[str]) -> dict[str, LocatorBundle]:
    async with browser_session(url_environment(server.url(path))) as session:
        await session.goto_start()
        data = await session.page.evaluate(DESCRIBE, [locate_script(), SALT, selectors])
    return {k: LocatorBundle.parse(v) for k, v in data.items()}


async def build_skill(server: LocalServer, store: Store) -> None:
    one = await describe(server, "/one", [f"#{f}" for f in FIELDS] + ["#s1", "#s2", "#agree", "#next"])
    server.set_page("/probe-two", PAGE_TWO)
    two = await describe(server, "/probe-two", [f"#{g}" for g in SECOND] + ["#result"])
    actions: list[Action] = [NavigateAction(id="a1", url=server.url("/one"))]
    actions += [
        TypeAction(id=f"a{2 + i}", target=one[f"#{f}"], value=ParameterRef(name=f))
        for i, f in enumerate(FIELDS)
    ]
    actions += [
        SelectAction(id="a10", target=one["#s1"], value=ParameterRef(name="s1")),
        SelectAction(id="a11", target=one["#s2"], value=ParameterRef(name="s2")),
        ClickAction(id="a12", target=one["#agree"]),
        ClickAction(id="a13", target=one["#next"]),
    ]
    actions += [
        TypeAction(id=f"a{14 + i}", target=two[f"#{g}"], value=ParameterRef(name=g))
        for i, g in enumerate(SECOND)
    ]
    actions += [
        PressAction(id="a18", key="Enter", target=two["#g4"]),
        ObserveAction(id="a19", target=two["#result"]),
        AssertAction(id="a20", check="text_contains", target=two["#result"], expected="Done"),
    ]
    params = tuple(Parameter(name=p) for p in parameter_refs(actions))
    draft = Draft.build(
        name="twenty-steps",
        description="A 20-step benchmark flow.",
        actions=tuple(actions),
        parameters=params,
        capabilities=capability_manifest(actions),
        failure_conditions=(),
        environment=url_environment(server.url("/one")),
        fingerprint_salt=SALT,
        events_digest=events_log().events_digest,
    )
    now = utc_now()
    store.insert(new_entry(draft, events_log(), now), AuditNote(kind="record"))
    store.update(draft.name, lambda e: approve(e, "bench", now), AuditNote(kind="review", reviewer="bench"))


async def run_skillreel(store: Store, run: int, settle_ms: int = 0) -> tuple[float, float]:
    marks: list[float] = []

    def progress(step: StepProgress) -> None:
        first = step.phase == "start" and step.index == 0
        if first or (step.phase == "done" and step.index == step.total - 1):
            marks.append(time.perf_counter())

    start = time.perf_counter()
    request = ReplayRequest(name="twenty-steps", inputs=values(run), settle_ms=settle_ms)
    outcome = await replay_skill(store, request, progress=progress)
    total = time.perf_counter() - start
    if outcome.error is not None:
        raise RuntimeError(f"the skillreel replay failed: {outcome.error.to_json()}")
    return total, marks[-1] - marks[0]


async def run_playwright(server: LocalServer, run: int) -> tuple[float, float]:
    """The hand-written baseline: the same actions, plain Playwright, the same Chromium."""
    start = time.perf_counter()
    async with async_playwright() as pw:
        args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
        browser = await pw.chromium.launch(executable_path=str(find_chromium()), args=args)
        page = await browser.new_page()
        steps_start = time.perf_counter()
        v = values(run)
        await page.goto(server.url("/one"), wait_until="load")
        for f in FIELDS:
            await page.fill(f"#{f}", v[f])
        await page.select_option("#s1", v["s1"])
        await page.select_option("#s2", v["s2"])
        await page.click("#agree")
        await page.click("#next")
        await page.wait_for_load_state("load")
        for g in SECOND:
            await page.fill(f"#{g}", v[g])
        await page.press("#g4", "Enter")
        await page.wait_for_selector("#result", state="visible")
        text: Any = await page.text_content("#result")
        if "Done" not in (text or ""):
            raise RuntimeError("the baseline did not reach the result")
        steps = time.perf_counter() - steps_start
        await browser.close()
    return time.perf_counter() - start, steps


async def main(pairs: int) -> None:
    server = LocalServer()
    server.start()
    server.set_page("/one", PAGE_ONE)
    server.set_page("/two", PAGE_TWO)
    with tempfile.TemporaryDirectory() as home:
        os.environ["SKILLREEL_HOME"] = home
        with Store.open(Path(home)) as store:
            await build_skill(server, store)
            await run_skillreel(store, 0)  # warm-up (imports, caches)
            await run_playwright(server, 0)
            ours: list[tuple[float, float]] = []
            theirs: list[tuple[float, float]] = []
            for run in range(1, pairs + 1):
                ours.append(await run_skillreel(store, run))
                theirs.append(await run_playwright(server, run))
                sys.stdout.write(
                    f"  pair {run}: skillreel {ours[-1][0]:.2f} s (steps {ours[-1][1]:.2f} s), "
                    f"playwright {theirs[-1][0]:.2f} s (steps {theirs[-1][1]:.2f} s)\n"
                )
            settled = await run_skillreel(store, pairs + 1, settle_ms=100)
    server.stop()
    for label, index in (("whole run", 0), ("steps only", 1)):
        a = statistics.median(r[index] for r in ours)
        b = statistics.median(r[index] for r in theirs)
        report(
            f"20-step replay, {label}",
            goal=f"<= {GOAL}x hand-written Playwright",
            measured=a * 1000,
            unit="ms",
            baseline=f"Playwright script {b * 1000:.0f} ms",
            ratio=a / b,
            command=COMMAND,
            met=a / b <= GOAL,
        )
    sys.stdout.write(
        f"  (with the default --settle 100: whole run {settled[0]:.2f} s, steps {settled[1]:.2f} s)\n"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 pairs instead of 7")
    args = parser.parse_args()
    asyncio.run(main(3 if args.quick else 7))
