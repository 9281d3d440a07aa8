"""Before a scripted step acts, its element must be ready for a person's hand: Playwright's own
actionability checks (``injectedScript.ts`` ``checkElementStates`` and ``expectHitTarget``), made
with the scripted demonstration's trusted input in mind (``record/automation.py``).

:func:`point_to_click` waits, within the step's timeout, until the one element the step's selector
designates is attached, visible, stable (its box unchanged across two animation frames) and
receiving events (the element or a descendant is what is hit at the centre of its visible part: an
overlay still closing is waited out), then gives the point the mouse presses. The checks run in
one evaluation (``actionable.js``): for a CSS selector the element is found in that evaluation,
and found again when the page replaced it with an identical one while the check waited (a live
page re-rendering a row); for any other Playwright selector through an element handle, found again
by the selector when it was replaced, at most :data:`MAX_REPLACED` times in a row
(``SR_RECORD_TARGET_REPLACED``). A step that times out names what it waited for
(``SR_RECORD_TARGET_NOT_ACTIONABLE``: not visible, not stable, covered by another element).

Every error names the step by its number and its ``do`` (:func:`step_failed`), never its selector
or text.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from importlib import resources
from typing import Any, Final

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import JSHandle, Page

from ..errors import InputError, RecordError, SkillreelError

FAILED: Final = "SR_RECORD_AUTOMATION_FAILED"
REPLACED: Final = "SR_RECORD_TARGET_REPLACED"
NOT_ACTIONABLE: Final = "SR_RECORD_TARGET_NOT_ACTIONABLE"
CAPTURE_FAILED: Final = "SR_RECORD_CAPTURE_FAILED"
# How many times in a row one step finds its element again after the page replaced it before the
# action reached it (nothing was done), within the step's timeout.
MAX_REPLACED: Final = 5
_RETRY_S: Final = 0.02

# What a step waited for when its timeout came, by the last state the check reported.
WAITED_FOR: Final = {
    "hidden": "it was not visible",
    "moving": "it was still moving (not stable)",
    "covered": "another element covered it (it was not receiving events)",
}


def step_failed(n: int, do: str, why: str, code: str = FAILED) -> RecordError:
    """The error of automation step ``n`` (its ``do``): content-free, with the step in details."""
    cls = InputError if code == FAILED else RecordError
    return cls(code, f"automation step {n} ({do}): {why}", details={"step": int(n), "do": do})


def naming(n: int, do: str, exc: SkillreelError) -> SkillreelError:
    """``exc`` (met while step ``n`` ran, raised by the recorder or the browser's end) naming it."""
    details = {**exc.details, "step": int(n), "do": do}
    return type(exc)(exc.code, f"automation step {n} ({do}): {exc.message}", details=details)


def playwright_failed(page: Page, n: int, do: str, exc: PlaywrightError) -> RecordError:
    """What a Playwright error during step ``n`` means: the browser or the page died
    (``SR_RECORD_CAPTURE_FAILED``), the page replaced the element mid-action, or another refusal."""
    browser = page.context.browser
    if page.is_closed() or (browser is not None and not browser.is_connected()):
        return step_failed(n, do, "the browser or the page went away", CAPTURE_FAILED)
    said = str(exc)
    if "not attached" in said or "detached" in said:
        return step_failed(n, do, "the page replaced its element while it was acted on", REPLACED)
    if "context was destroyed" in said or "navigat" in said:
        return step_failed(n, do, "the page navigated away while the step was acted on")
    return step_failed(n, do, "the browser refused the action")


@functools.cache
def _script(name: str = "actionable.js") -> str:
    return resources.files("skillreel.record").joinpath(name).read_text("utf-8")


async def point_to_click(
    page: Page, selector: str, *, n: int, do: str, timeout_ms: int
) -> tuple[float, float]:
    """Wait until the element ``selector`` designates is actionable; the point to press (above)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms / 1000
    css = True
    replaced = 0
    last = "hidden"
    while True:
        if css:
            found = await _check(page, {"element": None, "selector": selector})
            if found["state"] == "not-css":
                css = False
                continue
            if found["state"] == "missing":  # Playwright's selector engines pierce shadow roots
                found = await _check_handle(page, selector, n, do, deadline - loop.time())
        else:
            found = await _check_handle(page, selector, n, do, deadline - loop.time())
        state = found["state"]
        if state == "ok":
            return float(found["x"]), float(found["y"])
        if state == "several":
            raise step_failed(n, do, "its selector matches several elements")
        if state == "detached":
            replaced += 1
            if replaced > MAX_REPLACED:
                raise step_failed(
                    n,
                    do,
                    f"the page replaced its element {replaced} times before the action reached it; "
                    "nothing was done there",
                    REPLACED,
                )
        else:
            replaced = 0
            last = state
        if loop.time() >= deadline:
            raise step_failed(
                n,
                do,
                f"its element was not actionable within {timeout_ms} ms: {WAITED_FOR[last]}",
                NOT_ACTIONABLE,
            )
        if state != "detached":
            await asyncio.sleep(_RETRY_S)


async def click(page: Page, selector: str, *, n: int, do: str, timeout_ms: int) -> None:
    """Click the element ``selector`` designates once it is actionable. When the page replaced it
    between the button going down and up (the browser then sends no click at all: nothing was
    clicked), it is found again and pressed again, at most :data:`MAX_REPLACED` times."""
    for _ in range(MAX_REPLACED + 1):
        x, y = await point_to_click(page, selector, n=n, do=do, timeout_ms=timeout_ms)
        watch = await page.evaluate_handle(_script("press_watch.js"))
        try:
            await press_at(page, x, y)
            seen = await _stop(watch)
        finally:
            with contextlib.suppress(PlaywrightError):
                await watch.dispose()
        if seen is None or seen.get("clicked") or not seen.get("replaced"):
            return
    raise step_failed(
        n,
        do,
        f"the page replaced its element between the button going down and up {MAX_REPLACED + 1} times; "
        "nothing was clicked",
        REPLACED,
    )


async def _stop(watch: JSHandle) -> dict[str, Any] | None:
    """What the press watcher saw; None when the document went away (the click navigated)."""
    try:
        seen = await watch.evaluate(_script("press_stop.js"))
    except PlaywrightError:
        return None
    return seen if isinstance(seen, dict) else None


async def press_at(page: Page, x: float, y: float) -> None:
    """A trusted left click at (x, y): the pointer moves there, then the button goes down and up
    sent together, so a page re-rendering every few milliseconds cannot replace the element
    between them (Chromium runs input before timers; Playwright's ``mouse.click`` waits for the
    down to be handled before it sends the up, and the click is lost when the element is swapped
    meanwhile: the page never receives it)."""
    cdp = await page.context.new_cdp_session(page)
    try:
        at = {"x": x, "y": y}
        await cdp.send("Input.dispatchMouseEvent", {"type": "mouseMoved", **at, "button": "none"})
        button = {"button": "left", "clickCount": 1}
        await asyncio.gather(
            cdp.send("Input.dispatchMouseEvent", {"type": "mousePressed", **at, **button, "buttons": 1}),
            cdp.send("Input.dispatchMouseEvent", {"type": "mouseReleased", **at, **button, "buttons": 0}),
        )
    finally:
        with contextlib.suppress(PlaywrightError):
            await cdp.detach()


async def _check(page: Page, arg: dict[str, Any]) -> dict[str, Any]:
    try:
        result = await page.evaluate(_script(), arg)
    except PlaywrightError as exc:
        said = str(exc)
        if "not attached" in said or "detached" in said:
            return {"state": "detached"}
        if "context was destroyed" in said:  # a navigation replaced the document: look again
            return {"state": "hidden"}
        raise
    if not isinstance(result, dict) or "state" not in result:
        return {"state": "hidden"}
    return result


async def _check_handle(page: Page, selector: str, n: int, do: str, left_s: float) -> dict[str, Any]:
    """The checks on the element a Playwright (non-CSS) selector designates, through a handle."""
    locator = page.locator(selector)
    try:
        handle = await locator.element_handle(timeout=max(1, int(left_s * 1000)))
    except PlaywrightError as exc:
        if await _count(page, selector) > 1:
            raise step_failed(n, do, "its selector matches several elements") from exc
        raise step_failed(n, do, "its selector matches no element") from exc
    try:
        return await _check(page, {"element": handle, "selector": None})
    finally:
        with contextlib.suppress(PlaywrightError):
            await handle.dispose()


async def _count(page: Page, selector: str) -> int:
    try:
        return await page.locator(selector).count()
    except PlaywrightError:
        return 0
