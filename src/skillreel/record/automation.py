"""Scripted demonstrations (``--automation``) and assertion files (``--assertions``).

A scripted demonstration is performed with **trusted** input only, so the recorder captures it
exactly as it would a person (ARCHITECTURE sections 6 and 11):

* ``click``: wait for the one visible element the Playwright selector designates until it is
  actionable (attached, visible, stable, receiving events: :mod:`skillreel.record.actionability`)
  and press the mouse at the centre of its visible box;
* ``type``: click the field the same way, select its content with the keyboard and type the text
  (``page.keyboard``), so the field's final value is exactly the text;
* ``select``: focus the ``<select>`` and move to the option (by ``value``, or by visible
  ``label``) with arrow keys (Playwright's ``select_option`` dispatches untrusted events, which the
  recorder ignores by design); on a popup picker (``role=combobox``, ``aria-haspopup=listbox``)
  with ``label``: click it, then click its one visible option of that accessible name once the
  option is stable (the recorder keeps one ``choose`` step);
* ``press``: ``page.keyboard.press``; ``goto``: ``page.goto`` (an address-bar navigation);
  ``wait`` with ``ms``: a pause.

Schema v2 steps (issue 12) mark what a person would mark; they are recorded, not performed on the
page:

* ``extract``: ``{"do": "extract", "selector": S, "as": NAME}`` with optional ``type``, ``attr``
  (``href``, ``title``, ``datetime``, ``aria-*``, ``data-*``), ``read`` (``text``, ``value``,
  ``presence``; ``count`` with ``all``) and ``pattern`` reads the one element S designates; with
  ``"all": true`` S designates every item of a list and ``fields`` (``{"f": S2}``, S2 relative to
  an item, ``""`` for the item itself; or ``{"selector": S2, "type", "attr", "pattern",
  "optional"}``) names what each item gives, up to ``limit`` items (default 100);
* ``wait`` with ``selector``: waits until the element appears (or, with ``"until":
  "disappears"``, until it is gone) and records that wait; with ``text`` too, until its text holds
  it; with ``url``, until the page URL matches (``record.scripted``);
* ``scroll``: the element into view, or a scroll container to its end while it grows
  (``record.scripted``);
* ``dialog``: ``{"do": "dialog", "accept": true|false}`` answers the alert or confirm the previous
  step opens (the answer is armed before that step runs);
* ``hover`` and ``upload`` (issue 32): ``record.gestures``.

Selectors in the file drive the demonstration only; the recorder generates its own. A step that
cannot be performed (no element, several elements, a failed load) is
``SR_RECORD_AUTOMATION_FAILED`` naming the step number and its ``do`` (``details``: ``step``,
``do``), never the selector or the text; an element that never became actionable, or was replaced
too often, has its own code (``actionability``); the browser or the page that died is
``SR_RECORD_CAPTURE_FAILED``. After a step that acts, a navigation it started is waited for
(``after_action``) before the next step. A step that records nothing is a warning.

Assertion files (``record.assertion_file``) name CSS selectors, resolved at the end of the recording
in the recorder's isolated world (``SkillreelRecorder.resolve``) and described like any recorded target.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, Protocol

from playwright.async_api import Dialog, Locator, Page
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from pydantic import Field, StringConstraints, ValidationError, field_validator, model_validator

from ..errors import RecordError, SkillreelError
from ..model.actions import Retry
from ..model.base import Document, ParamName
from ..model.events import Extraction
from ..model.limits import MAX_SELECT_VALUE_CHARS, MAX_SELECTOR_CHARS, MAX_TYPE_VALUE_CHARS, MAX_URL_CHARS
from ..model.reads import AttributeName, FieldSpec, Pattern
from ..model.refs import OutputName
from ..model.urls import URLRuleError, check_transport
from ..model.values import ValueType
from .actionability import click, naming, playwright_failed, step_failed
from .assertion_file import AssertionsFile as AssertionsFile  # their first home: re-exported
from .assertion_file import AssertionSpec as AssertionSpec
from .binding import Over
from .gestures import HoverStep, UploadStep, gesture
from .scripted import AssertStep, InputText, ScrollStep, authored_absent, authored_wait, scroll
from .scripted_pages import Pages, PageStep, download_click, refused_on_popup
from .sourced import from_output, marked_from

if TYPE_CHECKING:
    from .recorder import Extractable, Resolved

FAILED: Final = "SR_RECORD_AUTOMATION_FAILED"
CAPTURE_FAILED: Final = "SR_RECORD_CAPTURE_FAILED"
MAX_STEPS: Final = 1024

Selector = Annotated[str, StringConstraints(min_length=1, max_length=MAX_SELECTOR_CHARS)]


class GotoStep(Document):
    do: Literal["goto"]
    url: Annotated[str, StringConstraints(min_length=1, max_length=MAX_URL_CHARS)]
    retry: Retry | None = None  # the recorded step's (issue 33; also on wait and extract)

    @field_validator("url")
    @classmethod
    def _transport(cls, url: str) -> str:
        try:
            check_transport(url)
        except URLRuleError as exc:
            raise ValueError(str(exc)) from None
        return url


class ClickStep(Document):
    """A click; with ``by`` (an input an earlier ``type`` or ``select`` step made), the recorded
    target is the element like this one, or of the row like its row (``over``), showing that input."""

    do: Literal["click"]
    selector: Selector
    by: ParamName | None = None
    over: Over = "rows"
    download: OutputName | None = None  # the click downloads a file kept as this output


class TypeStep(Document):
    """Type ``text``, or (``from``, issue 33) what an earlier ``extract`` step of the script reads:
    the recorded step then types that output at replay, never a parameter."""

    do: Literal["type"]
    selector: Selector
    text: Annotated[str, StringConstraints(max_length=MAX_TYPE_VALUE_CHARS)] | None = None
    from_: OutputName | None = Field(None, alias="from")

    @model_validator(mode="after")
    def _shape(self) -> TypeStep:
        if (self.text is None) == (self.from_ is None):
            raise ValueError("a type takes either text or from")
        return self


OptionLabel = Annotated[str, StringConstraints(min_length=1, max_length=MAX_SELECT_VALUE_CHARS)]


class SelectStep(Document):
    """Choose an option of a ``<select>`` by ``value`` or visible ``label``, or of a popup picker
    (a combobox) by ``label``, its accessible name: exactly one of the two. A list of labels
    chooses each in turn in a multi-select picker (one ``choose`` step each)."""

    do: Literal["select"]
    selector: Selector
    value: Annotated[str, StringConstraints(max_length=MAX_SELECT_VALUE_CHARS)] | None = None
    label: OptionLabel | tuple[OptionLabel, ...] | None = Field(default=None)
    from_: OutputName | None = Field(None, alias="from")  # the label an earlier extract reads

    @field_validator("label")
    @classmethod
    def _labels(cls, label: str | tuple[str, ...] | None) -> str | tuple[str, ...] | None:
        if isinstance(label, tuple) and not 1 <= len(label) <= 64:
            raise ValueError("a list of labels holds 1 to 64 labels")
        return label

    @model_validator(mode="after")
    def _shape(self) -> SelectStep:
        if [self.value is not None, self.label is not None, self.from_ is not None].count(True) != 1:
            raise ValueError("a select takes one of value, label or from")
        return self


class PressStep(Document):
    do: Literal["press"]
    key: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9+]{1,32}$")]


class WaitStep(Document):
    """A pause (``ms``); a wait until the element ``selector`` appears or disappears, or until its
    text holds ``text`` (a literal, or ``{"input": NAME}``); or until the page URL matches ``url``
    (an assertion's ``url_matches`` pattern: a full URL or a path, ``*`` any run of characters)."""

    do: Literal["wait"]
    ms: Annotated[int, Field(ge=0, le=30_000)] | None = None
    selector: Selector | None = None
    until: Literal["appears", "disappears"] | None = None
    url: Annotated[str, StringConstraints(min_length=1, max_length=1024)] | None = None
    text: Annotated[str, StringConstraints(min_length=1, max_length=1024)] | InputText | None = None
    retry: Retry | None = None

    @model_validator(mode="after")
    def _shape(self) -> WaitStep:
        if [self.ms is not None, self.selector is not None, self.url is not None].count(True) != 1:
            raise ValueError("a wait takes one of ms, a selector or a url")
        if self.until is not None and self.selector is None:
            raise ValueError("only a wait on a selector waits until it appears or disappears")
        if self.text is not None and (self.selector is None or self.until is not None):
            raise ValueError("a wait for a text takes a selector and no until")
        if self.retry is not None and self.ms is not None:
            raise ValueError("a pause does not retry")
        return self


class FieldSelector(Document):
    """One field of each item of a list extraction, relative to the item (``""``: the item)."""

    selector: Annotated[str, StringConstraints(max_length=MAX_SELECTOR_CHARS)]
    type: ValueType | None = None
    attr: AttributeName | None = None
    pattern: Pattern | None = None
    optional: bool = False


DEFAULT_LIST_LIMIT: Final = 100


class ExtractStep(Document):
    """Mark an element (or, with ``all``, every item of a list) for extraction into ``as``."""

    do: Literal["extract"]
    selector: Selector
    as_: OutputName = Field(alias="as")
    read: Literal["text", "value", "presence", "count"] | None = None
    type: ValueType | None = None
    attr: AttributeName | None = None
    pattern: Pattern | None = None
    values: tuple[str, ...] | None = None
    all: bool = False
    fields: dict[
        OutputName, Annotated[str, StringConstraints(max_length=MAX_SELECTOR_CHARS)] | FieldSelector
    ] = Field(default_factory=dict, max_length=32)
    limit: Annotated[int, Field(ge=1, le=1000)] | None = None
    retry: Retry | None = None

    @model_validator(mode="after")
    def _shape(self) -> ExtractStep:
        listing = self.all and self.read != "count"
        if (self.fields or self.limit is not None) and not listing:
            raise ValueError("fields and limit belong to a list extraction (all: true)")
        if self.read == "count" and not self.all:
            raise ValueError("a count reads every item (all: true)")
        if listing and (self.type is not None or self.attr is not None or self.pattern is not None):
            raise ValueError("a list extraction types its fields, not itself")
        if self.attr is not None and self.read is not None:
            raise ValueError("an attribute read takes no read")
        return self


class DialogStep(Document):
    """Answer the alert or confirm the previous step opens."""

    do: Literal["dialog"]
    accept: bool


Step = Annotated[
    GotoStep
    | ClickStep
    | TypeStep
    | SelectStep
    | PressStep
    | WaitStep
    | ScrollStep
    | ExtractStep
    | DialogStep
    | AssertStep
    | HoverStep
    | UploadStep
    | PageStep,
    Field(discriminator="do"),
]


class AutomationScript(Document):
    """``{"steps": [...]}`` (ARCHITECTURE section 11)."""

    steps: tuple[Step, ...] = Field(min_length=1, max_length=MAX_STEPS)


# ---- performing a script -------------------------------------------------------------------------


class StepNo(int):
    """An automation step's number (from 1) that knows its ``do``, so every error names both."""

    do: str

    def __new__(cls, n: int, do: str) -> StepNo:
        number = super().__new__(cls, n)
        number.do = do
        return number


def _failed(n: int, why: str) -> RecordError:
    return step_failed(n, getattr(n, "do", "step"), why)


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


async def _click_centre(page: Page, selector: str, n: int, timeout_ms: int) -> None:
    """Click the centre of the element once it is actionable (``record/actionability.py``)."""
    await click(page, selector, n=n, do=getattr(n, "do", "click"), timeout_ms=timeout_ms)


@functools.cache
def _option_plan() -> str:
    return resources.files("skillreel.record").joinpath("select_plan.js").read_text("utf-8")


async def _choose(page: Page, locator: Locator, step: SelectStep, n: int, timeout_ms: int) -> None:
    """Move a focused single ``<select>`` to the option with arrow keys, or pick a popup picker's
    option by clicks (trusted input, as a person does)."""
    if isinstance(step.label, tuple):
        where = await locator.evaluate(_option_plan(), {"value": None, "label": step.label[0]})
        if where is None or not where["picker"]:
            raise _failed(n, "a list of labels takes a popup picker that keeps several choices")
        for label in step.label:
            await _pick(page, step.selector, label, n, timeout_ms)
        return
    where = await locator.evaluate(_option_plan(), {"value": step.value, "label": step.label})
    if where is not None and where["picker"] and step.label is not None:
        await _pick(page, step.selector, step.label, n, timeout_ms)
        return
    if where is None or where["picker"]:
        raise _failed(n, "its element is not a single-choice <select> (a popup picker takes a label)")
    if where["to"] < 0:
        how = "value" if step.label is None else "label"
        which = "several enabled options" if where["to"] == -2 else "no enabled option"
        raise _failed(n, f"its <select> has {which} with that {how}")
    value = str(where["value"])
    await locator.focus()
    delta = where["to"] - max(where["at"], 0) if where["at"] >= 0 else where["to"] + 1
    key = "ArrowDown" if delta >= 0 else "ArrowUp"
    for _ in range(abs(delta)):
        await page.keyboard.press(key)
    if await locator.input_value() != value:
        raise _failed(n, "the option could not be chosen with the keyboard")


async def _pick(page: Page, picker: str, label: str, n: int, timeout_ms: int) -> None:
    """Click the picker, then its one visible option whose accessible name is ``label`` once it
    is stable (Playwright's actionability checks: a list still animating is not clicked); the
    recorder makes the two clicks one ``choose`` step. A list still open (a multi-select after
    its first choice) is not clicked shut."""
    if not await _list_open(page, picker):
        await _click_centre(page, picker, n, timeout_ms)
    # a role=option of that name, or an option-like element of that text with no role (Ant Design
    # shows its options so, beside an accessibility-only listbox of no size)
    shown_as = re.compile(r"^\s*" + re.escape(" ".join(label.split())).replace(r"\ ", r"\s+") + r"\s*$")
    unnamed = page.locator("[aria-selected]:not([role])").filter(has_text=shown_as)
    option = page.get_by_role("option", name=label, exact=True).or_(unnamed).filter(visible=True)
    try:
        await option.first.wait_for(state="visible", timeout=timeout_ms)
    except PlaywrightTimeoutError as exc:
        await page.keyboard.press("Escape")
        raise _failed(n, "its picker showed no option with that label") from exc
    if await _count(option) != 1:
        await page.keyboard.press("Escape")
        raise _failed(n, "its picker shows several options with that label")
    await option.click(timeout=timeout_ms)


async def _list_open(page: Page, picker: str) -> bool:
    """Whether the picker says its list is open (``aria-expanded``) and a listbox shows options."""
    try:
        expanded = await page.locator(picker).first.get_attribute("aria-expanded", timeout=1_000)
        shown = page.get_by_role("option").filter(visible=True)
        return expanded == "true" and await _count(shown) > 0
    except PlaywrightError:
        return False


class Marks(Protocol):
    """What the scripted v2 steps need from the recorder (``record.recorder.Recorder``)."""

    async def settle(self) -> None: ...

    async def extractable(
        self,
        selector: str,
        *,
        all_items: bool,
        fields: dict[str, str],
        attributes: dict[str, str | None] | None = None,
    ) -> Extractable: ...

    async def waitable(self, selector: str) -> Resolved: ...

    async def resolve(self, selector: str, *, all_matches: bool = False) -> Resolved: ...

    @property
    def events(self) -> tuple[Any, ...]: ...

    def append_event(self, kind: str, **fields: Any) -> None: ...

    async def flush(self) -> None: ...

    def bind_click(self, by: str, over: Over) -> None: ...

    def click_unbound(self) -> str | None: ...

    def value_from(self, output: str | None) -> None: ...

    def retry_next(self, retry: Retry | None) -> None: ...

    download_names: list[str]


async def perform(
    page: Page,
    script: AutomationScript,
    *,
    timeout_ms: int,
    between: Callable[[], Awaitable[None]] | None = None,
    marks: Marks | None = None,
    inputs_done: Callable[[], Awaitable[None]] | None = None,
    leaving: Callable[[], Awaitable[None]] | None = None,
    after_action: Callable[[], Awaitable[None]] | None = None,
    on_step: Callable[[int], None] | None = None,
    skip: int = 0,
) -> tuple[str, ...]:
    """Perform ``script`` on ``page`` with trusted input; ``between`` runs before each step;
    ``leaving`` before each ``goto`` (an address-bar navigation leaves the page without its field
    losing focus: the recorder reports the edits in progress first, or the last value typed there
    was lost, and with it the knowledge that it was typed);
    ``marks`` records the v2 steps (extract, wait on a selector, dialog).
    ``inputs_done`` runs once, before the first step performed after the script's last ``type`` or
    ``select`` step (never when that is the last step): from then on the recording's parameters
    are known, and the steps that usually act on the site (a submitting click) have not run yet.
    ``after_action`` runs after each step that acts on the page (click, type, select, press): it
    waits for a navigation the step started. ``on_step(n)`` hears of each step before it runs;
    the first ``skip`` steps are not performed (a resumed recording already captured them).
    Returns the warnings: content-free sentences naming each step that recorded nothing."""
    answered: asyncio.Future[str] | None = None
    warnings: list[str] = []
    last_input = max(
        (n for n, step in enumerate(script.steps, start=1) if isinstance(step, TypeStep | SelectStep)),
        default=0,
    )
    checked = False
    pages = Pages(page)
    for n, step in enumerate(script.steps, start=1):
        if n <= skip:
            continue
        at = StepNo(n, step.do)
        if page is not pages.main and not isinstance(
            step, ClickStep | TypeStep | SelectStep | PressStep | PageStep
        ):
            raise refused_on_popup(at, step.do)
        if on_step is not None:
            on_step(n)
        if between is not None:
            await between()
        if n > last_input and not checked and inputs_done is not None:
            checked = True
            await inputs_done()
        if isinstance(step, GotoStep) and leaving is not None:
            await leaving()
        following = script.steps[n] if n < len(script.steps) else None
        if isinstance(following, DialogStep):
            answered = _arm_dialog(page, following.accept)
        before = len(marks.events) if marks is not None else 0
        retry = getattr(step, "retry", None)
        if retry is not None:
            _need(marks, at).retry_next(retry)
        try:
            if isinstance(step, PageStep):
                page = await pages.switch(page, step, at, timeout_ms)
            elif isinstance(step, DialogStep):
                await _dialog(step, answered, at, timeout_ms, _need(marks, at))
                answered = None
            elif isinstance(step, ExtractStep):
                await _extract(step, at, _need(marks, at))
            elif isinstance(step, WaitStep) and (step.url is not None or step.text is not None):
                await authored_wait(
                    page, at, step.selector, step.url, step.text, timeout_ms, _need(marks, at)
                )
            elif isinstance(step, ScrollStep):
                await scroll(page, step, at, timeout_ms, _need(marks, at))
            elif isinstance(step, HoverStep | UploadStep):
                await gesture(page, step, at, timeout_ms, _need(marks, at))
            elif isinstance(step, AssertStep):
                await authored_absent(step, at, _need(marks, at))
            elif isinstance(step, WaitStep) and step.selector is not None:
                await _wait(page, step, step.selector, at, timeout_ms, _need(marks, at))
            else:
                if isinstance(step, SelectStep) and await _already_chosen(page, step):
                    warnings.append(
                        f"automation step {n} (select): its option was already selected; nothing was recorded"
                    )
                if isinstance(step, ClickStep) and step.download is not None:
                    clicked = functools.partial(_perform, page, step, at, timeout_ms)
                    await download_click(page, step.download, at, timeout_ms, _need(marks, at), clicked)
                elif isinstance(step, ClickStep) and step.by is not None:
                    await _bound_click(page, step, at, timeout_ms, _need(marks, at))
                elif isinstance(step, TypeStep | SelectStep) and step.from_ is not None:
                    done = await from_output(page, script.steps[: n - 1], step, at, timeout_ms)
                    await marked_from(_need(marks, at), step.from_, _perform(page, done, at, timeout_ms))
                else:
                    await _perform(page, step, at, timeout_ms)
                if after_action is not None and isinstance(
                    step, ClickStep | TypeStep | SelectStep | PressStep
                ):
                    await after_action()
        except PlaywrightTimeoutError as exc:
            raise _failed(at, "it did not finish in time") from exc
        except PlaywrightError as exc:
            raise playwright_failed(page, at, at.do, exc) from exc
        except SkillreelError as exc:
            if "step" in exc.details:
                raise
            raise naming(at, at.do, exc) from exc
        if retry is not None and marks is not None:
            await marks.flush()
            marks.retry_next(None)
        silent = marks is not None and len(marks.events) == before
        # A click that focused a field records nothing itself: the edit that follows does.
        if isinstance(step, ClickStep) and silent and not isinstance(following, TypeStep | SelectStep):
            warnings.append(f"automation step {n} (click): the click produced no event; nothing was recorded")
    return tuple(warnings)


async def _already_chosen(page: Page, step: SelectStep) -> bool:
    """Whether a native ``<select>`` already shows the option the step chooses, by value or by
    label (nothing will change)."""
    if isinstance(step.label, tuple):
        return False
    try:
        where = await page.locator(step.selector).first.evaluate(
            _option_plan(), {"value": step.value, "label": step.label}, timeout=1_000
        )
    except PlaywrightError:
        return False
    return isinstance(where, dict) and not where["picker"] and where["to"] >= 0 and where["at"] == where["to"]


def named_at(exc: SkillreelError, script: AutomationScript | None, n: int) -> SkillreelError:
    """A recording that failed because the browser or the page died while automation step ``n``
    ran (``_unless_gone`` stopped it): the error naming that step; any other error as it is."""
    if (
        script is None
        or exc.code != CAPTURE_FAILED
        or "step" in exc.details
        or not 0 < n <= len(script.steps)
    ):
        return exc
    return naming(n, script.steps[n - 1].do, exc)


def _need(marks: Marks | None, n: int) -> Marks:
    if marks is None:
        raise _failed(n, "this step needs the recorder")
    return marks


def _arm_dialog(page: Page, accept: bool) -> asyncio.Future[str]:
    """Answer the next dialog the page opens; the future completes with its kind."""
    answered: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def answer(dialog: Dialog) -> None:
        if not answered.done():
            answered.set_result(dialog.type)
        with contextlib.suppress(PlaywrightError):
            await (dialog.accept() if accept else dialog.dismiss())

    page.once("dialog", answer)
    return answered


async def _dialog(
    step: DialogStep, answered: asyncio.Future[str] | None, n: int, timeout_ms: int, marks: Marks
) -> None:
    if answered is None:
        raise _failed(n, "a dialog step must follow the step that opens the dialog")
    try:
        kind = await asyncio.wait_for(answered, timeout_ms / 1000)
    except TimeoutError as exc:
        raise _failed(n, "the previous step opened no dialog") from exc
    if kind == "prompt":
        raise _failed(n, "a prompt asks for text: record it interactively, a person gives it")
    await marks.settle()
    marks.append_event("dialog", accept=step.accept, dialog=kind)


def _field_spec(name: str, given: str | FieldSelector) -> tuple[str, FieldSelector]:
    spec = given if isinstance(given, FieldSelector) else FieldSelector(selector=given)
    return name, spec


async def _extract(step: ExtractStep, n: int, marks: Marks) -> None:
    specs = dict(_field_spec(k, v) for k, v in step.fields.items())
    listing = step.all and step.read != "count"
    if listing and not specs:
        specs = {"text": FieldSelector(selector="")}
    found = await marks.extractable(
        step.selector,
        all_items=step.all,
        fields={k: v.selector for k, v in specs.items()},
        attributes={"": step.attr, **{k: v.attr for k, v in specs.items()}},
    )
    if found.count < 0:
        raise _failed(n, "its selector is not valid CSS")
    if found.count == 0:
        raise _failed(n, "its selector matches no element")
    if found.count > 1 and not step.all:
        raise _failed(n, f"its selector matches {found.count} elements (use all: true for a list)")
    limit = step.limit or DEFAULT_LIST_LIMIT
    if listing and found.count > limit:
        raise _failed(n, f"its selector matches {found.count} items, more than its limit {limit}")
    fields = []
    for name, spec in specs.items():
        count, target = found.fields.get(name, (0, None))
        if count != 1:
            why = "is not valid CSS" if count < 0 else f"matches {count} elements in the first item"
            raise _failed(n, f"field {name!r}: its selector {why}")
        if target is None and spec.selector:
            raise _failed(n, f"field {name!r}: its element cannot be described inside the item")
        read: Literal["attribute", "text"] = "attribute" if spec.attr is not None else "text"
        fields.append(
            FieldSpec(
                name=name,
                target=target,
                read=read,
                attribute=spec.attr,
                type=spec.type,
                pattern=spec.pattern,
                optional=spec.optional,
            )
        )
    shape: dict[str, Any] = {
        "output": step.as_,
        "type": step.type,
        "values": step.values,
        "pattern": step.pattern,
    }
    if step.all:
        if found.items is None:
            raise _failed(n, "its items cannot be described without text typed during the recording")
        shape.update(items=found.items, read="count")
        if step.read != "count":
            shape.update(read="list", fields=tuple(fields), limit=limit)
    else:
        if found.target is None:
            raise _failed(n, "its element cannot be described without text typed during the recording")
        shape.update(
            target=found.target, read="attribute" if step.attr else (step.read or "text"), attribute=step.attr
        )
    try:
        extraction = Extraction.model_validate(shape)
    except (ValidationError, ValueError) as exc:
        raise _failed(n, _first_problem(exc)) from None
    await marks.settle()
    marks.append_event("extract", extraction=extraction)


def _first_problem(exc: Exception) -> str:
    """A content-free reason from a validation failure (its message names rules, not values)."""
    if isinstance(exc, ValidationError):
        error = exc.errors(include_input=False, include_url=False)[0]
        where = ".".join(str(p) for p in error.get("loc", ()))
        return f"{where}: {error.get('msg', 'invalid')}" if where else str(error.get("msg", "invalid"))
    return str(exc)


async def _wait(page: Page, step: WaitStep, selector: str, n: int, timeout_ms: int, marks: Marks) -> None:
    gone = step.until == "disappears"
    if gone:
        await _one_visible(page, selector, n, timeout_ms)
        found = await marks.waitable(selector)
    try:
        await page.locator(selector).first.wait_for(state="hidden" if gone else "visible", timeout=timeout_ms)
    except PlaywrightTimeoutError as exc:
        raise _failed(n, "its element never " + ("went away" if gone else "appeared")) from exc
    except PlaywrightError as exc:
        raise _failed(n, "its selector is not valid") from exc
    if not gone:
        found = await marks.waitable(selector)
    if found.count != 1:
        raise _failed(
            n,
            f"its selector matches {found.count} elements"
            if found.count > 1
            else "its selector matches no element",
        )
    if found.target is None:
        raise _failed(n, "its element cannot be described without text typed during the recording")
    await marks.settle()
    marks.append_event("wait", until="disappears" if gone else "appears", target=found.target)


async def _bound_click(page: Page, step: ClickStep, n: int, timeout_ms: int, marks: Marks) -> None:
    """A click recorded as chosen by input ``step.by`` (``CaptureLog.bind_next_click``)."""
    assert step.by is not None
    marks.bind_click(step.by, step.over)
    await _perform(page, step, n, timeout_ms)
    await marks.flush()  # the click's report has reached the log
    problem = marks.click_unbound()
    if problem is not None:
        raise _failed(n, problem)


async def _perform(page: Page, step: Step, n: int, timeout_ms: int) -> None:
    if isinstance(step, GotoStep):
        try:
            await page.goto(step.url, wait_until="load", timeout=timeout_ms)
        except PlaywrightError as exc:
            raise _failed(n, "the page could not be loaded") from exc
    elif isinstance(step, WaitStep):
        await asyncio.sleep((step.ms or 0) / 1000)
    elif isinstance(step, PressStep):
        try:
            await page.keyboard.press(step.key)
        except PlaywrightError as exc:
            raise _failed(n, "the key is not one Playwright knows") from exc
    elif isinstance(step, ClickStep | TypeStep | SelectStep):
        locator = await _one_visible(page, step.selector, n, timeout_ms)
        if isinstance(step, SelectStep):
            await _choose(page, locator, step, n, timeout_ms)
            return
        await _click_centre(page, step.selector, n, timeout_ms)
        if isinstance(step, TypeStep):
            await page.keyboard.press("ControlOrMeta+A")
            await page.keyboard.press("Delete")
            await page.keyboard.type(step.text or "")
