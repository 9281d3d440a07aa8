"""The recorder's value-free events log (``skillreel.events/v1``): the one wire shape the browser
side emits, validated here. The draft is a pure projection of this log (``record.project``).

Values never appear: a text or select value is replaced at capture by a parameter hint and a
salted value digest (``skillreel.value/v1`` over ``{"salt", "value"}``); password and OTP values
never leave the page at all (``valueDigest`` is null for them).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from .actions import HumanReason
from .base import Digest, DigestedDocument, Document
from .draft import Salt
from .limits import MAX_URL_CHARS
from .locators import LocatorBundle

MAX_EVENTS = 4096

ParamHint = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,63}$")]
Control = Literal["text", "password", "otp", "email", "search", "tel", "url", "number", "textarea",
                  "select", "other"]


class FieldInfo(Document):
    """What kind of field a value went into; ``sensitive`` is sticky (show-password keeps it)."""

    control: Control
    param_hint: ParamHint
    sensitive: bool = False


class RecordedEvent(Document):
    seq: Annotated[int, Field(ge=0, le=MAX_EVENTS)]
    type: Literal["navigate", "click", "input", "select", "press", "human"]
    page: Annotated[int, Field(ge=0, le=64)] = 0
    target: LocatorBundle | None = None
    field: FieldInfo | None = None
    value_digest: Digest | None = None
    url: Annotated[str, StringConstraints(max_length=MAX_URL_CHARS)] | None = None
    reason: Literal["start", "address-bar", "reload"] | HumanReason | None = None
    key: Literal["Enter", "Tab", "Escape"] | None = None


class EventsLog(DigestedDocument):
    digest_tag = "skillreel.events/v1"
    digest_field = "events_digest"

    schema_: Literal["skillreel.events/v1"] = Field("skillreel.events/v1", alias="schema")
    salt: Salt
    events: tuple[RecordedEvent, ...] = Field(max_length=MAX_EVENTS)
    events_digest: Digest
