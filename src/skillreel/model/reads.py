"""What a step reads from the page, and the rules of a read (ARCHITECTURE section 15): the kinds of
read, the named fields of a list's items (:class:`FieldSpec`), and the checks ``extract`` and
``loop`` share (an attribute read names an allowed attribute, an enum lists its values, a pattern
has one group, a limit stays within ``MAX_LOOP_ITEMS``, an extraction target keeps no hash of the
content it reads). Pure; the steps themselves are in ``model.actions``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from .base import Document
from .graph_problem import GraphProblem
from .limits import MAX_LOOP_ITEMS, MAX_PATTERN_CHARS
from .locators import LocatorBundle, content_features
from .refs import OutputName, ParameterRef
from .values import EnumValues, ValueType

Read = Literal["text", "value", "attribute", "presence", "count", "list"]
FieldRead = Literal["text", "value", "attribute", "presence"]
_ATTRIBUTE = re.compile(r"href|title|datetime|aria-[a-z0-9-]{1,40}|data-[a-z0-9_.:-]{1,60}")
AttributeName = Annotated[str, StringConstraints(max_length=70)]
Pattern = Annotated[str, StringConstraints(min_length=1, max_length=MAX_PATTERN_CHARS)]
Limit = Annotated[int, Field(ge=1, le=10**6)]  # at most MAX_LOOP_ITEMS: checked with a named code
Overflow = Literal["fail", "first"]


def check_read(
    step: str, read: str, attribute: str | None, type_: str | None, values: object, pattern: str | None
) -> None:
    """The rules of a read shared by ``extract`` and a list field."""
    if (read == "attribute") != (attribute is not None):
        raise GraphProblem("SR_RECORD_GRAPH_INVALID", step, "exactly an attribute read names its attribute")
    if attribute is not None and not _ATTRIBUTE.fullmatch(attribute):
        raise GraphProblem(
            "SR_RECORD_GRAPH_INVALID",
            step,
            "only href, title, datetime, aria-* and data-* attributes are read",
        )
    if (type_ == "enum") != (values is not None):
        raise GraphProblem("SR_RECORD_GRAPH_INVALID", step, "exactly an enum output lists its values")
    natural = {"presence": "boolean", "count": "integer"}.get(read)
    if natural is not None and type_ not in (None, natural):
        raise GraphProblem("SR_RECORD_GRAPH_INVALID", step, f"a {read} read is {natural}")
    if pattern is not None:
        if natural is not None or read == "list":
            raise GraphProblem("SR_RECORD_GRAPH_INVALID", step, f"a {read} read takes no pattern")
        try:
            groups = re.compile(pattern).groups
        except re.error as exc:
            raise GraphProblem(
                "SR_RECORD_GRAPH_INVALID", step, "the pattern is not a valid regular expression"
            ) from exc
        if groups != 1:
            raise GraphProblem("SR_RECORD_GRAPH_INVALID", step, "the pattern has exactly one group")


def check_limit(step: str, limit: int | ParameterRef | None) -> None:
    if isinstance(limit, int) and limit > MAX_LOOP_ITEMS:
        raise GraphProblem(
            "SR_RECORD_LOOP_BOUND",
            step,
            f"the limit is {limit:,}; a loop or a list reads at most {MAX_LOOP_ITEMS:,} items",
        )


def no_content(step: str, bundle: LocatorBundle | None, attribute: str | None = None) -> None:
    """An extraction target keeps no hash of what it reads: no text hash, no role-name or href
    candidate, and for an attribute read no hash (nor selector) of that attribute."""
    if bundle is None:
        return
    read_attribute = attribute is not None and (
        attribute in bundle.fingerprint.attributes
        or any(f"[{attribute}" in c.selector or c.strategy == attribute for c in bundle.candidates)
    )
    if content_features(bundle.candidates, bundle.fingerprint) or read_attribute:
        raise GraphProblem(
            "SR_RECORD_GRAPH_INVALID",
            step,
            "an extraction target keeps no hash of its text (it is page content)",
        )


class FieldSpec(Document):
    """One named field of each item of a list (a list extraction or a loop's item fields): read
    from ``target``, located relative to the item (None: the item element itself). An item without
    the field gives null when ``optional``; otherwise the step fails."""

    name: OutputName
    target: LocatorBundle | None = None
    read: FieldRead = "text"
    attribute: AttributeName | None = None
    type: ValueType | None = None
    values: EnumValues | None = None
    pattern: Pattern | None = None
    optional: bool = False

    @property
    def value_type(self) -> ValueType:
        return self.type or ("boolean" if self.read == "presence" else "string")


def check_fields(step: str, fields: Iterable[FieldSpec]) -> None:
    names: set[str] = set()
    for f in fields:
        if f.name in names:
            raise GraphProblem("SR_RECORD_GRAPH_INVALID", step, f"two fields are named {f.name!r}")
        names.add(f.name)
        if f.target is not None and f.target.within is not None:
            raise GraphProblem(
                "SR_RECORD_GRAPH_INVALID", step, "a field's target is relative to its item already"
            )
        check_read(step, f.read, f.attribute, f.type, f.values, f.pattern)
        no_content(step, f.target, f.attribute)
