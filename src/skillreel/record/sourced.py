"""Automation field edits whose value an earlier ``extract`` step reads (``"from"``; issue 33).

``{"do": "type", "selector": S, "from": "order_id"}`` types what the script's earlier
``{"do": "extract", ..., "as": "order_id"}`` reads, read now in the page as replay will read it
(its text, whitespace-normalised; its value; or its attribute; through its pattern); a
``select`` with ``from`` chooses the option of that label. The recorder marks the edit as that
output's (``CaptureLog.value_from``), so the recorded step types the output at replay, never a
parameter. The value read stays in memory (a typed value, scrubbed like any other).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from .actionability import step_failed

if TYPE_CHECKING:
    from .automation import SelectStep, TypeStep


class ValueMarks(Protocol):
    def value_from(self, output: str | None) -> None: ...

    async def flush(self) -> None: ...


async def from_output(
    page: Page, earlier: Sequence[Any], step: TypeStep | SelectStep, n: int, timeout_ms: int
) -> TypeStep | SelectStep:
    """``step`` with the text (a type) or the label (a select) its ``from`` output reads now."""
    source = next(
        (s for s in reversed(earlier) if getattr(s, "do", None) == "extract" and s.as_ == step.from_), None
    )
    if source is None or source.all or source.read in ("presence", "count"):
        raise step_failed(n, step.do, "no earlier extract step of the script reads one value into its output")
    element = page.locator(source.selector).first
    try:
        await element.wait_for(state="visible", timeout=timeout_ms)
    except PlaywrightTimeoutError as exc:
        raise step_failed(n, step.do, "the element its output is read from is not on the page") from exc
    if source.attr is not None:
        value = await element.get_attribute(source.attr) or ""
    elif source.read == "value":
        value = await element.input_value()
    else:
        value = " ".join((await element.inner_text()).split())
    if source.pattern is not None:
        found = re.search(source.pattern, value)
        value = "" if found is None else (found.group(1) if found.groups() else found.group(0)) or ""
    return step.model_copy(update={"text": value} if step.do == "type" else {"label": value})


async def marked_from(marks: ValueMarks, output: str | None, edit: Awaitable[None]) -> None:
    """Perform ``edit`` with the recorder marking the field edits it makes as ``output``'s."""
    marks.value_from(output)
    try:
        await edit
        await marks.flush()  # the edit's report has reached the log
    finally:
        marks.value_from(None)
