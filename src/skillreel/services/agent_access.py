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
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from ..agent_skills.skill_md import clean_text, cli_only_file
from ..errors import LifecycleError, McpError, TargetError
from ..model.base import check_skill_name
from ..model.entry import StoreEntry
from ..model.environment import UrlTarget
from ..model.intents import step_intent
from ..model.lifecycle import check_revision, parse_timestamp, timestamp
from ..model.policy import RATE_WINDOW_S
from ..model.trust import TrustScore
from ..model.urls import origin_of
from ..model.values import outputs_schema
from ..store import Store
from ..vault import SecretSource, parameter_listing
from .guards import approval_required
from .preflight import InputValue, ReplayRequest, preflight


def cli_only_inputs(entry: StoreEntry) -> str | None:
    """What a replay of ``entry`` needs that only the CLI can give (a file on the user's disk)."""
    needs = cli_only_file(entry.draft.environment)
    return f"{needs[1]} ({needs[0]})" if needs else None


def skill_summary(entry: StoreEntry, trust: TrustScore | None = None) -> dict[str, Any]:
    """One enabled skill as ``skills_list`` shows it: metadata only, never a selector or a URL path;
    ``trust``: its current draft's track record (``model.trust``), so an agent can prefer a skill
    that works."""
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
        "trust": (trust or TrustScore()).to_json(),
    }


@dataclass(frozen=True)
class EnabledSkills:
    entries: tuple[StoreEntry, ...]
    trust: Mapping[str, TrustScore] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"skills": [skill_summary(e, self.trust.get(e.name)) for e in self.entries]}


def enabled_skills(store: Store) -> EnabledSkills:
    """The skills an agent may play: the enabled ones the policy's ``callers.mcp.allowedSkills``
    (when set) lets MCP play, and no other."""
    rules = store.policy().rules_of("mcp")
    return EnabledSkills(
        tuple(
            e
            for e in store.entries()
            if e.status == "enabled" and (rules is None or rules.allows_skill(e.name))
        ),
        store.trust(),
    )


@dataclass(frozen=True)
class PlayCheck:
    entry: StoreEntry
    missing: tuple[str, ...]  # required sensitive parameters the vault has no value for
    confirmed: bool = False  # a person confirmed agents may play this approved revision
    downloads: Path | None = None  # the policy's callers.mcp.downloadsDir, for a skill that downloads


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
        raise McpError(
            "SR_MCP_SENSITIVE_INPUT",
            f"sensitive parameter(s) {', '.join(given)} must not be sent in `inputs`: "
            "the server reads them from the vault or asks the user; nothing was replayed",
        )
    rules = store.policy().rules_of("mcp")
    downloads = rules.downloads_dir if rules is not None else None
    request = mcp_request(name, inputs, entry.revision, environment, Path(downloads) if downloads else None)
    checked = preflight(store, request, secrets)
    confirmed = store.agent_play_confirmed(entry)
    return PlayCheck(entry, tuple(checked.missing_sensitive), confirmed, checked.downloads)


def mcp_request(
    name: str,
    inputs: Mapping[str, InputValue],
    revision: int,
    environment: str | None,
    downloads: Path | None = None,
) -> ReplayRequest:
    """The replay an MCP caller asks for: of the revision it checked, its file inputs only under
    the policy's ``uploadDirs`` (issue 32.2), its downloads into the policy's ``downloadsDir``."""
    return ReplayRequest(
        name=name,
        inputs=dict(inputs),
        expected_revision=revision,
        environment=environment,
        files_from_policy=True,
        downloads=downloads,
    )


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


# --- the first play by an agent (issue 30.6) ---------------------------------------------------

MAX_LISTED_STEPS = 256


def play_origins(entry: StoreEntry, environment: str | None = None) -> tuple[str, ...]:
    """The origins a play of ``entry`` (on ``environment`` when named) may reach, start origin first."""
    env = entry.draft.environment
    named = next((e for e in env.environments if e.name == environment), None)
    if named is not None:
        return (named.origin, *(o for o in named.allowed_origins if o != named.origin))
    target = env.target
    if not isinstance(target, UrlTarget):
        return ()
    start = origin_of(target.url)
    return (start, *(o for o in target.allowed_origins if o != start))


def confirmation_question(entry: StoreEntry, environment: str | None = None) -> str:
    """What a person reads before the first agent play of an approved revision: the skill, its
    version, the origins it may reach, its capabilities and every step's readable intent (no
    selector, value or URL path; written intents are cleaned to one printable line)."""
    draft = entry.draft
    sensitive = frozenset(p.name for p in draft.parameters if p.sensitive)
    steps = draft.walk()
    lines = [
        f"An agent asks to play the skill {entry.name!r} (version {entry.version}, revision "
        f"{entry.revision}) for the first time since this revision was approved.",
        f"What it does: {clean_text(draft.description)}",
        f"Origins it may reach: {', '.join(play_origins(entry, environment)) or 'none'}",
        f"Capabilities: {', '.join(draft.capabilities) or 'none'}",
        f"Steps ({len(steps)}):",
        *(
            f"  {i}. {a.id}: {clean_text(step_intent(a, sensitive))}"
            for i, a in enumerate(steps[:MAX_LISTED_STEPS], 1)
        ),
        "Accept (tick Play) to let agents play this approved revision from now on; a new approval "
        "asks again. Decline to refuse: nothing is played.",
    ]
    return "\n".join(lines)


def confirmation_required(entry: StoreEntry, why: str) -> McpError:
    return McpError(
        "SR_MCP_CONFIRMATION_REQUIRED",
        f"the first agent play of {entry.name!r} revision {entry.revision} needs a person's "
        f"confirmation: {why}; nothing was replayed (or confirm on the command line: "
        f"`skillreel enable {entry.name} --confirm-agent-play --approve`)",
        details={"revision": entry.revision},
    )


@dataclass(frozen=True)
class AgentPlayConfirmed:
    name: str
    revision: int
    approval_digest: str
    new: bool  # False: it was confirmed already

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "revision": self.revision,
            "approvalDigest": self.approval_digest,
            "agentPlayConfirmed": True,
            "new": self.new,
        }


def confirm_enabled_skill(
    store: Store, name: str, *, approve: bool, expected_revision: int | None = None
) -> AgentPlayConfirmed:
    """``enable NAME --confirm-agent-play``: confirm that agents may play the enabled skill's
    approved revision without asking first. Without ``approve``: ``SR_RECORD_APPROVAL_REQUIRED``."""
    entry = store.get(check_skill_name(name))
    check_revision(entry, expected_revision)
    if not approve:
        raise approval_required(
            f"let agents play {name!r} revision {entry.revision} without asking first",
            {"name": name, "revision": entry.revision, "agentPlayConfirmed": True},
        )
    return confirm_agent_play(store, entry)


def confirm_agent_play(store: Store, entry: StoreEntry) -> AgentPlayConfirmed:
    """Remember that a person confirmed agents may play ``entry``'s approved revision (one
    ``agent-play-confirmed`` audit event, naming the store's actor: ``cli`` or ``mcp``)."""
    if entry.approval is None or entry.status != "enabled":
        raise LifecycleError(
            "SR_RECORD_STATE_INVALID",
            f"skill {entry.name!r} is {entry.status}: agents play enabled skills only",
        )
    new = store.confirm_agent_play(entry)
    return AgentPlayConfirmed(entry.name, entry.revision, entry.approval.approval_digest, new)
