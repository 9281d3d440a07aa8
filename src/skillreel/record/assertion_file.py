"""Assertion files (``--assertions``): the observations and checks added at the end of a recording
(ARCHITECTURE section 11). Each names a CSS selector, resolved at the end of the recording in the
recorder's isolated world and described like any recorded target (``services.recording``)."""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import Field, StringConstraints, model_validator

from ..model.actions import AssertCheck, Count, ExpectedText, assert_shape_problem
from ..model.base import Document
from ..model.limits import MAX_SELECTOR_CHARS

__all__ = ["MAX_ASSERTIONS", "AssertionSpec", "AssertionsFile"]

MAX_ASSERTIONS: Final = 64

Selector = Annotated[str, StringConstraints(min_length=1, max_length=MAX_SELECTOR_CHARS)]


class AssertionSpec(Document):
    """One entry of an assertions file: an ``observe`` or an ``assert`` with its check (a
    ``count`` with ``expected`` or with ``atLeast``/``atMost`` bounds)."""

    kind: Literal["observe", "assert"]
    selector: Selector | None = None
    check: AssertCheck | None = None
    expected: ExpectedText | Count | None = None
    at_least: Count | None = None
    at_most: Count | None = None

    @property
    def event_fields(self) -> dict[str, object]:
        """The recorded event's fields of this check (a count's bounds only when set)."""
        bounds = {k: v for k, v in (("at_least", self.at_least), ("at_most", self.at_most)) if v is not None}
        return {"check": self.check, "expected": self.expected, **bounds}

    @model_validator(mode="after")
    def _shape(self) -> AssertionSpec:
        problem = _assertion_problem(self)
        if problem:
            raise ValueError(problem)
        return self


def _assertion_problem(a: AssertionSpec) -> str | None:
    if a.kind == "observe":
        if a.selector is None or a.check is not None or a.expected is not None:
            return "an observe takes a selector only"
        return None
    if a.check is None:
        return "an assert needs a check"
    if (a.check == "url_matches") == (a.selector is not None):
        return "url_matches takes no selector; every other check needs one"
    shape = assert_shape_problem(a.check, a.selector is not None, a.expected, a.at_least, a.at_most)
    if shape is not None:
        return shape
    if a.check in ("visible", "not_empty"):
        return f"{a.check} takes no expected value" if a.expected is not None else None
    if a.check == "absent":
        return None
    if a.check == "count":
        bounded = a.at_least is not None or a.at_most is not None
        return None if bounded or isinstance(a.expected, int) else "count expects an integer or bounds"
    return None if isinstance(a.expected, str) else f"{a.check} expects a text"


class AssertionsFile(Document):
    """``{"assertions": [...]}`` (ARCHITECTURE section 11)."""

    assertions: tuple[AssertionSpec, ...] = Field(min_length=1, max_length=MAX_ASSERTIONS)
