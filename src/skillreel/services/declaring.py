"""Use cases: declare, change and remove the named environments of a skill (``skillreel env``).

A named environment is another origin of the same application the skill may replay on (``replay
--env NAME``, ``skills_play`` with ``environment``): its origin, its exact allowlist and the vault
login it signs in with. Declaring one at record time is ``record --env NAME=ORIGIN``; later it
is ``env set`` / ``env remove``, and every change is a new draft revision that needs a review like
any draft (the approval names exactly the environments it covers). An enabled skill is revoked
first, as for a new recording. Nothing changes when the declaration is already what was asked.

``env strip-query`` is the reviewer's choice to strip query keys the recording kept (business
keys such as ``key=...`` that are in fact credentials): the skill's URLs and its events log lose
them (``model.portable.strip_query_keys``), in a new draft revision too. Keeping a key the
recording stripped is not possible afterwards (its value was never stored): record again with
``--keep-query KEY``.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import LifecycleError, TargetError
from ..model import lifecycle
from ..model.base import check_skill_name
from ..model.draft import Draft
from ..model.entry import StoreEntry
from ..model.envelope import ResultWarning
from ..model.environment import UrlTarget
from ..model.events import EventsLog
from ..model.portable import strip_query_keys, without_environment
from ..model.urls import URLRuleError
from ..store import AuditNote, Store
from ..vault.logins import LoginVault
from .environments import check_environment_name, declare_environment, target_query
from .guards import require_pinned


def environment_views(entry: StoreEntry) -> list[dict[str, Any]]:
    """Each declared environment with whether the current approval covers it."""
    approval = entry.approval
    return [
        {**e.to_json(), "approved": approval is not None and approval.covers(e.name)}
        for e in entry.draft.environment.environments
    ]


@dataclass(frozen=True)
class EnvironmentList:
    entry: StoreEntry

    def to_json(self) -> dict[str, Any]:
        target = self.entry.draft.environment.target
        return {
            "name": self.entry.name,
            "revision": self.entry.revision,
            "status": self.entry.status,
            "recorded": {"origin": target.origin, "allowedOrigins": list(target.allowed_origins)}
            if target.kind == "url"
            else None,
            "environments": environment_views(self.entry),
        }


def list_environments(store: Store, name: str) -> EnvironmentList:
    return EnvironmentList(store.get(check_skill_name(name)))


@dataclass(frozen=True)
class EnvironmentChange:
    entry: StoreEntry
    changed: bool
    warnings: tuple[ResultWarning, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.entry.name,
            "revision": self.entry.revision,
            "status": self.entry.status,
            "draftDigest": self.entry.draft.draft_digest,
            "changed": self.changed,
            "environments": environment_views(self.entry),
        }


def set_environment(
    store: Store,
    name: str,
    environment: str,
    origin: str,
    allowed_origins: Sequence[str] = (),
    login: str | None = None,
    *,
    expected_revision: int | None = None,
) -> EnvironmentChange:
    """Declare (or change) the environment ``environment`` of skill ``name`` on ``origin``: its
    allowlist is ``origin`` plus ``allowed_origins``, or the recorded allowlist rebased when none
    are given; ``login`` is the vault login it signs in with (none when not given)."""
    current = _current(store, name, expected_revision)
    declared = declare_environment(
        current.draft.environment, current.draft.actions, environment, origin, allowed_origins, login
    )
    warnings: tuple[ResultWarning, ...] = ()
    if login is not None and LoginVault(store.home).record(login) is None:
        warnings = (
            ResultWarning(
                code="SR_RECORD_SESSION_MISSING",
                message=f"the vault holds no login {login!r} yet: "
                f"run `skillreel login set {login} FILE` before replaying on {environment!r}",
            ),
        )
    options = [w for o in allowed_origins for w in ("--allowed-origin", o)]
    options += ["--login", login] if login is not None else []
    pin = Pin(expected_revision, ["env", "set", name, environment, origin, *options])
    return _change(store, current, current.draft.evolve(environment=declared), pin, warnings)


def remove_environment(
    store: Store, name: str, environment: str, *, expected_revision: int | None = None
) -> EnvironmentChange:
    """Remove the declared environment ``environment`` of skill ``name``."""
    check_environment_name(environment)
    current = _current(store, name, expected_revision)
    if current.draft.environment.environment(environment) is None:
        raise TargetError(
            "SR_RECORD_ENVIRONMENT_UNKNOWN", f"skill {name!r} declares no environment {environment!r}"
        )
    remaining = without_environment(current.draft.environment, environment)
    pin = Pin(expected_revision, ["env", "remove", name, environment])
    return _change(store, current, current.draft.evolve(environment=remaining), pin)


def _current(store: Store, name: str, expected_revision: int | None) -> StoreEntry:
    current = store.get(check_skill_name(name))
    lifecycle.check_revision(current, expected_revision)
    if current.status not in lifecycle.NOT_ENABLED:
        raise LifecycleError(
            "SR_RECORD_STATE_INVALID",
            f"skill {name!r} is enabled; revoke it before changing its environments",
        )
    return current


@dataclass(frozen=True)
class Pin:
    """The revision the caller read (None: not said) and the words of its command after
    ``skillreel``, for the refusal of a change that does not say it."""

    expected_revision: int | None
    words: list[str]

    def require(self, current: StoreEntry, would: str) -> None:
        command = shlex.join(["skillreel", *self.words])
        revision = current.revision
        require_pinned(
            self.expected_revision, current.name, revision, would=would, command=command, approve=False
        )


def _change(
    store: Store, current: StoreEntry, draft: Draft, pin: Pin, warnings: tuple[ResultWarning, ...] = ()
) -> EnvironmentChange:
    updated = _replace_draft(store, current, draft, current.events, pin)
    return EnvironmentChange(updated or current, updated is not None, warnings)


def _replace_draft(
    store: Store, current: StoreEntry, draft: Draft, events: EventsLog, pin: Pin
) -> StoreEntry | None:
    """Store ``draft`` (with ``events``) as the next draft revision, compare-and-set on the revision
    read; None when it is the draft already (nothing written, no revision needed)."""
    if draft.draft_digest == current.draft.draft_digest:
        return None
    pin.require(current, f"make revision {current.revision + 1} of skill {current.name!r} a new draft")
    now = store.now()
    note = AuditNote(kind="environment", digests={"draft": draft.draft_digest})
    return store.update(
        current.name,
        lambda entry: lifecycle.replace_draft(entry, draft, events, now),
        note,
        expected_revision=current.revision,
    )


@dataclass(frozen=True)
class QueryChange:
    entry: StoreEntry
    changed: bool

    def to_json(self) -> dict[str, Any]:
        target = self.entry.draft.environment.target
        query = target.query if isinstance(target, UrlTarget) else None
        return {
            "name": self.entry.name,
            "revision": self.entry.revision,
            "status": self.entry.status,
            "draftDigest": self.entry.draft.draft_digest,
            "changed": self.changed,
            "query": query.to_json() if query is not None else None,
        }


def strip_query(
    store: Store, name: str, keys: Sequence[str], *, expected_revision: int | None = None
) -> QueryChange:
    """Strip the query ``keys`` from skill ``name``'s URLs and from every page URL its replays
    compare: a new draft revision (unchanged when they are stripped already)."""
    target_query(strip=keys)  # plain key names (SR_RECORD_USAGE)
    current = _current(store, name, expected_revision)
    draft = current.draft
    try:
        stripped = strip_query_keys(draft.environment, draft.actions, current.events, keys)
    except URLRuleError as exc:
        raise TargetError("SR_RECORD_TARGET_INVALID", f"strip-query: {exc}") from exc
    changed = draft.evolve(
        environment=stripped.environment,
        actions=stripped.actions,
        events_digest=stripped.events.events_digest,
    )
    pin = Pin(expected_revision, ["env", "strip-query", name, *keys])
    updated = _replace_draft(store, current, changed, stripped.events, pin)
    return QueryChange(updated or current, updated is not None)
