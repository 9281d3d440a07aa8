"""The scripted waits and scrolls of a demonstration (``--automation``; issue 33): what the replay
engine runs, authored in the automation file.

* ``{"do": "wait", "url": PATTERN}``: waits until the page URL matches (the pattern as an
  assertion's ``url_matches`` reads it: a full URL, or a path with its query when it starts with
  ``/``; ``*`` matches any run of characters) and records a ``wait`` until ``url``;
* ``{"do": "wait", "selector": S, "text": TEXT}``: waits until the one element S designates holds
  TEXT (a literal, or ``{"input": NAME}``: the value an earlier ``type`` or ``select`` step gave
  input NAME, which the skill then waits for; never a sensitive input) and records that wait;
* ``{"do": "scroll", "selector": S, "to": "into-view" | "end", "maxRounds": N}``: scrolls the element
  into view, or scrolls a scroll container (``html`` for the page) with the mouse wheel until its
  end no longer grows (a lazy list loads more), at most N rounds, and records a ``scroll``;
* ``{"do": "assert", "absent": S, "text": TEXT}``: records, at that point of the skill, an
  ``absent`` assertion on the one element S designates (with ``text``: that it does not hold TEXT;
  without: that no element like it is on the page), performing nothing (issue 31.3);
* ``{"do": "assert", "selector": S, "check": "not_empty"}``: that the one element S designates
  shows a text or value (whatever it is); ``{"do": "assert", "selector": S, "check": "count",
  "atLeast": N, "atMost": M, "expected": K}``: that S designates that many elements (``expected``:
  exactly; or the bounds, one or both), S being the check's own selector (issue 33).

Each is performed with trusted input and then described by the recorder like any scripted mark;
a step that cannot be performed is ``SR_RECORD_AUTOMATION_FAILED`` naming the step, never the
selector, the text or the URL.
"""

from __future__ import annotations

import asyncio
import re
from importlib import resources
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, Protocol

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from pydantic import Field, model_validator

from ..errors import RecordError
from ..model.actions import Count, assert_shape_problem
from ..model.base import Document, ParamName
from ..model.limits import MAX_SCROLL_ROUNDS, MAX_SELECTOR_CHARS
from ..model.locators import LocatorBundle, LocatorCandidate
from .actionability import step_failed

if TYPE_CHECKING:
    from .recorder import Resolved

GROWN_WITHIN_S: Final = 1.0  # a list that has not grown for a second after a scroll is at its end
POLL_S: Final = 0.05


class InputText(Document):
    """The value an earlier ``type`` or ``select`` step gave input ``input`` (its parameter's name)."""

    input: ParamName


class ScrollStep(Document):
    """Scroll the one element ``selector`` designates into view, or (``to: "end"``) a scroll
    container (``html``: the page) to its end while it grows, at most ``maxRounds`` times."""

    do: Literal["scroll"]
    selector: Annotated[str, Field(min_length=1, max_length=MAX_SELECTOR_CHARS)]
    to: Literal["into-view", "end"] = "into-view"
    max_rounds: Annotated[int, Field(ge=1, le=MAX_SCROLL_ROUNDS)] = 20


class AssertStep(Document):
    """Check, at this point of the skill: that the element ``absent`` designates is not on the page
    (with ``text``: does not hold that text), or the ``check`` (``not_empty``, ``count``) on the
    element(s) ``selector`` designates: an assertion, recorded, not performed."""

    do: Literal["assert"]
    absent: Annotated[str, Field(min_length=1, max_length=MAX_SELECTOR_CHARS)] | None = None
    text: Annotated[str, Field(min_length=1, max_length=1024)] | None = None
    selector: Annotated[str, Field(min_length=1, max_length=MAX_SELECTOR_CHARS)] | None = None
    check: Literal["not_empty", "count"] | None = None
    expected: Count | None = None
    at_least: Count | None = None
    at_most: Count | None = None

    @model_validator(mode="after")
    def _shape(self) -> AssertStep:
        if (self.absent is None) == (self.selector is None):
            raise ValueError("an assert takes either absent or a selector")
        checked = (self.check, self.expected, self.at_least, self.at_most)
        if self.absent is not None and any(part is not None for part in checked):
            raise ValueError("an absent assert takes a text or nothing")
        if self.selector is not None:
            if self.check is None or self.text is not None:
                raise ValueError("an assert on a selector takes a check (not_empty or count)")
            problem = assert_shape_problem(self.check, True, self.expected, self.at_least, self.at_most)
            bounded = self.at_least is not None or self.at_most is not None
            if self.check == "count" and not bounded and self.expected is None:
                problem = "a count takes expected or atLeast/atMost"
            if problem:
                raise ValueError(problem)
        return self


AbsentStep = AssertStep  # its first form's name


class Marks(Protocol):
    """What these steps need of the recorder (``record.recorder.Recorder``)."""

    async def settle(self) -> None: ...

    async def waitable(self, selector: str) -> Resolved: ...

    async def resolve(self, selector: str, *, all_matches: bool = False) -> Resolved: ...

    def append_event(self, kind: str, **fields: Any) -> None: ...


def _failed(n: int, why: str) -> RecordError:
    return step_failed(n, getattr(n, "do", "step"), why)


async def authored_wait(
    page: Page,
    n: int,
    selector: str | None,
    url: str | None,
    text: str | InputText | None,
    timeout_ms: int,
    marks: Marks,
) -> None:
    """A wait until the page URL matches ``url``, or until the element ``selector`` holds ``text``."""
    if url is not None:
        await _until(lambda: url_matches(page.url, url), n, timeout_ms, "the page URL never matched")
        await marks.settle()
        marks.append_event("wait", until="url", expected=url)
        return
    assert selector is not None
    assert text is not None
    wanted = text if isinstance(text, str) else await _input_value(page, text, n)
    try:
        held = page.locator(selector, has_text=wanted).first
        await held.wait_for(state="visible", timeout=timeout_ms)
    except PlaywrightTimeoutError as exc:
        raise _failed(n, "its element never held the text") from exc
    except PlaywrightError as exc:
        raise _failed(n, "its selector is not valid") from exc
    found = await _described(marks, selector, n)
    await marks.settle()
    if isinstance(text, str):
        marks.append_event("wait", until="text", target=found, expected=text)
    else:
        marks.append_event("wait", until="text", target=found, input=text.input)


async def authored_absent(step: AssertStep, n: int, marks: Marks) -> None:
    """The element as the recorder describes it now (it must be on the page to be described)."""
    if step.selector is not None:
        await authored_check(step, step.selector, n, marks)
        return
    assert step.absent is not None
    found = await _described(marks, step.absent, n)
    await marks.settle()
    marks.append_event("assert", target=found, check="absent", expected=step.text)


async def authored_check(step: AssertStep, selector: str, n: int, marks: Marks) -> None:
    """A ``not_empty`` check on the one element ``selector`` designates, found without its content
    (the text it shows now is not what the check is about); or a ``count`` whose target is
    ``selector`` itself (the first element describes the rest), as an assertions file's is."""
    if step.check == "not_empty":
        target = (await _described(marks, selector, n)).without_content()
        if target is None:
            raise _failed(n, "its element can only be found by its text, which the check is about")
        await marks.settle()
        marks.append_event("assert", target=target, check="not_empty")
        return
    found = await marks.resolve(selector, all_matches=True)
    if found.count < 0:
        raise _failed(n, "its selector is not valid")
    if found.target is None:
        why = "its element cannot be described" if found.count else "its selector matches no element"
        raise _failed(n, why)
    own = LocatorCandidate(strategy="css", selector=selector, match_count=found.count)
    target = LocatorBundle(candidates=(own,), fingerprint=found.target.fingerprint)
    await marks.settle()
    marks.append_event(
        "assert",
        target=target,
        check="count",
        expected=step.expected,
        at_least=step.at_least,
        at_most=step.at_most,
    )


async def _input_value(page: Page, text: InputText, n: int) -> str:
    """The value the field named ``text.input`` (its ``name`` or ``id``) holds now."""
    field = page.locator(f'[name="{text.input}"], [id="{text.input}"]').first
    try:
        value = await field.input_value(timeout=1_000)
    except PlaywrightError as exc:
        raise _failed(n, "no field on the page is named after its input") from exc
    if not value:
        raise _failed(n, "its input's field is empty")
    return value


async def scroll(page: Page, step: ScrollStep, n: int, timeout_ms: int, marks: Marks) -> None:
    """Scroll ``step.selector`` into view, or to its end while it grows; then record it."""
    locator = page.locator(step.selector)
    try:
        await locator.first.wait_for(state="visible", timeout=timeout_ms)
        found = await _described(marks, step.selector, n)
        element = locator.first
        if step.to == "into-view":
            await element.scroll_into_view_if_needed(timeout=timeout_ms)
        else:
            await _to_end(page, element, step.max_rounds)
    except PlaywrightTimeoutError as exc:
        raise _failed(n, "its element never became visible") from exc
    except PlaywrightError as exc:
        raise _failed(n, "its element could not be scrolled") from exc
    await marks.settle()
    marks.append_event("scroll", target=found, to=step.to, maxRounds=step.max_rounds)


async def _to_end(page: Page, element: Any, rounds: int) -> None:
    """Wheel over ``element`` until its end is shown and it has not grown for a second."""
    extent = _extent_script()
    await element.hover()
    for _ in range(rounds):
        shown, height = await element.evaluate(extent)
        await page.mouse.wheel(0, max(height - shown, 1) + 100)
        deadline = asyncio.get_running_loop().time() + GROWN_WITHIN_S
        while asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(POLL_S)
            if (await element.evaluate(extent))[1] > height:
                break
        else:
            return  # at its end, and it did not grow


async def _described(marks: Marks, selector: str, n: int) -> Any:
    found = await marks.waitable(selector)
    if found.count != 1:
        many = f"its selector matches {found.count} elements"
        raise _failed(n, many if found.count else "its selector matches no element")
    if found.target is None:
        raise _failed(n, "its element cannot be described without text typed during the recording")
    return found.target


async def _until(holds: Any, n: int, timeout_ms: int, why: str) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_ms / 1000
    while not holds():
        if asyncio.get_running_loop().time() >= deadline:
            raise _failed(n, why)
        await asyncio.sleep(POLL_S)


def url_matches(url: str, pattern: str) -> bool:
    """``pattern`` as the replay's ``url_matches`` reads it, on the URL as the page shows it (the
    replay normalises both with the skill's query-key rule first)."""
    subject = url
    if pattern.startswith("/"):
        subject = "/" + url.partition("://")[2].partition("/")[2]
    return re.fullmatch(".*".join(map(re.escape, pattern.split("*"))), subject) is not None


def _extent_script() -> str:
    return resources.files("skillreel.record").joinpath("scroll_extent.js").read_text("utf-8")
