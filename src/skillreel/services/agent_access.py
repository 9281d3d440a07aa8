"""Use cases of a coding agent (the MCP server's two tools): list the enabled skills, and check a
request to play one before anything is asked or started.

Agents may list and play, never record, edit, approve, enable or revoke (source document 004). What
they see is metadata only: never a selector, a URL path or a value. A play request is refused unless
the skill is enabled, replays on a target MCP can reach (no HTML fixture or storage-state file, which
only the command line can pass; a skill signed in with a vault login is reachable: the login is
read from the vault by name) and gets no sensitive value from the model; then the replay's own
pre-flight runs (with the named environment asked for, if any) and lists the sensitive values the
vault lacks (the MCP adapter asks the user).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from ..agent_skills.skill_md import clean_text, cli_only_file
from ..errors import LifecycleError, ReplayError, TargetError
from ..model.base import check_skill_name
from ..model.entry import StoreEntry
from ..model.environment import UrlTarget
from ..model.lifecycle import parse_timestamp, timestamp
from ..model.policy import RATE_WINDOW_S
from ..model.urls import origin_of
from ..model.values import outputs_schema
from ..store import Store
from ..vault import SecretSource, parameter_listing
from .preflight import InputValue, ReplayRequest, preflight


def cli_only_inputs(entry: StoreEntry) -> str | None:
    """What a replay of ``entry`` needs that only the CLI can give (a file on the user's disk)."""
    needs = cli_only_file(entry.draft.environment)
    return f"{needs[1]} ({needs[0]})" if needs else None


def skill_summary(entry: StoreEntry) -> dict[str, Any]:
    """One enabled skill as ``skills_list`` shows it: metadata only, never a selector or a URL path."""
    draft = entry.draft
    target = draft.environment.target
    origins = list(target.allowed_origins) if isinstance(target, UrlTarget) else []
    needs = cli_only_inputs(entry)
    approval = entry.approval
    environments = [
        {"name": e.name, "origin": e.origin, "allowedOrigins": list(e.allowed_origins)}
        for e in draft.environment.environments
        if approval is not None and approval.covers(e.name)
    ]
    return {
        "name": entry.name,
        "description": clean_text(draft.description),
        "revision": entry.revision,
        "version": entry.version,
        "playable": needs is None,  # over MCP; otherwise only `skillreel replay` can pass what it needs
        **({"needs": needs} if needs else {}),
        "capabilities": list(draft.capabilities),
        "target": {"kind": "url", "origin": origin_of(target.url), "allowedOrigins": origins}
        if isinstance(target, UrlTarget)
        else {"kind": "html"},
        "signedIn": draft.environment.login is not None or draft.environment.storage_state_digest is not None,
        "environments": environments,  # the approved ones: skills_play's `environment`
        "parameters": parameter_listing(entry.name, draft.parameters),
        **({"outputs": outputs_schema(draft.outputs)} if draft.outputs else {}),
    }


@dataclass(frozen=True)
class EnabledSkills:
    entries: tuple[StoreEntry, ...]

    def to_json(self) -> dict[str, Any]:
        return {"skills": [skill_summary(e) for e in self.entries]}


def enabled_skills(store: Store) -> EnabledSkills:
    """The skills an agent may play: the enabled ones, and no other."""
    return EnabledSkills(tuple(e for e in store.entries() if e.status == "enabled"))


@dataclass(frozen=True)
class PlayCheck:
    entry: StoreEntry
    missing: tuple[str, ...]  # required sensitive parameters the vault has no value for


def check_play(
    store: Store,
    name: str,
    inputs: Mapping[str, InputValue],
    secrets: SecretSource,
    environment: str | None = None,
) -> PlayCheck:
    """Everything refused before a question is asked or a browser starts: the name, the state
    (enabled only), a target MCP can reach, sensitive values from the model, then the replay's own
    pre-flight (inputs, the named environment, the vault login, capabilities), which also lists
    what the vault lacks."""
    check_skill_name(name)
    entry = store.get(name)
    if entry.status != "enabled":
        raise LifecycleError(
            "SR_RECORD_STATE_INVALID",
            f"skill {name!r} is {entry.status}, not enabled: only enabled skills are "
            "played over MCP (a person enables one: `skillreel enable NAME --approve`)",
        )
    needs = cli_only_inputs(entry)
    if needs:
        raise TargetError(
            "SR_RECORD_TARGET_INVALID",
            f"skill {name!r} replays only with {needs}, which MCP cannot pass: "
            f"run `skillreel replay {name}` on the command line",
        )
    check_caller(store, entry)
    given = sorted(set(inputs) & {p.name for p in entry.draft.parameters if p.sensitive})
    if given:
        raise ReplayError(
            "SR_REPLAY_SENSITIVE_ON_ARGV",
            f"sensitive parameter(s) {', '.join(given)} must not come from the model; "
            "skillreel reads them from the vault or asks the user; nothing was replayed",
        )
    request = ReplayRequest(
        name=name, inputs=dict(inputs), expected_revision=entry.revision, environment=environment
    )
    checked = preflight(store, request, secrets)
    return PlayCheck(entry, tuple(checked.missing_sensitive))


def check_caller(store: Store, entry: StoreEntry) -> None:
    """The policy's own rules for MCP (``callers.mcp``): ``SR_POLICY_CALLER_*`` naming the rule.

    The rate counts the runs the store holds that MCP started in the last minute, not a window in
    this process: every ``skillreel mcp`` process (one per agent client) shares it, and restarting
    the server does not reset it. A refused play starts no run and so counts nothing."""
    policy = store.policy()
    rules = policy.rules_of("mcp")
    if rules is None:
        return
    played = 0
    if rules.plays_per_minute is not None:
        since = timestamp(parse_timestamp(store.now()) - timedelta(seconds=RATE_WINDOW_S - 1))
        played = store.plays_since("mcp", since)
    policy.require_caller("mcp", entry.name, entry.draft.capabilities, played)


_UNSAFE_LABEL = re.compile(r"[^A-Za-z0-9 ._@/+-]+")
_UNTRIMMED = re.compile(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$")


def client_label(name: str | None) -> str | None:
    """An MCP client's self-declared name as the runs record it (``RunRecord.client``): the
    characters a name needs, others replaced by ``_``, at most 64; None when nothing is left."""
    if not name:
        return None
    cleaned = _UNTRIMMED.sub("", _UNTRIMMED.sub("", _UNSAFE_LABEL.sub("_", name))[:64])
    return cleaned or None
