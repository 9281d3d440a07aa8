"""The codegen-style Playwright baseline.

Recording performs the same demonstration as skillreel's (same selectors, same pauses) and asks
Playwright's own locator generator for every element it acts on: ``Locator.normalize()`` runs the
injected script's ``generateSelectorSimple``, the generator ``playwright codegen`` and the
inspector's "pick locator" use, and ``str()`` of the result is the Python code codegen would write
(``get_by_role("button", name="Save")``, ``get_by_label("Title:")``, ``get_by_text(...)``, or a CSS
``locator(...)`` when nothing better exists). The recording is written as a codegen-style script:
``fill`` for typing, ``select_option`` for lists, ``check`` for check boxes and radios, a click on
a popup picker's combobox then on its option by name (``get_by_role("option", name=...)``), ``click``
otherwise, ``press`` on the focused element, ``expect(...).to_contain_text`` for a final check.

It is then parameterised the way a person turns a codegen script into a reusable function: every
typed value becomes ``inputs["name"]``, and a recorded value that appears inside a generated
locator (the link of a search result named after the query) becomes the same input. The replay
runs that script with the other inputs, headless, in the same Chromium and viewport as skillreel,
with the same 10 s timeout per action and check.
"""

from __future__ import annotations

import json
import re
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, Playwright, ViewportSize, expect, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from skillreel.sandbox.chromium import find_chromium

from .skillreel_tool import DEMO_END_MS, DEMO_PAUSE_MS
from .spec import Choose, Click, Fill, Pick, Press, Task

TIMEOUT_MS = 10_000
VIEWPORT: ViewportSize = {"width": 1280, "height": 800}
_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
MIN_SUBSTITUTED_CHARS = 3


@dataclass(frozen=True)
class Script:
    ok: bool
    detail: str
    path: Path | None = None


@dataclass(frozen=True)
class Ran:
    ok: bool
    detail: str


def parameterise(code: str, inputs: Mapping[str, str], sensitive: frozenset[str]) -> str:
    """Turn recorded values inside the string literals of ``code`` into ``inputs[...]``."""
    values = sorted(
        ((v, k) for k, v in inputs.items() if k not in sensitive and len(v) >= MIN_SUBSTITUTED_CHARS),
        key=lambda p: -len(p[0]),
    )

    def literal(match: re.Match[str]) -> str:
        text = match.group(0)
        for value, name in values:
            escaped = json.dumps(value, ensure_ascii=False)[1:-1]
            if escaped in text:
                return text.replace(escaped, f'" + inputs[{json.dumps(name)}] + "')
        return text

    return _LITERAL.sub(literal, code)


def _browser_page(playwright: Playwright) -> tuple[Browser, Page]:
    browser = playwright.chromium.launch(executable_path=str(find_chromium(headless=True)), headless=True)
    page = browser.new_context(viewport=VIEWPORT).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    expect.set_options(timeout=TIMEOUT_MS)
    return browser, page


def _generated(locator: Locator) -> str:
    locator.wait_for(state="visible")
    return str(locator.normalize())


def _is_toggle(locator: Locator) -> bool:
    return bool(
        locator.evaluate(
            "e => e instanceof HTMLInputElement && (e.type === 'checkbox' || e.type === 'radio')"
        )
    )


def record(task: Task, url: str, out: Path) -> Script:
    """Demonstrate ``task`` on ``url`` and write the parameterised codegen-style script to ``out``."""
    lines = [f"page.goto({json.dumps(url)})"]
    try:
        with sync_playwright() as playwright:
            browser, page = _browser_page(playwright)
            try:
                page.goto(url)
                for step in task.steps:
                    lines.append(_demonstrate(page, step, task))
                page.wait_for_timeout(DEMO_END_MS)
                for check in task.checks:
                    code = parameterise(_generated(page.locator(check.selector)), task.record, task.sensitive)
                    lines.append(f"expect(page.{code}).to_contain_text({json.dumps(check.expected)})")
            finally:
                browser.close()
    except PlaywrightError as exc:
        return Script(False, "recording failed: " + _first_line(exc))
    out.write_text(script_source(task.summary, lines))
    return Script(True, "recorded", out)


def script_source(summary: str, lines: list[str]) -> str:
    """The script's text. It imports ``re`` as codegen's own scripts do: a generated locator may
    filter by a regular expression (``filter(has_text=re.compile(r"^$"))`` for an icon-only link)."""
    body = "\n".join("    " + line for line in lines)
    return (
        f'"""{summary}: codegen-style baseline (locators from Locator.normalize())."""\n\n'
        f"import re\n\n\ndef run(page, inputs, expect):\n{body}\n"
    )


def _demonstrate(page: Page, step: object, task: Task) -> str:
    if isinstance(step, Press):
        code = _generated(page.locator("*:focus"))
        page.keyboard.press(step.key)
        page.wait_for_timeout(DEMO_PAUSE_MS)
        return f"page.{parameterise(code, task.record, task.sensitive)}.press({json.dumps(step.key)})"
    assert isinstance(step, Fill | Choose | Pick | Click)
    locator = page.locator(step.selector)
    code = "page." + parameterise(_generated(locator), task.record, task.sensitive)
    if isinstance(step, Pick):
        return _pick(page, locator, code, step, task)
    if isinstance(step, Fill):
        locator.fill(task.record[step.input])
        return f"{code}.fill(inputs[{json.dumps(step.input)}])"
    if isinstance(step, Choose):
        locator.select_option(task.record[step.input])
        return f"{code}.select_option(inputs[{json.dumps(step.input)}])"
    verb = "check" if _is_toggle(locator) else "click"
    getattr(locator, verb)()
    page.wait_for_timeout(DEMO_PAUSE_MS)
    return f"{code}.{verb}()"


def _pick(page: Page, combobox: Locator, code: str, step: Pick, task: Task) -> str:
    """Open the picker by its generated locator, click the option named after the input: two
    lines, the option's name turned into the input as a person parameterising the script does."""
    combobox.click()
    page.get_by_role("option", name=task.record[step.input], exact=True).click()
    page.wait_for_timeout(DEMO_PAUSE_MS)
    return f"{code}.click()\n    {pick_option_code(step.input)}"


def pick_option_code(name: str) -> str:
    return f'page.get_by_role("option", name=inputs[{json.dumps(name)}], exact=True).click()'


def replay(script: Path, inputs: Mapping[str, str]) -> Ran:
    namespace: dict[str, object] = {}
    exec(compile(script.read_text(), str(script), "exec"), namespace)
    run = namespace["run"]
    try:
        with sync_playwright() as playwright:
            browser, page = _browser_page(playwright)
            try:
                run(page, dict(inputs), expect)  # type: ignore[operator]
            finally:
                browser.close()
    except AssertionError as exc:
        return Ran(False, "check failed: " + _first_line(exc))
    except PlaywrightError as exc:
        return Ran(False, _first_line(exc))
    except Exception as exc:
        return Ran(False, f"{type(exc).__name__}: {traceback.format_exception_only(exc)[-1].strip()}")
    return Ran(True, "succeeded")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:160] if text else type(exc).__name__
