"""Pre-flight: everything a replay checks before any browser starts (ARCHITECTURE 4, 7, 11, 13).

In order, each failure raising its own code and changing nothing:

1. options within limits (timeout 100–30,000 ms, settle 0–1,000 ms) — ``SR_RECORD_USAGE``;
2. the entry (already re-validated by the store, every digest recomputed) at the expected revision
   — ``SR_RECORD_REVISION_CONFLICT``;
3. its state allows a replay and the approval matches the draft exactly — ``SR_REPLAY_NOT_APPROVED``,
   ``SR_RECORD_APPROVAL_INVALID``;
4. the actions' capabilities are within the approval and within the policy —
   ``SR_REPLAY_CAPABILITY_DENIED``;
5. inputs: no unknown name (``SR_REPLAY_PARAMETER_UNKNOWN``), no sensitive one on the command line
   (``SR_REPLAY_SENSITIVE_ON_ARGV``), every required non-sensitive one given
   (``SR_REPLAY_PARAMETER_MISSING``; a parameter with a default is not required and gets it),
   values of their parameter's type (schema v2: string, integer, number, boolean, enum: one of its
   allowed option values), loop limits 1-1,000, values within 8,192 (type) / 1,024 (select)
   characters: every input that does not fit is listed in one ``SR_REPLAY_PARAMETER_INVALID``
   naming each parameter and, for an enum, its allowed values, never the value given;
6. a named environment (``--env``) is declared (``SR_RECORD_ENVIRONMENT_UNKNOWN``) and covered by
   the approval (``SR_RECORD_ENVIRONMENT_NOT_APPROVED``), and the skill rebases onto it: target,
   allowlist, navigate steps and sign-in (``model.portable``; ``SR_RECORD_ENVIRONMENT_DRIFT``);
7. the replay environment, recomputed from what this replay would use (the HTML file's digest, or
   the URL normalised with the target's own query-key rule), equals the recorded (or rebased)
   one — ``SR_RECORD_ENVIRONMENT_DRIFT``; the sign-in matches: a storage-state file's digest
   equals the recorded one (``SR_RECORD_CREDENTIAL_DRIFT``), or the vault holds the login the
   skill is bound to by name (``SR_RECORD_SESSION_MISSING``);
8. sensitive values are looked up in the vault; required ones it lacks are listed in
   :attr:`Preflight.missing_sensitive` (the caller may ask a person, or fail).

A required sensitive value still missing is refused in one place, :meth:`Preflight.require_secrets`
(:func:`secret_missing` builds that refusal, ``SR_REPLAY_SECRET_MISSING``, for every caller: a
replay, a batch, a fleet worker, the MCP server), worded for where the value was looked for.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..errors import InputError, ReplayError, TargetError
from ..model.actions import (
    CAPABILITY_OF_KIND,
    Action,
    ChooseAction,
    DownloadAction,
    LoopAction,
    SelectAction,
    TypeAction,
    capability_manifest,
)
from ..model.approval import Approval
from ..model.base import check_skill_name
from ..model.draft import Draft
from ..model.entry import StoreEntry
from ..model.environment import Environment, HtmlTarget, UrlTarget, replay_url
from ..model.lifecycle import check_revision, ensure_replayable
from ..model.limits import (
    DEFAULT_TIMEOUT_MS,
    MAX_LOOP_ITEMS,
    MAX_SELECT_VALUE_CHARS,
    MAX_TYPE_VALUE_CHARS,
    SETTLE_MS_RANGE,
    SLOW_MO_MS_RANGE,
    TIMEOUT_MS_RANGE,
)
from ..model.locators import text_hash
from ..model.login import LoginState
from ..model.policy import Policy
from ..model.portable import rebase
from ..model.refs import ParameterRef
from ..model.urls import V1_RULE, QueryRule, URLRuleError
from ..model.values import NotText, ValueProblem, check_input
from ..sandbox.artifacts import DebugOptions
from ..sandbox.files import storage_state_file_digest
from ..store import Store
from ..user_files import upload_paths
from ..vault import EnvKeyringSecrets, SecretSource, secret_env_name
from ..vault.logins import LoginSource, LoginVault, NoLogins
from .environments import check_environment_name, target_environment

_PARAM_SHAPE = r"^[a-z][a-z0-9_]{0,63}$"

SecretsAsker = Literal["replay", "batch", "worker", "mcp", "declined"]
"""Who refuses a missing sensitive value: a single replay, a batch (before any row), a fleet worker
(its own vault), the MCP server (its client cannot ask the user), or a user who declined to give it."""
_SECRET_MISSING: dict[SecretsAsker, str] = {
    "replay": "no value in the vault for sensitive parameter(s) {names}: set {envs} or store it in the "
    "OS keyring",
    "batch": "no value in the vault for sensitive parameter(s) {names}: set {envs} or store it in the "
    "OS keyring; no row was run",
    "worker": "this worker's vault has no value for sensitive parameter(s) {names}: set {envs} where the "
    "worker runs",
    "mcp": "no value for sensitive parameter(s) {names}: set {envs} or store it in the OS keyring (this "
    "MCP client cannot ask the user)",
    "declined": "the user did not give {names}; nothing was replayed",
}


def secret_missing(skill: str, missing: Sequence[str], asker: SecretsAsker = "replay") -> ReplayError:
    """The one refusal of a replay whose required sensitive values ``missing`` have no value
    (``SR_REPLAY_SECRET_MISSING``), naming each vault variable, worded for ``asker``."""
    template = _SECRET_MISSING[asker]
    envs = ", ".join(secret_env_name(skill, p) for p in missing) if "{envs}" in template else ""
    return ReplayError("SR_REPLAY_SECRET_MISSING", template.format(names=", ".join(missing), envs=envs))


@dataclass(frozen=True)
class ReplayRequest:
    """One replay as a caller asks for it; ``inputs`` holds non-sensitive values only."""

    name: str
    inputs: Mapping[str, InputValue] = field(default_factory=dict, repr=False)
    html_path: Path | None = None
    url: str | None = None
    storage_state: Path | None = None
    expected_revision: int | None = None
    heal: bool = True
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    settle_ms: int = 0
    debug: DebugOptions = field(default_factory=DebugOptions)  # a window, a trace on failure (CLI)
    environment: str | None = None  # a named environment of the skill (``--env``)
    files_from_policy: bool = False  # MCP: file inputs only under the policy's ``uploadDirs``
    downloads: Path | None = None  # where download steps save files (``--downloads``)


@dataclass(frozen=True)
class Target:
    """Where a replay runs: the environment the browser session gets (the recorded one, or rebased
    onto a named environment), the actions with their URLs moved likewise, and the sign-in."""

    environment: Environment
    actions: tuple[Action, ...]
    html: str | None = field(default=None, repr=False)
    storage_state: Path | LoginState | None = None
    name: str | None = None  # the named environment, or None for the recorded one

    @property
    def url_rule(self) -> QueryRule:
        """The query-key rule page URLs are normalised with (``url_matches`` checks)."""
        target = self.environment.target
        return target.rule if isinstance(target, UrlTarget) else V1_RULE


@dataclass(frozen=True)
class Preflight:
    """A replay that may start: the entry read at start, what the browser needs, the inputs."""

    entry: StoreEntry
    approval: Approval
    target: Target
    values: Mapping[str, str] = field(repr=False)  # canonical text of every input given or defaulted
    missing_sensitive: tuple[str, ...]
    heal: bool
    timeout_ms: int
    settle_ms: int
    labels: frozenset[str] = frozenset()  # enum inputs given as an option's visible label
    debug: DebugOptions = field(default_factory=DebugOptions)
    downloads: Path | None = None  # the directory download steps save into (a skill with some)

    @property
    def draft(self) -> Draft:
        return self.entry.draft

    def require_secrets(self, asker: SecretsAsker = "replay") -> None:
        """Refuse (:func:`secret_missing`) when a required sensitive value is still missing."""
        if self.missing_sensitive:
            raise secret_missing(self.entry.name, self.missing_sensitive, asker)

    @property
    def html(self) -> str | None:
        return self.target.html

    @property
    def storage_state(self) -> Path | LoginState | None:
        return self.target.storage_state


def check_options(request: ReplayRequest) -> None:
    check_skill_name(request.name)  # the same refusal of a bad name as every other verb
    if not TIMEOUT_MS_RANGE[0] <= request.timeout_ms <= TIMEOUT_MS_RANGE[1]:
        raise InputError("SR_RECORD_USAGE", "--timeout must be 100 to 30,000 ms")
    if not SETTLE_MS_RANGE[0] <= request.settle_ms <= SETTLE_MS_RANGE[1]:
        raise InputError("SR_RECORD_USAGE", "--settle must be 0 to 1,000 ms")
    if request.html_path is not None and request.url is not None:
        raise TargetError("SR_RECORD_TARGET_INVALID", "give at most one target: --html FILE or --url URL")
    if not SLOW_MO_MS_RANGE[0] <= request.debug.slow_mo_ms <= SLOW_MO_MS_RANGE[1]:
        raise InputError("SR_RECORD_USAGE", "--slow-mo must be 0 to 5,000 ms")


def check_capabilities(draft: Draft, approval: Approval, policy: Policy) -> None:
    needed = set(capability_manifest(draft.actions))
    if not needed <= set(approval.approved_capabilities):
        missing = ", ".join(sorted(needed - set(approval.approved_capabilities)))
        raise ReplayError("SR_REPLAY_CAPABILITY_DENIED", f"the approval does not grant {missing}")
    refused = policy.denied_capabilities(needed)
    if refused:
        raise ReplayError("SR_REPLAY_CAPABILITY_DENIED", f"the policy does not allow {', '.join(refused)}")
    for action in draft.walk():  # the manifest is derived; make sure no action escapes it
        if action.kind in CAPABILITY_OF_KIND and CAPABILITY_OF_KIND[action.kind] not in needed:
            raise ReplayError(
                "SR_REPLAY_CAPABILITY_DENIED",
                f"step {action.id} needs an unapproved capability",
                action_id=action.id,
            )


InputValue = str | int | float | bool


def value_limits(draft: Draft) -> dict[str, int]:
    """The longest value each parameter may take (the strictest of the actions using it)."""
    limits: dict[str, int] = {}
    for action in draft.walk():
        if isinstance(action, TypeAction | SelectAction | ChooseAction) and isinstance(
            action.value, ParameterRef
        ):
            bound = MAX_TYPE_VALUE_CHARS if isinstance(action, TypeAction) else MAX_SELECT_VALUE_CHARS
            limits[action.value.name] = min(bound, limits.get(action.value.name, bound))
    return limits


def _shown(name: str) -> str:
    return repr(name) if re.fullmatch(_PARAM_SHAPE, name) else "an input"


def unknown_input(draft: Draft, name: str) -> ReplayError:
    """An input that names no parameter: the skill's parameters, and the closest one when there is one."""
    names = [p.name for p in draft.parameters]
    if not names:
        listing = f"skill {draft.name!r} takes no inputs"
    else:
        listing = f"skill {draft.name!r} takes {', '.join(names)}"
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
        if close:
            listing += f"; did you mean {close[0]!r}?"
    return ReplayError(
        "SR_REPLAY_PARAMETER_UNKNOWN",
        f"{_shown(name)} names no parameter: {listing}",
        details={"parameters": names},
    )


def check_inputs(draft: Draft, inputs: Mapping[str, InputValue]) -> None:
    for name in sorted(inputs):
        param = draft.parameter(name)
        if param is None:
            raise unknown_input(draft, name)
        if param.sensitive:
            raise ReplayError(
                "SR_REPLAY_SENSITIVE_ON_ARGV",
                f"parameter {name!r} is sensitive and was refused on the command line; nothing was replayed",
            )
    for param in draft.parameters:
        if param.required and param.default is None and not param.sensitive and param.name not in inputs:
            raise ReplayError(
                "SR_REPLAY_PARAMETER_MISSING",
                f"parameter {param.name!r} is required: pass --input {param.name}=VALUE",
            )


def _loop_limits(draft: Draft) -> set[str]:
    return {
        a.limit.name for a in draft.walk() if isinstance(a, LoopAction) and isinstance(a.limit, ParameterRef)
    }


def _select_params(draft: Draft) -> set[str]:
    return {
        a.value.name
        for a in draft.walk()
        if isinstance(a, SelectAction) and isinstance(a.value, ParameterRef)
    }


def label_inputs(draft: Draft, given: Mapping[str, InputValue]) -> frozenset[str]:
    """The enum inputs of ``select`` steps given as an option's visible label (non-empty text that is
    none of the allowed values), to be looked up in the page. The realworld corpus and people pass
    what they read ("High"), not the option's value ("2"). A parameter recorded with its labels'
    hashes (``labelHashes``) takes a label only when its salted hash is one of them (else the value
    is refused in pre-flight like any value outside the enum); an older one, without them, lets any
    text through to the page, which refuses it at the step."""
    selects = _select_params(draft)
    labels: set[str] = set()
    for param in draft.parameters:
        raw = given.get(param.name, param.default)
        if param.type != "enum" or param.name not in selects or not isinstance(raw, str) or not raw.strip():
            continue
        try:
            check_input(param.type, param.values, raw)
        except NotText:
            continue
        except ValueProblem:
            hashes = param.label_hashes
            if hashes is None or text_hash(draft.fingerprint_salt, raw) in hashes:
                labels.add(param.name)
    return frozenset(labels)


def typed_values(draft: Draft, given: Mapping[str, InputValue]) -> dict[str, str]:
    """The canonical text of every input given (checked against its parameter's type) or defaulted.
    Every input that does not fit (its type, an enum's allowed values, a loop's limit, its length)
    is refused at once, before any browser starts: one ``SR_REPLAY_PARAMETER_INVALID`` that names
    each such parameter and its rule, never a value. An enum input of a ``select`` step that is no
    allowed value may be an option's visible label (:func:`label_inputs`): page text the skill never
    keeps, so only the page can refuse it, at that step."""
    values: dict[str, str] = {}
    problems: dict[str, str] = {}
    labels = label_inputs(draft, given)
    for param in draft.parameters:
        raw = given.get(param.name, param.default)
        if raw is None:
            continue
        if param.name in labels:
            values[param.name] = str(raw)
            continue
        try:
            values[param.name] = check_input(param.type, param.values, raw)
        except ValueProblem as exc:
            problems[param.name] = exc.reason
    for name in sorted(_loop_limits(draft)):
        if name in values and not 1 <= int(values[name]) <= MAX_LOOP_ITEMS:
            problems[name] = f"is a loop's limit: 1 to {MAX_LOOP_ITEMS:,}"
    for name, limit in value_limits(draft).items():
        value = values.get(name)
        if value is not None and len(value) > limit:
            problems.setdefault(name, f"is longer than {limit:,} characters")
    if problems:
        raise invalid_inputs(problems)
    return values


def invalid_inputs(problems: Mapping[str, str]) -> ReplayError:
    """One refusal listing every input that does not fit (parameter name and rule, in the order
    the skill declares them; never a value)."""
    listed = "; ".join(f"parameter {name!r} {reason}" for name, reason in problems.items())
    return ReplayError(
        "SR_REPLAY_PARAMETER_INVALID",
        f"{listed}; nothing was replayed",
        details={"parameters": list(problems)},
    )


def check_environment(
    draft: Draft, approval: Approval, request: ReplayRequest, logins: LoginSource
) -> Target:
    """Recompute this replay's environment and compare; for a named environment, rebase onto it
    first. Returns where the replay runs (see :class:`Target`)."""
    recorded = draft.environment
    if isinstance(recorded.target, HtmlTarget):
        return _fixture_target(draft, request)
    if request.html_path is not None:
        raise TargetError(
            "SR_RECORD_ENVIRONMENT_DRIFT", "the skill was recorded on a URL, not an HTML fixture"
        )
    environment, actions = recorded, draft.actions
    if request.environment is not None:
        environment, actions = _rebased(draft, approval, request.environment)
    target = environment.target
    assert isinstance(target, UrlTarget)
    try:
        url = replay_url(target, request.url)
    except URLRuleError as exc:
        raise TargetError("SR_RECORD_TARGET_INVALID", f"the URL target is not allowed: {exc}") from exc
    if url != target.url:
        where = (
            "the recorded one" if request.environment is None else f"environment {request.environment!r}'s"
        )
        raise TargetError(
            "SR_RECORD_ENVIRONMENT_DRIFT", f"the target URL differs from {where}; nothing was started"
        )
    state = _sign_in(environment, request, logins)
    return Target(environment, actions, None, state, request.environment)


def _fixture_target(draft: Draft, request: ReplayRequest) -> Target:
    recorded = draft.environment
    if request.environment is not None:
        raise TargetError(
            "SR_RECORD_ENVIRONMENT_UNKNOWN", "a skill recorded on an HTML fixture has no other environments"
        )
    if request.url is not None:
        raise TargetError(
            "SR_RECORD_ENVIRONMENT_DRIFT", "the skill was recorded on an HTML fixture, not a URL"
        )
    if request.html_path is None:
        raise TargetError(
            "SR_RECORD_TARGET_INVALID", "this skill replays on its HTML fixture: pass --html FILE"
        )
    if request.storage_state is not None:
        raise TargetError("SR_RECORD_TARGET_INVALID", "an HTML fixture takes no storage state")
    current, html = target_environment(recorded.viewport, html_path=request.html_path)
    if current.environment_digest != recorded.environment_digest:
        raise TargetError(
            "SR_RECORD_ENVIRONMENT_DRIFT",
            "the target or its allowlist differs from the recorded one; nothing was started",
        )
    return Target(recorded, draft.actions, html)


def _rebased(draft: Draft, approval: Approval, name: str) -> tuple[Environment, tuple[Action, ...]]:
    """The skill moved onto its declared, approved environment ``name`` (re-checked here)."""
    check_environment_name(name)
    if draft.environment.environment(name) is None:
        declared = ", ".join(draft.environment.environment_names) or "none"
        raise TargetError(
            "SR_RECORD_ENVIRONMENT_UNKNOWN",
            f"skill {draft.name!r} declares no environment {name!r} (declared: {declared})",
        )
    if not approval.covers(name):
        raise TargetError(
            "SR_RECORD_ENVIRONMENT_NOT_APPROVED",
            f"the approval of skill {draft.name!r} does not cover environment {name!r}; nothing was started",
        )
    try:
        moved = rebase(draft.environment, draft.actions, name)
    except URLRuleError as exc:
        raise TargetError(
            "SR_RECORD_ENVIRONMENT_DRIFT", f"environment {name!r} cannot be used: {exc}"
        ) from exc
    return moved.environment, moved.actions


def _sign_in(
    environment: Environment, request: ReplayRequest, logins: LoginSource
) -> Path | LoginState | None:
    """The browser state to start with: the vault login the environment names, or the
    storage-state file whose digest it binds (v1), or nothing."""
    if environment.login is not None:
        if request.storage_state is not None:
            raise TargetError(
                "SR_RECORD_CREDENTIAL_DRIFT",
                f"this skill signs in with the vault login {environment.login!r}, not a "
                "storage-state file; nothing was started",
            )
        state = logins.read(environment.login)
        if state is None:
            raise TargetError(
                "SR_RECORD_SESSION_MISSING",
                f"the vault holds no login {environment.login!r}: run "
                f"`skillreel login set {environment.login} FILE`; nothing was started",
            )
        return state
    given = storage_state_file_digest(request.storage_state) if request.storage_state is not None else None
    if given != environment.storage_state_digest:
        what = (
            "is missing"
            if given is None
            else (
                "was not recorded"
                if environment.storage_state_digest is None
                else "differs from the recorded one"
            )
        )
        raise TargetError("SR_RECORD_CREDENTIAL_DRIFT", f"the storage state {what}; nothing was started")
    return request.storage_state


def run_preflight(
    entry: StoreEntry,
    policy: Policy,
    request: ReplayRequest,
    secrets: SecretSource,
    logins: LoginSource | None = None,
) -> Preflight:
    """Every check of the module docstring, over an entry and policy the caller read; logins
    come from ``logins`` (none when not given)."""
    check_options(request)
    check_revision(entry, request.expected_revision)
    approval = ensure_replayable(entry)
    draft = entry.draft
    check_capabilities(draft, approval, policy)
    check_inputs(draft, request.inputs)
    roots = (policy.upload_dirs or ()) if request.files_from_policy else None
    files = upload_paths(draft.parameters, request.inputs, roots)  # before anything else is touched
    target = check_environment(draft, approval, request, logins or NoLogins())
    given = dict(request.inputs) | files
    missing = []
    for param in draft.parameters:
        if not param.sensitive:
            continue
        secret = secrets.get(draft.name, param.name)
        if secret is not None:
            given[param.name] = secret
        elif param.required:
            missing.append(param.name)
    values = typed_values(draft, given)
    return Preflight(
        entry=entry,
        approval=approval,
        target=target,
        values=values,
        missing_sensitive=tuple(missing),
        heal=request.heal and policy.heal_mode == "runtime",
        timeout_ms=request.timeout_ms,
        settle_ms=request.settle_ms,
        labels=label_inputs(draft, given),
        debug=request.debug,
        downloads=downloads_dir(draft, request.downloads),
    )


def preflight(store: Store, request: ReplayRequest, secrets: SecretSource | None = None) -> Preflight:
    """Every check that needs no browser, over the entry and policy the store holds now; raises ``SR_*``."""
    check_options(request)  # bad usage is reported as such, whatever the store holds
    entry = store.get(request.name)
    return run_preflight(
        entry, store.policy(), request, secrets or EnvKeyringSecrets(), LoginVault(store.home)
    )


def downloads_dir(draft: Draft, given: Path | None) -> Path | None:
    """The directory a skill's download steps save into: an existing directory of this user, as
    given (``--downloads``); None for a skill that downloads nothing. A skill with download steps
    and no such directory is refused before anything runs (``SR_REPLAY_DOWNLOADS_DIR_MISSING``)."""
    if not any(isinstance(a, DownloadAction) for a in draft.walk()):
        return None
    if given is None:
        raise ReplayError(
            "SR_REPLAY_DOWNLOADS_DIR_MISSING",
            "the skill downloads files: give --downloads DIR (an existing directory) to save them in",
        )
    try:
        resolved = given.resolve(strict=True)
        usable = resolved.is_dir() and resolved.stat().st_uid == os.getuid()
    except OSError:
        usable = False
    if not usable:
        raise ReplayError(
            "SR_REPLAY_DOWNLOADS_DIR_MISSING", "--downloads must name an existing directory of your own"
        )
    return resolved
