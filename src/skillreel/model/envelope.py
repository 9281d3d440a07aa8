"""The one versioned envelope around every ``--json`` output and every MCP tool result.

    {"schema": "skillreel.result/v1", "command": "replay", "ok": false,
     "data": {...} | null,
     "error": {"code": "SR_...", "message": "...", "fix": "...", "actionId": "a3" | null,
               "details": {...}} | null,
     "warnings": [{"code": "SR_...", "message": "..."}]}

The same six keys on success and on failure. ``ok`` is true exactly when ``error`` is null.
``command`` is the CLI verb as typed (``"list"``, ``"policy set"``) or the MCP tool name, and null
only when no verb was recognised. ``data`` is the command's result document on success; on failure
it holds what is already known when that is useful (a replay's name, revision and the steps that
ran), else null. ``warnings`` is always a list: a use case puts :class:`ResultWarning` s on its
result and the edge (CLI or MCP) passes them to :func:`succeeded` or :func:`failed`.

The shape changes only together with :data:`SCHEMA`; ``docs/result.schema.json`` is its published
JSON Schema and a test keeps the two equal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Final, Literal, Self

from pydantic import ConfigDict, Field, StringConstraints, model_validator

from ..errors import SkillreelError
from .base import Document

SCHEMA: Final = "skillreel.result/v1"

Code = Annotated[str, StringConstraints(pattern=r"^SR_[A-Z0-9_]+$")]

# The JSON Schema dialect pydantic writes, and the rule that ``ok`` and ``error`` agree (pydantic
# cannot derive it from the fields, so the published schema states it).
_SCHEMA_EXTRA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "oneOf": [
        {"properties": {"ok": {"const": True}, "error": {"type": "null"}}},
        {"properties": {"ok": {"const": False}, "error": {"type": "object"}}},
    ],
}


class ErrorBody(Document):
    """Why a command failed: a stable code, a content-free message and the code's fix line
    (``SkillreelError.to_json()`` writes it)."""

    code: Code = Field(description="A stable SR_* code (docs/errors.md).")
    message: str = Field(description="What happened; never a typed value, selector or page text.")
    fix: str = Field(description="What to do about it (the code's fix line).")
    action_id: str | None = Field(description="The replay step that failed, or null.")
    details: dict[str, Any] = Field(description="More about this failure (empty when there is none).")


class ResultWarning(Document):
    """Something the caller should know about a result that stands (it never means failure)."""

    code: Code
    message: str


class Envelope(Document):
    model_config = ConfigDict(title="skillreel result", json_schema_extra=_SCHEMA_EXTRA)

    schema_: Literal["skillreel.result/v1"] = Field(alias="schema", description="This envelope's version.")
    command: str | None = Field(
        description="The CLI verb (e.g. 'policy set') or MCP tool name; null when no verb was recognised."
    )
    ok: bool = Field(description="True exactly when error is null.")
    data: dict[str, Any] | None = Field(description="The result document; on failure what is known, or null.")
    error: ErrorBody | None
    warnings: list[ResultWarning] = Field(description="Always a list; empty when there is nothing to say.")

    @model_validator(mode="after")
    def _ok_matches_error(self) -> Self:
        if self.ok != (self.error is None):
            raise ValueError("ok must be true exactly when error is null")
        return self


def succeeded(
    command: str | None, data: Mapping[str, Any], warnings: Sequence[ResultWarning] = ()
) -> dict[str, Any]:
    """The envelope of a command that did what it was asked."""
    return _envelope(command, True, dict(data), None, warnings)


def failed(
    command: str | None,
    error: SkillreelError,
    data: Mapping[str, Any] | None = None,
    warnings: Sequence[ResultWarning] = (),
) -> dict[str, Any]:
    """The envelope of a command that was refused or failed, with what is known in ``data``."""
    return _envelope(command, False, None if data is None else dict(data), error.to_json(), warnings)


def _envelope(
    command: str | None,
    ok: bool,
    data: dict[str, Any] | None,
    error: dict[str, Any] | None,
    warnings: Sequence[ResultWarning],
) -> dict[str, Any]:
    """A plain dict in :class:`Envelope`'s key order. Validating it through the model here would
    cost every command the model's first build (tens of milliseconds, more than ``list`` itself
    needs); the tests validate every output they see against :class:`Envelope` instead."""
    return {
        "schema": SCHEMA,
        "command": command,
        "ok": ok,
        "data": data,
        "error": error,
        "warnings": [w.to_json() for w in warnings],
    }
