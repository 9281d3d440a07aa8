"""One error root for skillreel, with a catalogue of stable codes.

Every failure a user can see is a :class:`SkillreelError` carrying a stable ``code`` from
:data:`CODES`, a content-free ``message`` and the process exit status the CLI uses, which belongs
to the code, not to the class (1: a refused or failed operation, 2: bad usage or a bad input: a
file, an option, a parameter value, a batch row). Library errors
(Playwright, sqlite3, OS errors) are translated once, at the boundary that met them,
with ``raise ... from exc``.

Messages never contain selectors, typed values, page text, storage state, cookies or raw
URLs; :func:`assert_content_free` is a cheap guard the boundaries use on dynamic parts.

The tree (a class accepts only the codes of its family: its prefix)::

    SkillreelError                      SR_*     code, message, action_id, details; exit_status, fix
    ├── RecordError                     SR_RECORD_*     CLI input, store, policy, target, credential,
    │   │                                               package, approval, output
    │   ├── InputError                  bad input file, option, name or edit   (mostly exit 2)
    │   ├── StoreError                  busy, corrupt, limit, I/O, unsafe home, policy
    │   ├── LifecycleError              not found, exists, revision conflict, state forbids it
    │   ├── TargetError                 target / environment / session / drift (exit 2 or 1)
    │   └── InstallError                package install / revoke                (exit 1)
    ├── ReplayError                     SR_REPLAY_*     draft, review, schema, parameter, capability,
    │   │                                               evidence, batch, runset, fleet (exit 2 or 1)
    │   └── ReplayUIError               SR_REPLAY_UI_*  Chromium, selector, assertion, network, action
    │                                                   (exit 1)
    ├── PolicyError                     SR_POLICY_*     a caller's own rules refuse a play (exit 1)
    └── McpError                        SR_MCP_*        the MCP server refuses a play (exit 1)

The catalogue itself (every code with its exit status, summary and fix) is data and lives in
:mod:`skillreel.errors.codes`.
"""

from __future__ import annotations

from typing import Any

from .codes import CODES


class SkillreelError(Exception):
    """The root of every error skillreel reports. ``code`` is stable and documented."""

    family = "SR_"

    def __init__(
        self, code: str, message: str, *, action_id: str | None = None, details: dict[str, Any] | None = None
    ) -> None:
        if code not in CODES:
            raise ValueError(f"undocumented error code {code!r}")
        if not code.startswith(self.family):
            raise ValueError(f"{code} does not belong to {type(self).__name__}")
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.action_id = action_id
        self.details = dict(details or {})

    @property
    def exit_status(self) -> int:
        return CODES[self.code].exit_status

    @property
    def fix(self) -> str:
        return CODES[self.code].fix

    def to_json(self) -> dict[str, Any]:
        """The error as the CLI and MCP show it: the ``error`` object of the result envelope
        (``model/envelope.py``), every key always present."""
        return {
            "code": self.code,
            "message": self.message,
            "fix": self.fix,
            "actionId": self.action_id,
            "details": dict(self.details),
        }


class RecordError(SkillreelError):
    family = "SR_RECORD_"


class InputError(RecordError):
    """A bad input file, option or value."""


class StoreError(RecordError):
    """The store is busy, corrupt, full, unreadable, missing or in an unsafe home; or its policy
    refuses the change."""


class LifecycleError(RecordError):
    """A skill that is not there (or already is), a revision conflict, an invalid approval, or a
    state that does not allow the operation."""


class TargetError(RecordError):
    """A target, allowlist or environment that is not allowed or does not match."""


class InstallError(RecordError):
    """A package install or revoke that could not be done safely."""


class ReplayError(SkillreelError):
    family = "SR_REPLAY_"


class ReplayUIError(ReplayError):
    family = "SR_REPLAY_UI_"


class PolicyError(SkillreelError):
    """A rule of the policy refuses what a caller asked (``callers.mcp``: skill, capability, rate);
    the message names the rule."""

    family = "SR_POLICY_"


class McpError(SkillreelError):
    """The MCP server refuses a play (a first play nobody confirmed)."""

    family = "SR_MCP_"
