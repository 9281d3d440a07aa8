"""The store policy (``skillreel.policy/v1``): limits, retention, capabilities, install, healing."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from ..errors import RecordError
from .actions import ALL_CAPABILITIES, Capability
from .base import Digest, DigestedDocument, Document
from .limits import (
    DEFAULT_MAX_AUDIT_EVENTS,
    DEFAULT_MAX_RECORDS,
    DEFAULT_RETENTION_DAYS,
    MAX_ACTIONS,
    MAX_AUDIT_EVENTS_CEILING,
    MAX_RECORDS_CEILING,
    MAX_STORE_BYTES,
    MIN_STORE_BYTES,
    RETENTION_DAYS_RANGE,
)

UnsignedImports = Literal["draft", "keep"]
_EXTENSION_KEYS = ("unsignedImports", "unsigned_imports")


class PolicySettings(Document):
    """The editable part of a policy: what `policy set FILE` reads (a digest is optional there).

    Compatible extensions (v1), each left out of the wire form when unset, so every policy written
    before it existed keeps its digest: ``unsignedImports`` (what an import not verified against a
    trusted key becomes: ``draft``, a draft that needs a new review, or ``keep``, the state it was
    exported in; unset means ``draft``) and ``maxStoreBytes`` (the store's size bound, at most the
    32 MiB of source document 000; unset means 32 MiB).
    """

    schema_: Literal["skillreel.policy/v1"] = Field("skillreel.policy/v1", alias="schema")
    retention_days: Annotated[int, Field(ge=RETENTION_DAYS_RANGE[0], le=RETENTION_DAYS_RANGE[1])] = (
        DEFAULT_RETENTION_DAYS
    )
    max_records: Annotated[int, Field(ge=1, le=MAX_RECORDS_CEILING)] = DEFAULT_MAX_RECORDS
    max_actions: Annotated[int, Field(ge=1, le=MAX_ACTIONS)] = MAX_ACTIONS
    max_audit_events: Annotated[int, Field(ge=100, le=MAX_AUDIT_EVENTS_CEILING)] = DEFAULT_MAX_AUDIT_EVENTS
    allowed_capabilities: tuple[Capability, ...] = ALL_CAPABILITIES
    allow_global_install: bool = False
    heal_mode: Literal["off", "runtime"] = "runtime"
    unsigned_imports: UnsignedImports | None = None
    max_store_bytes: Annotated[int, Field(ge=MIN_STORE_BYTES, le=MAX_STORE_BYTES)] | None = None

    @model_serializer(mode="wrap")
    def _omit_unset_extensions(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in (*_EXTENSION_KEYS, "maxStoreBytes", "max_store_bytes"):
            if key in data and data[key] is None:
                del data[key]
        return data

    @property
    def unsigned_import_status(self) -> UnsignedImports:
        """What an unverified import becomes under this policy (``draft`` when unset)."""
        return self.unsigned_imports or "draft"

    @property
    def store_limit_bytes(self) -> int:
        """The store's size bound in force (``maxStoreBytes``, or 32 MiB when unset)."""
        return self.max_store_bytes if self.max_store_bytes is not None else MAX_STORE_BYTES

    @model_validator(mode="after")
    def _sorted_caps(self) -> PolicySettings:
        if self.allowed_capabilities != tuple(sorted(set(self.allowed_capabilities))):
            raise ValueError("allowedCapabilities must be unique and sorted")
        return self

    def denied_capabilities(self, needed: Iterable[Capability]) -> tuple[Capability, ...]:
        """The capabilities in ``needed`` that this policy does not allow, sorted (empty: all allowed)."""
        return tuple(sorted(set(needed) - set(self.allowed_capabilities)))

    def require_capabilities(self, needed: Iterable[Capability]) -> None:
        """``SR_RECORD_POLICY_DENIED`` unless the policy allows every capability in ``needed``."""
        denied = self.denied_capabilities(needed)
        if denied:
            raise RecordError(
                "SR_RECORD_POLICY_DENIED", f"the policy does not allow the capabilities {', '.join(denied)}"
            )


class Policy(PolicySettings, DigestedDocument):
    """The policy in force, with its digest (PolicySettings plus ``policyDigest``)."""

    digest_tag = "skillreel.policy/v1"
    digest_field = "policy_digest"

    policy_digest: Digest

    @classmethod
    def from_settings(cls, settings: PolicySettings) -> Policy:
        fields = settings.model_dump(exclude={"schema_"})
        return cls.build(**fields)

    @classmethod
    def default(cls) -> Policy:
        return cls.from_settings(PolicySettings())
