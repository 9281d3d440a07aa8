"""The store policy (``skillreel.policy/v1``): limits, retention, capabilities, install, healing,
and what each caller may do (``callers``: the MCP server's own narrower authority)."""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from typing import Annotated, Any, Final, Literal

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    StringConstraints,
    model_serializer,
    model_validator,
)

from ..errors import PolicyError, RecordError
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
_EXTENSION_KEYS = (
    "unsignedImports",
    "unsigned_imports",
    "callers",
    "uploadDirs",
    "upload_dirs",
    "requireFinalCheck",
    "require_final_check",
)
# A directory MCP callers may upload files from (issue 32.2): an absolute path.
UploadDir = Annotated[str, StringConstraints(min_length=2, max_length=1024, pattern=r"^/[^\x00]*$")]

# A skill name, or a glob over skill names (``*`` any run of characters, ``?`` one).
SkillPattern = Annotated[str, StringConstraints(pattern=r"^[a-z0-9*?][a-z0-9*?-]{0,63}$")]
MAX_PLAYS_PER_MINUTE: Final = 600
RATE_WINDOW_S: Final = 60


class CallerRules(Document):
    """What one caller may do, narrower than the policy's own rules (never wider). Each key left
    out means "as the policy says": ``allowedCapabilities`` (a subset of the policy's),
    ``allowedSkills`` (skill names or globs such as ``invoices-*``; the caller may play only
    these) and ``playsPerMinute`` (plays the caller may start in any 60 seconds, counted from the
    runs the store keeps). ``downloadsDir`` (an absolute path) is where the download steps of the
    caller's plays save their files; left out, a skill that downloads is refused for the caller."""

    allowed_capabilities: tuple[Capability, ...] | None = None
    allowed_skills: tuple[SkillPattern, ...] | None = Field(default=None, min_length=1, max_length=64)
    plays_per_minute: Annotated[int, Field(ge=1, le=MAX_PLAYS_PER_MINUTE)] | None = None
    downloads_dir: Annotated[str, StringConstraints(pattern=r"^/[^\x00]{0,1023}$")] | None = None

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return {k: v for k, v in handler(self).items() if v is not None}

    @model_validator(mode="after")
    def _sorted(self) -> CallerRules:
        caps = self.allowed_capabilities
        if caps is not None and caps != tuple(sorted(set(caps))):
            raise ValueError("allowedCapabilities must be unique and sorted")
        return self

    def allows_skill(self, name: str) -> bool:
        return self.allowed_skills is None or any(fnmatchcase(name, p) for p in self.allowed_skills)


class Callers(Document):
    """Per-caller rules (``callers`` of the policy). ``mcp``: every play through ``skillreel mcp``
    (whatever client name it gives: a claim, never an identity). The command line keeps the
    policy's own rules."""

    mcp: CallerRules | None = None

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return {k: v for k, v in handler(self).items() if v is not None}


class PolicySettings(Document):
    """The editable part of a policy: what `policy set FILE` reads (a digest is optional there).

    Compatible extensions (v1), each left out of the wire form when unset, so every policy written
    before it existed keeps its digest: ``unsignedImports`` (what an import not verified against a
    trusted key becomes: ``draft``, a draft that needs a new review, or ``keep``, the state it was
    exported in; unset means ``draft``) and ``maxStoreBytes`` (the store's size bound, at most the
    32 MiB of source document 000; unset means 32 MiB), ``requireFinalCheck`` (true: approval
    refuses a skill whose last side effect no check follows, ``model.coverage``; unset means false)
    and ``uploadDirs`` (issue 32.2): the directories an MCP caller may give a file input from
    (absolute paths); unset or empty, every MCP file input is refused (the command line takes any
    regular file).
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
    callers: Callers | None = None
    upload_dirs: tuple[UploadDir, ...] | None = Field(default=None, max_length=16)
    require_final_check: bool | None = None

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
        for caller, rules in self._caller_rules():
            wider = sorted(set(rules.allowed_capabilities or ()) - set(self.allowed_capabilities))
            if wider:
                raise ValueError(
                    f"callers.{caller}.allowedCapabilities may only narrow allowedCapabilities "
                    f"(not allowed there: {', '.join(wider)})"
                )
        return self

    def _caller_rules(self) -> tuple[tuple[str, CallerRules], ...]:
        mcp = self.callers.mcp if self.callers is not None else None
        return (("mcp", mcp),) if mcp is not None else ()

    def rules_of(self, caller: str) -> CallerRules | None:
        """The narrower rules of ``caller`` (``mcp``), or None: the policy's own rules apply."""
        return dict(self._caller_rules()).get(caller)

    def require_caller(
        self, caller: str, name: str, needed: Iterable[Capability], plays_last_minute: int
    ) -> None:
        """``SR_POLICY_CALLER_*`` unless ``caller``'s own rules let it play ``name`` now: the skill
        among its allowed skills, every capability ``needed`` among its allowed capabilities, and
        fewer than ``playsPerMinute`` plays started in the last minute. No rules: nothing refused."""
        rules = self.rules_of(caller)
        if rules is None:
            return
        if not rules.allows_skill(name):
            raise PolicyError(
                "SR_POLICY_CALLER_SKILL_DENIED",
                f"the policy's callers.{caller}.allowedSkills does not list {name!r}: "
                f"{caller} may not play it (the command line may); nothing was replayed",
                details={"caller": caller, "rule": "allowedSkills"},
            )
        allowed = rules.allowed_capabilities
        denied = sorted(set(needed) - set(allowed)) if allowed is not None else []
        if denied:
            raise PolicyError(
                "SR_POLICY_CALLER_CAPABILITY_DENIED",
                f"the policy's callers.{caller}.allowedCapabilities does not allow "
                f"{', '.join(denied)}; nothing was replayed",
                details={"caller": caller, "rule": "allowedCapabilities", "denied": denied},
            )
        limit = rules.plays_per_minute
        if limit is not None and plays_last_minute >= limit:
            raise PolicyError(
                "SR_POLICY_CALLER_RATE_LIMITED",
                f"the policy's callers.{caller}.playsPerMinute allows {limit} play(s) a minute and "
                f"{plays_last_minute} started in the last {RATE_WINDOW_S} s; nothing was replayed",
                details={"caller": caller, "rule": "playsPerMinute", "limit": limit},
            )

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
