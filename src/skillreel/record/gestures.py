"""The scripted hovers and uploads of a demonstration (``--automation``; issue 32).

* ``{"do": "hover", "selector": S}``: rests the pointer on the one visible element S designates
  (Playwright's hover: trusted mouse movement), waits for the page to settle and records a
  ``hover`` step on it (a menu that opens on hover: the next step clicks inside it);
* ``{"do": "upload", "selector": S, "file": PATH}``: sets the one ``<input type=file>`` S designates
  to the file PATH (a regular file, not a symlink, at most 25 MB: refused before anything is done
  otherwise). The browser sets it, so the recorder sees the file chosen as it sees a person's
  choice (``recorder.js``: an ``upload`` event, nothing of the file) and the skill gets an
  ``upload`` step with a ``file`` input; the file's name and content are never recorded.

A step that cannot be performed is ``SR_RECORD_AUTOMATION_FAILED`` naming the step, never the
selector or the path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from pydantic import Field

from ..errors import RecordError
from ..model.base import Document
from ..model.limits import MAX_SELECTOR_CHARS
from ..user_files import upload_problem
from .actionability import step_failed

if TYPE_CHECKING:
    from .recorder import Resolved

Selector = Annotated[str, Field(min_length=1, max_length=MAX_SELECTOR_CHARS)]
FILE_INPUT = "input[type=file]"


class HoverStep(Document):
    """Rest the pointer on the one visible element ``selector`` designates."""

    do: Literal["hover"]
    selector: Selector


class UploadStep(Document):
    """Set the one file input ``selector`` designates to the file ``file``."""

    do: Literal["upload"]
    selector: Selector
    file: Annotated[str, Field(min_length=1, max_length=4096)]


class Marks(Protocol):
    """What these steps need of the recorder (``record.recorder.Recorder``)."""

    async def settle(self) -> None: ...

    async def flush(self) -> None: ...

    async def waitable(self, selector: str) -> Resolved: ...

    @property
    def events(self) -> tuple[Any, ...]: ...

    def append_event(self, kind: str, **fields: Any) -> None: ...


def _failed(n: int, why: str) -> RecordError:
    return step_failed(n, getattr(n, "do", "step"), why)


async def hover(page: Page, step: HoverStep, n: int, timeout_ms: int, marks: Marks) -> None:
    """Hover the element, once it is visible and described; then record the hover."""
    element = page.locator(step.selector).first
    try:
        await element.wait_for(state="visible", timeout=timeout_ms)
        found = await marks.waitable(step.selector)
        if found.count != 1:
            raise _failed(n, f"its selector matches {found.count} elements")
        if found.target is None:
            raise _failed(n, "its element cannot be described without text typed during the recording")
        await element.hover(timeout=timeout_ms)
    except PlaywrightTimeoutError as exc:
        raise _failed(n, "its element never became visible and hoverable") from exc
    except PlaywrightError as exc:
        raise _failed(n, "its element could not be hovered") from exc
    await marks.settle()
    marks.append_event("hover", target=found.target)


async def upload(page: Page, step: UploadStep, n: int, timeout_ms: int, marks: Marks) -> None:
    """Check the file, set the file input to it, and wait for the recorder to see it chosen."""
    problem = upload_problem(step.file, None)
    if problem is not None:
        raise _failed(n, f"its file {problem[1].removeprefix('names ')}")
    inputs = page.locator(step.selector).and_(page.locator(FILE_INPUT))
    before = len(marks.events)
    try:
        await inputs.first.wait_for(state="attached", timeout=timeout_ms)
        if await inputs.count() != 1:
            raise _failed(n, "its selector matches several file inputs")
        await inputs.set_input_files(step.file, timeout=timeout_ms)
    except PlaywrightTimeoutError as exc:
        raise _failed(n, "its selector matches no file input") from exc
    except PlaywrightError as exc:
        raise _failed(n, "its file input could not be set") from exc
    await marks.settle()
    await marks.flush()
    if not any(e.type == "upload" for e in marks.events[before:]):
        raise _failed(n, "the recorder did not see the file chosen (a file input it cannot describe)")


async def gesture(page: Page, step: HoverStep | UploadStep, n: int, timeout_ms: int, marks: Marks) -> None:
    """Perform and record a scripted hover or upload."""
    if isinstance(step, HoverStep):
        await hover(page, step, n, timeout_ms, marks)
    else:
        await upload(page, step, n, timeout_ms, marks)
