"""Scripted demonstrations (``--automation``) and assertion files (``--assertions``).

A scripted demonstration is performed with **trusted** input only, so the recorder captures it
exactly as it would a person (ARCHITECTURE sections 6 and 11):

* ``click``: wait for the one visible element the Playwright selector designates, scroll it into
  view and press the mouse at the centre of its box (``page.mouse.click``);
* ``type``: click the field the same way, select its content with the keyboard and type the text
  (``page.keyboard``), so the field's final value is exactly the text;
* ``select``: focus the ``<select>`` and move to the option with arrow keys (Playwright's
  ``select_option`` dispatches untrusted events, which the recorder ignores by design);
* ``press``: ``page.keyboard.press``; ``goto``: ``page.goto`` (an address-bar navigation);
  ``wait``: a pause.

Selectors in the file drive the demonstration only; the recorder generates its own. A step that
cannot be performed (no element, several elements, a failed load) is
``SR_RECORD_AUTOMATION_FAILED`` naming the step number, never the selector or the text.

Assertion files name CSS selectors, resolved at the end of the recording in the recorder's
isolated world (``SkillreelRecorder.resolve``) and described like any recorded target.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Annotated, Final, Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from pydantic import Field, StringConstraints, field_validator, model_validator

from ..errors import InputError
from ..model.actions import AssertCheck, ExpectedText
from ..model.base import Document
from ..model.limits import MAX_SELECT_VALUE_CHARS, MAX_SELECTOR_CHARS, MAX_TYPE_VALUE_CHARS, MAX_URL_CHARS
from ..model.urls import URLRuleError, check_transport

FAILED: Final = "SR_RECORD_AUTOMATION_FAILED"
MAX_STEPS: Final = 1024
MAX_ASSERTIONS: Final = 64

Selector = Annotated[str, StringConstraints(min_length=1, max_length=MAX_SELECTOR_CHARS)]


class GotoStep(Document):
    do: Literal["goto"]
    url: Annotated[str, StringConstraints(min_length=1, max_length=MAX_URL_CHARS)]

    @field_validator("url")
    @classmethod
    def _transport(cls, url: str) -> str:
        try:
            check_transport(url)
        except URLRuleError as exc:
            raise ValueError(str(exc)) from None
        return url


class ClickStep(Document):
    do: Literal["click"]
    selector: Selector


class TypeStep(Document):
    do: Literal["type"]
    selector: Selector
    text: Annotated[str, StringConstraints(max_length=MAX_TYPE_VALUE_CHARS)]


class SelectStep(Document):
    do: Literal["select"]
    selector: Selector
    value: Annotated[str, StringConstraints(max_length=MAX_SELECT_VALUE_CHARS)]


class PressStep(Document):
    do: Literal["press"]
    key: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9+]{1,32}$")]


class WaitStep(Document):
    do: Literal["wait"]
    ms: Annotated[int, Field(ge=0, le=30_000)]


Step = Annotated[
    GotoStep | ClickStep | TypeStep | SelectStep | PressStep | WaitStep, Field(discriminator="do")
]


class AutomationScript(Document):
    """``{"steps": [...]}`` (ARCHITECTURE section 11)."""

    steps: tuple[Step, ...] = Field(min_length=1, max_length=MAX_STEPS)


class AssertionSpec(Document):
    """One entry of an assertions file: an ``observe`` or an ``assert`` with its check."""

    kind: Literal["observe", "assert"]
    selector: Selector | None = None
    check: AssertCheck | None = None
    expected: ExpectedText | Annotated[int, Field(ge=0, le=100_000)] | None = None

    @model_validator(mode="after")
    def _shape(self) -> AssertionSpec:
        problem = _assertion_problem(self)
        if problem:
            raise ValueError(problem)
        return self


def _assertion_problem(a: AssertionSpec) -> str | None:
    if a.kind == "observe":
        if a.selector is None or a.check is not None or a.expected is not None:
            return "an observe takes a selector only"
        return None
    if a.check is None:
        return "an assert needs a check"
    if (a.check == "url_matches") == (a.selector is not None):
        return "url_matches takes no selector; every other check needs one"
    if a.check == "visible":
        return "visible takes no expected value" if a.expected is not None else None
    if a.check == "count":
        return None if isinstance(a.expected, int) else "count expects an integer"
    return None if isinstance(a.expected, str) else f"{a.check} expects a text"


class AssertionsFile(Document):
    """``{"assertions": [...]}`` (ARCHITECTURE section 11)."""

    assertions: tuple[AssertionSpec, ...] = Field(min_length=1, max_length=MAX_ASSERTIONS)


# ---- performing a script -------------------------------------------------------------------------


def _failed(n: int, why: str) -> InputError:
    return InputError(FAILED, f"automation step {n}: {why}")


async def _one_visible(page: Page, selector: str, n: int, timeout_ms: int) -> Locator:
    locator = page.locator(selector)
    try:
        await locator.wait_for(state="visible", timeout=timeout_ms)
    except PlaywrightTimeoutError as exc:
        raise _failed(n, "its selector matches no visible element") from exc
    except PlaywrightError as exc:
        count = await _count(locator)
        why = f"its selector matches {count} elements" if count > 1 else "its selector is not valid"
        raise _failed(n, why) from exc
    return locator


async def _count(locator: Locator) -> int:
    try:
        return await locator.count()
    except PlaywrightError:
        return 0


async def _click_centre(page: Page, locator: Locator, n: int, timeout_ms: int) -> None:
    await locator.scroll_into_view_if_needed(timeout=timeout_ms)
    box = await locator.bounding_box(timeout=timeout_ms)
    if box is None or box["width"] <= 0 or box["height"] <= 0:
        raise _failed(n, "its element has no visible box to click")
    await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


@functools.cache
def _option_plan() -> str:
    return resources.files("skillreel.record").joinpath("select_plan.js").read_text("utf-8")


async def _choose(page: Page, locator: Locator, value: str, n: int) -> None:
    """Move a focused single ``<select>`` to ``value`` with arrow keys (trusted input)."""
    where = await locator.evaluate(_option_plan(), value)
    if where is None:
        raise _failed(n, "its element is not a single-choice <select>")
    if where["to"] < 0:
        raise _failed(n, "its <select> has no enabled option with that value")
    await locator.focus()
    delta = where["to"] - max(where["at"], 0) if where["at"] >= 0 else where["to"] + 1
    key = "ArrowDown" if delta >= 0 else "ArrowUp"
    for _ in range(abs(delta)):
        await page.keyboard.press(key)
    if await locator.input_value() != value:
        raise _failed(n, "the option could not be chosen with the keyboard")


async def perform(
    page: Page,
    script: AutomationScript,
    *,
    timeout_ms: int,
    between: Callable[[], Awaitable[None]] | None = None,
    inputs_done: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Perform ``script`` on ``page`` with trusted input; ``between`` runs before each step.
    ``inputs_done`` runs once, before the step that follows the script's last ``type`` or
    ``select`` step (before the first step when it has none; never when that is the last step):
    from then on the recording's parameters are known, and the steps that usually act on the site
    (a submitting click) have not run yet."""
    last_input = max(
        (n for n, step in enumerate(script.steps, start=1) if isinstance(step, TypeStep | SelectStep)),
        default=0,
    )
    for n, step in enumerate(script.steps, start=1):
        if between is not None:
            await between()
        if n == last_input + 1 and inputs_done is not None:
            await inputs_done()
        try:
            await _perform(page, step, n, timeout_ms)
        except PlaywrightTimeoutError as exc:
            raise _failed(n, "it did not finish in time") from exc


async def _perform(page: Page, step: Step, n: int, timeout_ms: int) -> None:
    if isinstance(step, GotoStep):
        try:
            await page.goto(step.url, wait_until="load", timeout=timeout_ms)
        except PlaywrightError as exc:
            raise _failed(n, "the page could not be loaded") from exc
    elif isinstance(step, WaitStep):
        await asyncio.sleep(step.ms / 1000)
    elif isinstance(step, PressStep):
        try:
            await page.keyboard.press(step.key)
        except PlaywrightError as exc:
            raise _failed(n, "the key is not one Playwright knows") from exc
    else:
        locator = await _one_visible(page, step.selector, n, timeout_ms)
        if isinstance(step, SelectStep):
            await _choose(page, locator, step.value, n)
            return
        await _click_centre(page, locator, n, timeout_ms)
        if isinstance(step, TypeStep):
            await page.keyboard.press("ControlOrMeta+A")
            await page.keyboard.press("Delete")
            await page.keyboard.type(step.text)
