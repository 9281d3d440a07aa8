"""The recorder's wire shapes, defined once (ARCHITECTURE section 6).

Two documents live here:

* :class:`PageEvent` — what ``record/recorder.js`` sends from the isolated world over the CDP
  binding (``v: 1``). It is untrusted input: ``record.session`` validates every payload against it
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

from .actions import AssertCheck, ExpectedText, HumanReason
from .base import Digest, DigestedDocument, Document
from .draft import Salt
from .limits import MAX_SELECT_VALUE_CHARS, MAX_TYPE_VALUE_CHARS, MAX_URL_CHARS
from .locators import LocatorBundle

MAX_EVENTS = 4096
# A binding payload larger than this is refused before it is decoded.
MAX_PAGE_EVENT_BYTES = 256 * 1024

ParamHint = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,63}$")]
Control = Literal[
    "text", "password", "otp", "email", "search", "tel", "url", "number", "textarea", "select", "other"
]
PressKey = Literal["Enter", "Tab", "Escape"]
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


class PageEvent(Document):
    """One event as the recorder script reports it (untrusted until validated here)."""

    v: Literal[1]
    type: Literal["click", "input", "select", "press", "human"]
    target: LocatorBundle | None = None
    field: FieldInfo | None = None
    value: Annotated[str, StringConstraints(max_length=MAX_TYPE_VALUE_CHARS)] | None = None
    key: PressKey | None = None
    reason: HumanReason | None = None

    @model_validator(mode="after")
    def _shape(self) -> PageEvent:
        problem = _page_event_problem(self)
        if problem:
            raise ValueError(problem)
        return self


def _page_event_problem(e: PageEvent) -> str | None:
    if e.type in ("input", "select"):
        if e.field is None or e.target is None:
            return "a field edit needs its field and target"
        if e.field.is_sensitive and e.value is not None:
            return "a sensitive field never carries a value"
        if not e.field.is_sensitive and e.value is None:
            return "a field edit carries its final value"
        if e.type == "select" and e.value is not None and len(e.value) > MAX_SELECT_VALUE_CHARS:
            return "a select value is limited to 1,024 characters"
    elif e.field is not None or e.value is not None:
        return "only a field edit has a field or value"
    if e.type == "click" and e.target is None:
        return "a click needs its target"
    if (e.type == "press") != (e.key is not None):
        return "exactly a press has a key"
    if (e.type == "human") != (e.reason is not None):
        return "exactly a human step has a reason"
    return None


_EXTENSION_KEYS = ("check", "expected")


class RecordedEvent(Document):
    seq: Annotated[int, Field(ge=0, le=MAX_EVENTS)]
    type: Literal["navigate", "click", "input", "select", "press", "human", "observe", "assert"]
    page: Annotated[int, Field(ge=0, le=64)] = 0
    target: LocatorBundle | None = None
    field: FieldInfo | None = None
    value_digest: Digest | None = None
    url: Annotated[str, StringConstraints(max_length=MAX_URL_CHARS)] | None = None
    reason: NavigateReason | HumanReason | None = None
    key: PressKey | None = None
    check: AssertCheck | None = None
    expected: ExpectedText | Annotated[int, Field(ge=0, le=100_000)] | None = None

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
        elif self.check is not None or self.expected is not None:
            raise ValueError("only an assert event has a check or expected value")
        if (
            self.field is not None
            and self.field.is_sensitive
            and self.value_digest is not None
            and self.field.control in SENSITIVE_CONTROLS
        ):
            raise ValueError("a password or OTP edit has no value digest")
        return self


class EventsLog(DigestedDocument):
    digest_tag = "skillreel.events/v1"
    digest_field = "events_digest"

    schema_: Literal["skillreel.events/v1"] = Field("skillreel.events/v1", alias="schema")
    salt: Salt
    events: tuple[RecordedEvent, ...] = Field(max_length=MAX_EVENTS)
    events_digest: Digest
