"""Recorder overhead: time from a trusted click to its event reaching Python, skillreel's recorder
against a bare listener, on pages of 1,000 and 20,000 elements, in the same run.

    .venv/bin/python bench/record_overhead.py              # 40 clicks per page size and listener
    .venv/bin/python bench/record_overhead.py --clicks 10  # a smoke run

"recorder": the real capture script (fingerprint.js + recorder.js) in its isolated world; the time
runs from `page.mouse.click` until the validated, scrubbed event is appended to the events log in
Python. "bare": the same isolated-world binding mechanism with a listener that only reports that a
trusted click happened. Both run in the same Chromium (separate contexts), alternating clicks.
Goal (issue 3): at most 5 ms added per event at 20,000 elements. Not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import report as report_figure
from playwright.async_api import Page

from skillreel.model.environment import Environment, build_url_target
from skillreel.record.recorder import Recorder
from skillreel.sandbox.cold import browser_session

GOAL_MS = 5.0
SALT = "0123456789abcdef0123456789abcdef"
BARE_WORLD = "bench-bare"
BARE_SCRIPT = """
window.addEventListener("click", (event) => {
  if (event.isTrusted) __benchBare(JSON.stringify({type: "click"}));
}, true);
"""

# A page whose body script builds `n` elements: sections of cards with headings, text, labelled
# inputs and buttons, ids and classes (some repeated), so selectors have real work to do.
PAGE = """<!doctype html><html><head><meta charset=utf-8><title>bench</title></head><body>
<main id=app></main>
<script>
const n = Number(new URLSearchParams(location.search).get("n"));
const app = document.getElementById("app");
let made = 0, s = 0;
while (made < n) {
  const section = document.createElement("section");
  section.className = "section s" + (s % 7);
  for (let c = 0; c < 10 && made < n; c++) {
    const card = document.createElement("div");
    card.className = "card";
    card.innerHTML = `<h3>Card ${s}-${c}</h3><p class=text>Some text ${c}</p>` +
      `<label>Field <input name="f-${s}-${c}" class=field></label><button class=act>Go</button>`;
    section.appendChild(card);
    made += 6;
  }
  app.appendChild(section);
  s++;
}
const target = document.createElement("button");
target.id = "target"; target.className = "act primary"; target.textContent = "Target";
app.insertBefore(target, app.firstChild);
</script></body></html>"""


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


# An element with a unique id (cheap to describe), and a button deep in the page with no id or name
# (its structural CSS path is checked for uniqueness level by level).
TARGETS = {"id": "#target", "deep": "section:last-of-type > div.card:last-child > button"}


async def _click_and_wait(page: Page, selector: str, arrived: Callable[[], Awaitable[None]]) -> float:
    locator = page.locator(selector)
    await locator.scroll_into_view_if_needed()
    box = await locator.bounding_box()
    assert box is not None
    start = time.perf_counter()
    waiter = asyncio.ensure_future(arrived())
    await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await waiter
    return (time.perf_counter() - start) * 1000


class _Signal:
    """A one-shot wake-up for 'the event reached Python'."""

    def __init__(self) -> None:
        self.future: asyncio.Future[None] | None = None

    def fire(self, *_: Any) -> None:
        if self.future is not None and not self.future.done():
            self.future.set_result(None)

    async def wait(self) -> None:
        self.future = asyncio.get_running_loop().create_future()
        await self.future


Results = dict[tuple[int, str], dict[str, list[float]]]


async def measure(url: str, sizes: list[int], clicks: int) -> Results:
    environment = Environment.build(target=build_url_target(url))
    results: Results = {}
    async with browser_session(environment) as session:
        recorded = _Signal()
        recorder = Recorder(session.context, salt=SALT, on_event=lambda e: recorded.fire())
        await recorder.start(session.page)
        bare_context = await session.browser.new_context()
        bare_page = await bare_context.new_page()
        bare = _Signal()
        cdp = await bare_context.new_cdp_session(bare_page)
        cdp.on("Runtime.bindingCalled", bare.fire)
        await cdp.send("Page.enable")
        await cdp.send("Runtime.enable")
        await cdp.send("Runtime.addBinding", {"name": "__benchBare", "executionContextName": BARE_WORLD})
        await cdp.send(
            "Page.addScriptToEvaluateOnNewDocument",
            {"source": BARE_SCRIPT, "worldName": BARE_WORLD, "runImmediately": True},
        )
        for n in sizes:
            page_url = f"{url}?n={n}"
            async with recorder.starting(page_url):
                await session.page.goto(page_url)
            await bare_page.goto(page_url)
            count = await session.page.evaluate("document.getElementsByTagName('*').length")
            for label, selector in TARGETS.items():
                times: dict[str, list[float]] = {"recorder": [], "bare": []}
                for i in range(clicks + 3):
                    rec = await _click_and_wait(session.page, selector, recorded.wait)
                    raw = await _click_and_wait(bare_page, selector, bare.wait)
                    if i >= 3:  # warm-up clicks are not counted
                        times["recorder"].append(rec)
                        times["bare"].append(raw)
                results[count, label] = times
        await recorder.close()
        await bare_context.close()
    return results


def report(results: Results) -> None:
    print(f"{'elements':>9} {'target':>6} {'listener':>9} {'median ms':>10} {'p95 ms':>8}")
    for (count, label), times in results.items():
        medians = {}
        for name, values in times.items():
            values = sorted(values)
            medians[name] = statistics.median(values)
            p95 = values[min(len(values) - 1, int(len(values) * 0.95))]
            print(f"{count:>9} {label:>6} {name:>9} {medians[name]:>10.2f} {p95:>8.2f}")
        added = medians["recorder"] - medians["bare"]
        ratio = medians["recorder"] / medians["bare"] if medians["bare"] else float("inf")
        verdict = "ok" if added <= GOAL_MS else "OVER GOAL"
        print(
            f"{count:>9} {label:>6} {'added':>9} {added:>10.2f} ms per event (median), ratio {ratio:.2f}x "
            f"(goal <= {GOAL_MS:.0f} ms: {verdict})"
        )
        report_figure(
            f"recorder: click to event in Python, {count:,} elements, {label} target",
            goal=f"<= {GOAL_MS:.0f} ms added",
            measured=added,
            unit="ms added",
            baseline=f"bare listener {medians['bare']:.2f} ms",
            ratio=ratio,
            command="python bench/record_overhead.py",
            met=added <= GOAL_MS,
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clicks", type=int, default=40)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/bench"
        report(asyncio.run(measure(url, [1_000, 20_000], args.clicks)))
    finally:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    main()
