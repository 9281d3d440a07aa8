"""An Approval binds one reviewer's decision to one exact draft digest."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .actions import Capability
from .base import Digest, DigestedDocument, Label, SkillName, Timestamp
from .draft import Draft


class Approval(DigestedDocument):
    digest_tag = "skillreel.approval/v1"
    digest_field = "approval_digest"

    schema_: Literal["skillreel.approval/v1"] = Field("skillreel.approval/v1", alias="schema")
    name: SkillName
    draft_digest: Digest
    reviewer: Label
    approved_capabilities: tuple[Capability, ...]
    accepted_failure_conditions: Literal[True] = True
    approved_at: Timestamp
    approval_digest: Digest

    def matches(self, draft: Draft) -> bool:
        """True when this approval is for exactly this draft and its capabilities."""
        return (
            self.name == draft.name
            and self.draft_digest == draft.draft_digest
            and self.approved_capabilities == draft.capabilities
        )
