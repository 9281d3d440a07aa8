"""An Approval binds one reviewer's decision to one exact draft digest, its capabilities and the
named environments it may replay on (``approvedEnvironments``: exactly those, a subset of the
draft's declared ones; left out of the JSON when empty, so earlier approvals keep their digest)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from .actions import Capability
from .base import Digest, DigestedDocument, Label, SkillName, Timestamp
from .draft import Draft
from .environment import EnvName


class Approval(DigestedDocument):
    digest_tag = "skillreel.approval/v1"
    digest_field = "approval_digest"

    schema_: Literal["skillreel.approval/v1"] = Field("skillreel.approval/v1", alias="schema")
    name: SkillName
    draft_digest: Digest
    reviewer: Label
    approved_capabilities: tuple[Capability, ...]
    approved_environments: tuple[EnvName, ...] = ()
    accepted_failure_conditions: Literal[True] = True
    approved_at: Timestamp
    approval_digest: Digest

    @model_serializer(mode="wrap")
    def _omit_later_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not data.get("approvedEnvironments"):
            data.pop("approvedEnvironments", None)
        return data

    @model_validator(mode="after")
    def _sorted(self) -> Approval:
        if self.approved_environments != tuple(sorted(set(self.approved_environments))):
            raise ValueError("approvedEnvironments must be unique and sorted")
        return self

    def matches(self, draft: Draft) -> bool:
        """True when this approval is for exactly this draft and its capabilities, and every
        environment it approves is declared by the draft."""
        return (
            self.name == draft.name
            and self.draft_digest == draft.draft_digest
            and self.approved_capabilities == draft.capabilities
            and set(self.approved_environments) <= set(draft.environment.environment_names)
        )

    def covers(self, environment: str) -> bool:
        """Whether a replay on the named environment is approved."""
        return environment in self.approved_environments
