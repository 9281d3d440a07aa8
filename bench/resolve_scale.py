"""Resolution and healing on large pages: median milliseconds per step at 1,000 / 5,000 / 20,000
elements, and how that grows.

    .venv/bin/python bench/resolve_scale.py            # 1,000 / 5,000 / 20,000 elements
    .venv/bin/python bench/resolve_scale.py --quick    # fewer repetitions

A step's resolution is what the replay engine does before acting: one in-page probe in the isolated
world (the bundle's candidates up to the first hit, then every element of the target's tag scored
against the fingerprint), the pure decision, marking the chosen element and removing the mark.
"exact" resolves a Save button whose id still agrees; "role-name" resolves it after its id was
renamed and it moved to another container, through its role-name candidate (every button's
accessible name is computed and hashed in the page); "heal" resolves that moved button with a bundle
that has no role-name candidate, so every element of its kind is scored (accessible names
included) and the best one chosen.

The page is a long list of rows (a label, a quantity field and an "Add" button per row: a quarter
of all elements are buttons, the worst case for a button target) plus the form with the target.
Goal (issue 4): at most 30 ms per step at 20,000 elements, growing linearly. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import report
from tests.support.factory import SALT, url_environment
from tests.support.server import LocalServer

from skillreel.locate import heal, locate_script
from skillreel.model.locators import LocatorBundle
from skillreel.replay.driver import PlaywrightDriver
from skillreel.sandbox.cold import browser_session

SIZES = (1_000, 5_000, 20_000)
GOAL_MS = 30.0
COMMAND = "python bench/resolve_scale.py"

FORM = (
    '<form id="settings" class="panel"><label for="email">Email</label><input id="email" name="email">'
    '<button id="save" type="button" class="btn primary">Save</button>'
    '<button id="cancel" type="button" class="btn">Cancel</button></form>'
)
MOVED = (
    '<form id="settings" class="panel"><label for="email">Email</label><input id="email" name="email">'
    '<button id="cancel" type="button" class="btn">Cancel</button></form>'
    '<aside class="actions"><button id="store" type="button" class="btn primary">Save</button></aside>'
)


# How the recorder would describe the Save button (fingerprint.js, evaluated on the recorded page).
DESCRIBE = """([src, salt]) => {
  (0, eval)(src);
  return SkillreelLocate.describe(document.querySelector("#save"), salt);
}"""


def page(elements: int, form: str) -> str:
    rows = max(1, (elements - 16) // 4)  # 4 elements per row, a few more in the frame and the form
    body = "".join(
        f'<div class="row"><span class="name">Item {i}</span><input class="qty" name="qty-{i}">'
        f'<button type="button" class="btn">Add</button></div>'
        for i in range(rows)
    )
    head = "<!doctype html><html><head><title>Scale</title></head>"
    return f'{head}<body><main><div class="list">{body}</div>{form}</main></body></html>'


async def describe(server: LocalServer) -> LocatorBundle:
    server.set_page("/record", page(100, FORM))
    async with browser_session(url_environment(server.url("/record"))) as session:
        await session.goto_start()
        data = await session.page.evaluate(DESCRIBE, [locate_script(), SALT])
    return LocatorBundle.parse(data)


async def measure(
    server: LocalServer, bundle: LocatorBundle, elements: int, form: str, repeats: int, expected: str
) -> tuple[float, int]:
    path = f"/p{elements}-{expected}-{len(bundle.candidates)}"
    server.set_page(path, page(elements, form))
    async with browser_session(url_environment(server.url(path))) as session:
        await session.goto_start()
        count = await session.page.evaluate("document.getElementsByTagName('*').length")
        driver = PlaywrightDriver(session)
        times = []
        for i in range(repeats + 2):
            start = time.perf_counter()
            probe = await driver.probe(bundle, salt=SALT)
            decision = heal.decide(bundle.fingerprint, probe, allow_heal=True)
            if decision.outcome != expected or decision.element is None:
                raise RuntimeError(f"unexpected decision {decision}")
            picked = await driver.pick(probe, decision.element, salt=SALT, describe=decision.healed)
            if picked is None:
                raise RuntimeError("the chosen element went away")
            await driver.release()
            if i >= 2:  # the first two install the scripts and warm the JIT
                times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), count


async def main(repeats: int) -> None:
    server = LocalServer()
    server.start()
    try:
        bundle = await describe(server)
        no_role_name = LocatorBundle(
            candidates=tuple(c for c in bundle.candidates if c.strategy not in ("role-name", "href")),
            fingerprint=bundle.fingerprint,
        )
        modes = (
            ("exact", FORM, "exact", bundle),
            ("role-name", MOVED, "exact", bundle),
            ("heal", MOVED, "healed", no_role_name),
        )
        for mode, form, expected, used in modes:
            results = {}
            for size in SIZES:
                results[size] = await measure(server, used, size, form, repeats, expected)
                median, count = results[size]
                sys.stdout.write(f"  {mode}: {count:,} elements -> {median:.1f} ms per step\n")
            small, large = results[SIZES[0]], results[SIZES[-1]]
            growth = large[0] / small[0]
            size_ratio = large[1] / small[1]
            report(
                f"resolve ({mode}) at {large[1]:,} elements",
                goal=f"<= {GOAL_MS:.0f} ms, linear",
                measured=large[0],
                unit="ms",
                baseline=f"{small[1]:,} elements ({size_ratio:.0f}x the size)",
                ratio=growth,
                command=COMMAND,
                met=large[0] <= GOAL_MS and growth <= size_ratio * 1.2,
            )
    finally:
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    asyncio.run(main(5 if args.quick else 21))
