"""Content-free audit events in a hash chain: each event's digest covers the previous one's.

Compatible extension (v1): ``actor`` (who asked: ``cli``, ``mcp``, ``package-script``, ``import``,
``batch``, ``fleet``), ``run`` (the replay run an event belongs to) and ``suppressed`` (how many
refused calls before this one were coalesced into it instead of logged one by one) are left out of
the wire form when unset, so every event written before they existed keeps its exact canonical form
and digest, and the chain of an old store still verifies.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import Field, SerializerFunctionWrapHandler, StringConstraints, model_serializer

from .base import Digest, DigestedDocument, Label, SkillName, Timestamp
from .runs import Actor, RunId

AuditKind = Literal[
    "record",
    "review",
    "replay",  # a replay before runs existed; a replay refused before its run is now ``replay-refused``
    "enable",
    "revoke",
    "delete",
    "prune",
    "import",
    "export",
    "policy",
    "heal-proposal",
    "edit",  # a new draft revision from structured edits (skillreel edit)
    "rollback",
    "run-start",  # a run reserved before its browser started
    "run-end",  # a run finished (outcome ok / failed / cancelled) or found interrupted
    "validate",  # the first successful run of an approved revision made it validated
    "replay-refused",  # a replay refused before any run was reserved (coalesced when frequent)
    "session",
    "environment",
    "agent-play-confirmed",  # a person confirmed that agents may play an approved revision (MCP or CLI)
]
Outcome = Literal["ok", "failed", "cancelled", "interrupted"]
DigestName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-zA-Z0-9]{0,47}$")]
ErrorCodeStr = Annotated[str, StringConstraints(pattern=r"^SR_[A-Z_]{1,60}$")]

_EXTENSION_KEYS: Final = ("actor", "run", "suppressed")


class AuditEvent(DigestedDocument):
    digest_tag = "skillreel.audit-event/v1"
    digest_field = "event_digest"

    schema_: Literal["skillreel.audit-event/v1"] = Field("skillreel.audit-event/v1", alias="schema")
    seq: Annotated[int, Field(ge=1)]
    kind: AuditKind
    name: SkillName | None = None
    revision: Annotated[int, Field(ge=1)] | None = None
    outcome: Outcome = "ok"
    code: ErrorCodeStr | None = None
    digests: dict[DigestName, Digest] = Field(default_factory=dict, max_length=16)
    reviewer: Label | None = None
    actor: Actor | None = None
    run: RunId | None = None
    suppressed: Annotated[int, Field(ge=1)] | None = None
    at: Timestamp
    prev_digest: Digest
    event_digest: Digest

    @model_serializer(mode="wrap")
    def _omit_unset_extensions(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in _EXTENSION_KEYS:
            if data.get(key) is None:
                data.pop(key, None)
        return data
