"""Evidence per step and the ReplayReport: digests only, never content."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    StringConstraints,
    model_serializer,
    model_validator,
)

from .base import ActionId, Digest, DigestedDocument, Document, SkillName, Timestamp
from .canonical import canonical_json
from .limits import MAX_EVIDENCE_BYTES, MAX_STEP_RUNS

FactName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-zA-Z0-9]{0,47}$")]


class Evidence(DigestedDocument):
    """What a step left behind: named digests (target, after-state, url, screenshot, check...)."""

    digest_tag = "skillreel.evidence/v1"
    digest_field = "evidence_digest"

    schema_: Literal["skillreel.evidence/v1"] = Field("skillreel.evidence/v1", alias="schema")
    action_id: ActionId
    kind: str = Field(pattern=r"^[a-z]{1,16}$")
    healed: bool = False
    facts: dict[FactName, Digest] = Field(default_factory=dict, max_length=64)
    evidence_digest: Digest

    @model_validator(mode="after")
    def _bounded(self) -> Evidence:
        if len(canonical_json(self.to_json())) > MAX_EVIDENCE_BYTES:
            raise ValueError("evidence exceeds 256 KiB")
        return self


class StepResult(Document):
    """One step of a replay. ``runs`` (schema v2, left out of the wire form when 1): how many
    times the step ran (in a loop); its evidence then covers every run. ``retries`` (left out
    when 0): how many times a step with ``retry`` failed and ran again (a count, never why)."""

    action_id: ActionId
    evidence_digest: Digest
    healed: bool = False
    runs: Annotated[int, Field(ge=1, le=MAX_STEP_RUNS)] = 1
    retries: Annotated[int, Field(ge=0, le=MAX_STEP_RUNS)] = 0

    @model_serializer(mode="wrap")
    def _omit_one_run(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("runs") == 1:
            del data["runs"]
        if data.get("retries") == 0:
            del data["retries"]
        return data


class ReplayReport(DigestedDocument):
    """Exists only for a replay in which every step succeeded."""

    digest_tag = "skillreel.replay-report/v1"
    digest_field = "report_digest"

    schema_: Literal["skillreel.replay-report/v1"] = Field("skillreel.replay-report/v1", alias="schema")
    name: SkillName
    draft_digest: Digest
    approval_digest: Digest
    environment_digest: Digest
    status: Literal["succeeded"] = "succeeded"
    steps: tuple[StepResult, ...] = Field(min_length=1, max_length=256)
    finished_at: Timestamp
    report_digest: Digest

    @property
    def healed(self) -> bool:
        return any(s.healed for s in self.steps)
