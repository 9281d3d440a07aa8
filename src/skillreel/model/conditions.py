"""The conditions a ``branch`` step tests (ARCHITECTURE section 15): a target present on the page,
the page URL, or a reference compared with what the reviewer expects. Pure; the step itself is
``model.actions.BranchAction``.
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

from .base import Document
from .locators import LocatorBundle
from .refs import DataRef, ValueRef
from .values import CompareOp


class PresentCondition(Document):
    """True when the target resolves on the page (it is present); an ambiguous target fails."""

    kind: Literal["present"] = "present"
    target: LocatorBundle


class UrlCondition(Document):
    """True when the page URL matches ``expected`` (as an assertion's ``url_matches``)."""

    kind: Literal["url"] = "url"
    expected: Annotated[str, StringConstraints(min_length=1, max_length=1024)]


class CompareCondition(Document):
    """An input, an output or an item field compared with ``expected`` (a literal the reviewer
    chose, or another reference). Numbers compare as numbers; ``contains`` and ``equals`` on text
    ignore case and whitespace runs; ``empty``/``not_empty`` take no ``expected``."""

    kind: Literal["compare"] = "compare"
    value: DataRef
    op: CompareOp
    expected: ValueRef | None = None

    @model_serializer(mode="wrap")
    def _omit_unused(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("expected") is None:
            data.pop("expected", None)
        return data

    @model_validator(mode="after")
    def _shape(self) -> CompareCondition:
        if (self.op in ("empty", "not_empty")) == (self.expected is not None):
            raise ValueError("empty and not_empty take no expected value; every other comparison does")
        return self


Condition = Annotated[PresentCondition | UrlCondition | CompareCondition, Field(discriminator="kind")]
