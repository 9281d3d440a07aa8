"""The recorder's wire shapes, defined once (ARCHITECTURE section 6).

Two documents live here:

* :class:`PageEvent` — what ``record/recorder.js`` sends from the isolated world over the CDP
  binding (``v: 1``). It is untrusted input: ``record.recorder`` validates every payload against it
  (strict keys, bounded sizes) before anything else happens. It is the only shape that may carry
  a value: the final value of one non-sensitive field edit. A sensitive field (password, OTP,
  ``autocomplete=current-password|new-password|one-time-code``, or a field once seen as a password)
  never carries one; a payload that tries is refused.
* :class:`EventsLog` (``skillreel.events/v1``) — the append-only, value-free log stored with the
  draft. The draft is a pure projection of it (``record.project``). Values never appear: a text or
  select value is replaced at capture by a parameter hint; password and OTP values never leave the
  page at all. ``valueDigest`` is no longer written: a digest salted with the log's own ``salt``,
  stored beside it, let anyone with the store or an export recover a short value by guessing
  (issue 11). Logs written before keep theirs (the field stays valid, so their digests and every
  digest that covers them are unchanged); a new recording of the skill drops them.

Compatible extension (v1): ``observe`` and ``assert`` events (the user's assertions, resolved at
the end of a recording) carry ``check`` and ``expected``. Those two keys are left out of the wire
form when unset, so every log written before they existed keeps its exact canonical form and digest.

Schema v2 extension (same rule: every new key is left out when unset): ``extract`` events (an
element or a list the person marked for extraction, :class:`Extraction`), ``dialog`` events (an
alert, confirm or prompt answered: ``accept``, ``dialog``), ``wait`` events (``until`` an element
appears or disappears; the page URL matches ``expected``; an element's text holds ``expected``, a
literal the script wrote, or the value of the ``input`` named), ``scroll`` events (a scripted
scroll of ``target`` ``to`` into view or to its end, at most ``maxRounds`` times), a click's
``chosenBy`` (the ``seq`` of the field edit whose value the clicked element showed as a whole
token: the target is then chosen by that input, and no text of the element is kept) and a
select's ``options`` (the option values of the ``<select>``, through the recorder's redaction).
Issue 32: ``hover`` events (the pointer rested on ``target`` and revealed what the next action
uses) and ``upload`` events (one file chosen for the file input ``target``; its ``field`` has the
control ``file`` and a parameter hint; nothing of the file: no name, size or digest).

Pages and downloads (issue 32.3, 32.4; same rule): a ``download`` event is a click on ``target``
whose download is kept as the output ``output``; a ``close`` event says the popup of its ``page``
was closed. Which page an event happened on is its ``page`` (0: the first page; a popup: the
index the recorder gave it, in the order the pages opened).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    StringConstraints,
    model_serializer,
    model_validator,
)

from .actions import RETRYABLE, AssertCheck, Count, ExpectedText, ExtractAction, HumanReason, Retry
from .base import Digest, DigestedDocument, Document, ParamName
from .draft import Salt
from .graph_problem import GraphProblem
from .limits import (
    MAX_OUTPUT_FIELDS,
    MAX_SCROLL_ROUNDS,
    MAX_SELECT_VALUE_CHARS,
    MAX_TYPE_VALUE_CHARS,
    MAX_URL_CHARS,
)
from .locators import ElementSet, LocatorBundle
from .reads import AttributeName, FieldSpec, Limit, Pattern, Read
from .refs import OutputName
from .values import EnumValues, ValueType

MAX_EVENTS = 4096
# A binding payload larger than this is refused before it is decoded.
MAX_PAGE_EVENT_BYTES = 256 * 1024

ParamHint = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,63}$")]
Control = Literal[
    "text",
    "password",
    "otp",
    "email",
    "search",
    "tel",
    "url",
    "number",
    "textarea",
    "select",
    "other",
    "multiselect",  # a choice in a picker's list that stays open and takes several (a `choose` only)
    "file",  # a file input one file was chosen for (an `upload`: its name and content never kept)
]
PressKey = Literal["Enter", "Tab", "Escape"]
# Why the page's recorder did not keep an event (record.capture.DROP_REASONS says each in words).
PageDrop = Literal["twin-pressed", "no-target", "picker-closed"]
NavigateReason = Literal["start", "address-bar", "reload"]
SENSITIVE_CONTROLS: frozenset[str] = frozenset({"password", "otp"})


class FieldInfo(Document):
    """What kind of field a value went into; ``sensitive`` is sticky (show-password keeps it)."""

    control: Control
    param_hint: ParamHint
    sensitive: bool = False

    @property
    def is_sensitive(self) -> bool:
        return self.sensitive or self.control in SENSITIVE_CONTROLS


TokenHash = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{16}$")]
DialogKind = Literal["alert", "confirm", "prompt", "beforeunload"]
WaitFor = Literal["appears", "disappears", "url", "text"]
ScrollTo = Literal["into-view", "end"]


class PageEvent(Document):
    """One event as the recorder script reports it (untrusted until validated here).

    v2 keys: a click's ``chosenBy`` (the salted hashes of the typed values the clicked element's
    text holds as whole tokens; its ``target`` then describes the set of like elements), a
    select's ``options`` (its option values), and ``mark``: the element the person marked for
    extraction (only counted when the recorder armed the mark; ``items`` for "all like this one")."""

    v: Literal[1]
    type: Literal[
        "click", "input", "select", "choose", "press", "human", "mark", "dropped", "upload", "hover"
    ]
    target: LocatorBundle | None = None
    field: FieldInfo | None = None
    value: Annotated[str, StringConstraints(max_length=MAX_TYPE_VALUE_CHARS)] | None = None
    key: PressKey | None = None
    reason: HumanReason | None = None
    chosen_by: tuple[TokenHash, ...] | None = Field(default=None, max_length=64)
    options: tuple[Annotated[str, StringConstraints(max_length=MAX_SELECT_VALUE_CHARS)], ...] | None = Field(
        default=None, max_length=256
    )
    # the salted text hashes of the options' visible labels (issue 33: pre-flight checks a label)
    option_labels: tuple[TokenHash, ...] | None = Field(default=None, max_length=256)
    items: ElementSet | None = None
    drop: PageDrop | None = None  # a `dropped` event: what was not kept, by reason (no content)

    @model_validator(mode="after")
    def _shape(self) -> PageEvent:
        problem = _page_event_problem(self)
        if problem:
            raise ValueError(problem)
        return self


def _page_event_problem(e: PageEvent) -> str | None:
    if e.type in ("input", "select", "choose"):
        if e.field is None or e.target is None:
            return "a field edit needs its field and target"
        if e.field.is_sensitive and e.value is not None:
            return "a sensitive field never carries a value"
        if not e.field.is_sensitive and e.value is None:
            return "a field edit carries its final value"
        if e.type in ("select", "choose") and e.value is not None and len(e.value) > MAX_SELECT_VALUE_CHARS:
            return "a select value is limited to 1,024 characters"
    elif e.type == "upload":
        if e.target is None or e.field is None or e.field.control != "file" or e.value is not None:
            return "an upload names its file input and carries nothing of the file"
    elif e.field is not None or e.value is not None:
        return "only a field edit has a field or value"
    if (e.type == "dropped") != (e.drop is not None):
        return "exactly a dropped event has a drop reason"
    if e.type == "dropped" and e.target is not None:
        return "a dropped event names no element"
    if e.type in ("click", "hover") and e.target is None:
        return f"a {e.type} needs its target"
    if e.field is not None and e.field.control == "file" and e.type != "upload":
        return "only an upload has a file field"
    if (e.type == "press") != (e.key is not None):
        return "exactly a press has a key"
    if (e.type == "human") != (e.reason is not None):
        return "exactly a human step has a reason"
    if e.chosen_by is not None and e.type != "click":
        return "only a click is chosen by a typed value"
    if e.options is not None and e.type not in ("select", "choose"):
        return "only a select or a choose lists its options"
    if e.option_labels is not None and e.options is None:
        return "only a select that lists its options hashes their labels"
    if e.type == "mark" and e.target is not None and e.items is not None:
        return "a mark names one element or a set, not both"
    if e.items is not None and e.type != "mark":
        return "only a mark names a set"
    return None


class Extraction(Document):
    """What a person marked for extraction (an ``extract`` step without its id): the rules are
    :class:`~skillreel.model.actions.ExtractAction`'s, checked when the event is built."""

    output: OutputName
    read: Read = "text"
    target: LocatorBundle | None = None
    attribute: AttributeName | None = None
    type: ValueType | None = None
    values: EnumValues | None = None
    pattern: Pattern | None = None
    items: ElementSet | None = None
    fields: tuple[FieldSpec, ...] = Field(default=(), max_length=MAX_OUTPUT_FIELDS)
    limit: Limit | None = None

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in ("target", "attribute", "type", "values", "pattern", "items", "limit"):
            if data.get(key) is None:
                data.pop(key, None)
        if not data.get("fields"):
            data.pop("fields", None)
        return data

    @model_validator(mode="after")
    def _shape(self) -> Extraction:
        try:
            self.step("a1")
        except GraphProblem as exc:
            raise ValueError(str(exc).removeprefix("step a1: ")) from None
        return self

    def step(self, action_id: str) -> ExtractAction:
        """The ``extract`` step this mark projects to."""
        return ExtractAction(id=action_id, **dict(self))


_EXTENSION_KEYS = (
    "fromOutput",
    "retry",
    "check",
    "expected",
    "extraction",
    "accept",
    "dialog",
    "until",
    "chosenBy",
    "options",
    "input",
    "to",
    "maxRounds",
    "atLeast",
    "atMost",
    "output",
    "optionLabels",
)


class RecordedEvent(Document):
    seq: Annotated[int, Field(ge=0, le=MAX_EVENTS)]
    type: Literal[
        "navigate",
        "click",
        "input",
        "select",
        "choose",
        "press",
        "human",
        "observe",
        "assert",
        "extract",
        "dialog",
        "wait",
        "scroll",
        "hover",
        "upload",
        "download",
        "close",
    ]
    page: Annotated[int, Field(ge=0, le=64)] = 0
    target: LocatorBundle | None = None
    field: FieldInfo | None = None
    value_digest: Digest | None = None
    url: Annotated[str, StringConstraints(max_length=MAX_URL_CHARS)] | None = None
    reason: NavigateReason | HumanReason | None = None
    key: PressKey | None = None
    check: AssertCheck | None = None
    expected: ExpectedText | Annotated[int, Field(ge=0, le=100_000)] | None = None
    at_least: Count | None = None  # a count assertion's bounds
    at_most: Count | None = None
    extraction: Extraction | None = None
    accept: bool | None = None
    dialog: DialogKind | None = None
    until: WaitFor | None = None
    chosen_by: Annotated[int, Field(ge=0, le=MAX_EVENTS)] | None = None
    options: EnumValues | None = None
    option_labels: tuple[TokenHash, ...] | None = Field(default=None, max_length=256)
    input: ParamName | None = None  # a text wait's input (by the parameter's name), else ``expected``
    to: ScrollTo | None = None
    max_rounds: Annotated[int, Field(ge=1, le=MAX_SCROLL_ROUNDS)] | None = None
    # an automation edit whose value an earlier extract step read (issue 33): its output's name
    from_output: OutputName | None = None
    retry: Retry | None = None  # an automation step's retry (a navigation, a read, a wait)
    output: OutputName | None = None  # a download's output name

    @model_serializer(mode="wrap")
    def _omit_unset_extensions(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in _EXTENSION_KEYS:
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @model_validator(mode="after")
    def _shape(self) -> RecordedEvent:
        if self.type in ("observe", "assert"):
            if self.type == "observe" and self.target is None:
                raise ValueError("an observe event needs its target")
            if self.type == "assert" and self.check is None:
                raise ValueError("an assert event needs its check")
        elif self.at_least is not None or self.at_most is not None:
            raise ValueError("only an assert event has count bounds")
        elif self.check is not None or (self.expected is not None and self.until not in ("url", "text")):
            raise ValueError("only an assert event (or a wait for a URL or a text) has an expected value")
        problem = _v2_problem(self)
        if problem:
            raise ValueError(problem)
        if (
            self.field is not None
            and self.field.is_sensitive
            and self.value_digest is not None
            and self.field.control in SENSITIVE_CONTROLS
        ):
            raise ValueError("a password or OTP edit has no value digest")
        return self


def _v2_problem(e: RecordedEvent) -> str | None:
    if (e.type == "extract") != (e.extraction is not None):
        return "exactly an extract event has its extraction"
    if (e.type == "dialog") != (e.accept is not None):
        return "exactly a dialog event says whether it was accepted"
    if e.dialog is not None and e.type != "dialog":
        return "only a dialog event names a dialog kind"
    if e.type == "wait" and (e.until is None or (e.target is None) != (e.until == "url")):
        return "a wait event has what it waits for and its target (a URL wait has none)"
    if (e.until is not None or e.input is not None) and e.type != "wait":
        return "only a wait event waits"
    wants = {"url": (True, False), "text": (e.input is None, e.input is not None)}.get(
        e.until or "", (False, False)
    )
    if e.type == "wait" and ((e.expected is not None), (e.input is not None)) != wants:
        return "a URL wait has its pattern, a text wait its text or its input, others neither"
    if (e.type == "scroll") != (e.to is not None and e.max_rounds is not None and e.target is not None):
        return "exactly a scroll event has its target, where it scrolls to and its rounds"
    if e.type in ("hover", "upload") and e.target is None:
        return "a hover or an upload event has its target"
    if (e.type == "upload") != (e.field is not None and e.field.control == "file"):
        return "exactly an upload event has a file field"
    if e.type == "upload" and e.value_digest is not None:
        return "an upload event keeps nothing of its file"
    if e.chosen_by is not None and (e.type != "click" or e.chosen_by >= e.seq):
        return "only a click is chosen by an earlier field edit"
    if e.options is not None and e.type not in ("select", "choose"):
        return "only a select or a choose lists its options"
    if e.from_output is not None and e.type not in ("input", "select", "choose"):
        return "only a field edit takes its value from an output"
    if e.retry is not None and e.type not in RETRYABLE:
        return "only a navigation, a read, a wait or an assertion retries"
    if (e.type == "download") != (e.output is not None) or (e.type == "download" and e.target is None):
        return "exactly a download event has its output name, and its target"
    if e.type == "close" and (e.page == 0 or e.target is not None):
        return "a close event names a popup (not the first page) and no element"
    return None


class EventsLog(DigestedDocument):
    digest_tag = "skillreel.events/v1"
    digest_field = "events_digest"

    schema_: Literal["skillreel.events/v1"] = Field("skillreel.events/v1", alias="schema")
    salt: Salt
    events: tuple[RecordedEvent, ...] = Field(max_length=MAX_EVENTS)
    events_digest: Digest
