"""The Draft: what the recorder produced and what a reviewer approves (ARCHITECTURE section 3)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from .actions import Action, Capability, capability_manifest, parameter_refs
from .base import Digest, DigestedDocument, Document, ParamName, SkillName
from .environment import Environment
from .limits import MAX_ACTIONS, MAX_DESCRIPTION_CHARS, MAX_FAILURE_CONDITION_CHARS, MAX_FAILURE_CONDITIONS

Description = Annotated[str, StringConstraints(min_length=1, max_length=MAX_DESCRIPTION_CHARS)]
FailureCondition = Annotated[str, StringConstraints(min_length=1, max_length=MAX_FAILURE_CONDITION_CHARS)]
Salt = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]


class Parameter(Document):
    """A replay input: its name and flags only. Never a value, never a default."""

    name: ParamName
    required: bool = True
    sensitive: bool = False


class Draft(DigestedDocument):
    digest_tag = "skillreel.draft/v1"
    digest_field = "draft_digest"

    schema_: Literal["skillreel.draft/v1"] = Field("skillreel.draft/v1", alias="schema")
    name: SkillName
    description: Description
    actions: tuple[Action, ...] = Field(min_length=1, max_length=MAX_ACTIONS)
    parameters: tuple[Parameter, ...] = Field(default=(), max_length=MAX_ACTIONS)
    capabilities: tuple[Capability, ...]
    failure_conditions: tuple[FailureCondition, ...] = Field(default=(), max_length=MAX_FAILURE_CONDITIONS)
    environment: Environment
    fingerprint_salt: Salt
    events_digest: Digest
    draft_digest: Digest

    @model_validator(mode="after")
    def _consistent(self) -> Draft:
        ids = [a.id for a in self.actions]
        if len(set(ids)) != len(ids):
            raise ValueError("action ids must be unique")
        if self.capabilities != capability_manifest(self.actions):
            raise ValueError("capabilities must equal the manifest computed from the actions")
        names = [p.name for p in self.parameters]
        if len(set(names)) != len(names):
            raise ValueError("parameter names must be unique")
        if set(parameter_refs(self.actions)) != set(names):
            raise ValueError("every parameter must be used by an action and every reference declared")
        return self

    def parameter(self, name: str) -> Parameter | None:
        return next((p for p in self.parameters if p.name == name), None)

    def action(self, action_id: str) -> Action | None:
        return next((a for a in self.actions if a.id == action_id), None)
