"""Content-free audit events in a hash chain: each event's digest covers the previous one's."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from .base import Digest, DigestedDocument, Label, SkillName, Timestamp

AuditKind = Literal[
    "record",
    "review",
    "replay",
    "enable",
    "revoke",
    "delete",
    "prune",
    "import",
    "export",
    "policy",
    "heal-proposal",
    "edit",
]
DigestName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-zA-Z0-9]{0,47}$")]
ErrorCodeStr = Annotated[str, StringConstraints(pattern=r"^SR_[A-Z_]{1,60}$")]


class AuditEvent(DigestedDocument):
    digest_tag = "skillreel.audit-event/v1"
    digest_field = "event_digest"

    schema_: Literal["skillreel.audit-event/v1"] = Field("skillreel.audit-event/v1", alias="schema")
    seq: Annotated[int, Field(ge=1)]
    kind: AuditKind
    name: SkillName | None = None
    revision: Annotated[int, Field(ge=1)] | None = None
    outcome: Literal["ok", "failed"] = "ok"
    code: ErrorCodeStr | None = None
    digests: dict[DigestName, Digest] = Field(default_factory=dict, max_length=16)
    reviewer: Label | None = None
    at: Timestamp
    prev_digest: Digest
    event_digest: Digest
