"""The lifecycle of a skill as pure functions over immutable entries (ARCHITECTURE section 4).

``draft -> approved -> validated -> enabled -> revoked``; :data:`ALLOWED` says which states allow
each operation, and :func:`next_steps` what can be done next. A replay is not a transition: it is a
run (``model.runs``); only the first successful run of an approved revision changes the skill
(:func:`validate`). Every function takes the current entry
and returns the next one (revision + 1) or raises :class:`LifecycleError`; the store applies the
result in one transaction with compare-and-set on ``revision``. Nothing here does I/O or reads
the clock: callers pass ``now``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from ..errors import LifecycleError, ReplayError, TargetError
from .approval import Approval
from .draft import Draft
from .entry import HealProposal, Installation, Status, StoreEntry
from .events import EventsLog
from .report import ReplayReport
from .versions import (
    MAX_VERSION_RECORDS,
    DraftOrigin,
    HealedStep,
    Source,
    VersionChange,
    VersionRecord,
    bumped,
    classify,
    healed_steps,
)

NOT_ENABLED: Final[tuple[Status, ...]] = ("draft", "approved", "validated", "revoked")
REPLAYABLE_STATES: Final[tuple[Status, ...]] = ("approved", "validated", "enabled", "revoked")
# What a person may do to a skill in each state: the one table every transition below checks, and
# what ``show`` lists as next steps (in this order). Re-recording is allowed unless enabled.
ALLOWED: Final[Mapping[str, tuple[Status, ...]]] = {
    "review": ("draft",),
    "replay": REPLAYABLE_STATES,
    "enable": ("validated", "revoked"),
    "revoke": ("enabled",),
    "delete": NOT_ENABLED,
    "review --heal-proposal": NOT_ENABLED,  # and only while a heal proposal is pending
    "review --heal-proposal --reject": REPLAYABLE_STATES,  # only while a heal proposal is pending
    "rollback": NOT_ENABLED,  # and (in next_steps) only when an older approved version differs
}
REPLAYABLE = ALLOWED["replay"]


def timestamp(moment: datetime) -> str:
    """The wire form of a moment: UTC, second precision, ``Z``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_timestamp(value: str) -> datetime:
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def check_revision(entry: StoreEntry, expected_revision: int | None) -> None:
    if expected_revision is not None and expected_revision != entry.revision:
        raise LifecycleError(
            "SR_RECORD_REVISION_CONFLICT",
            f"skill {entry.name!r} is at revision {entry.revision}, not {expected_revision}",
        )


def _refuse(entry: StoreEntry, operation: str, allowed: str) -> LifecycleError:
    return LifecycleError(
        "SR_RECORD_STATE_INVALID",
        f"cannot {operation} skill {entry.name!r} in state {entry.status!r} ({allowed})",
    )


def _next(entry: StoreEntry, now: str, **changes: Any) -> StoreEntry:
    return entry.evolve(**changes, revision=entry.revision + 1, updated_at=max(now, entry.updated_at))


def new_entry(draft: Draft, events: EventsLog, now: str) -> StoreEntry:
    return StoreEntry.build(
        name=draft.name,
        revision=1,
        status="draft",
        draft=draft,
        events=events,
        created_at=now,
        updated_at=now,
    )


def replace_draft(entry: StoreEntry, draft: Draft, events: EventsLog, now: str) -> StoreEntry:
    """A new recording of the same name: a new draft revision; any approval is dropped."""
    if entry.status not in NOT_ENABLED:
        raise _refuse(entry, "re-record", "revoke it first")
    return _next(
        entry,
        now,
        status="draft",
        draft=draft,
        events=events,
        approval=None,
        last_report=None,
        installation=None,
        heal_proposal=None,
        origin=None,
    )


def rollback(entry: StoreEntry, source: StoreEntry, now: str) -> StoreEntry:
    """A new draft revision holding the draft (and its events log) of an older revision ``source``:
    it needs a review like any draft. The pending draft remembers where it came from."""
    if entry.status not in ALLOWED["rollback"]:
        raise _refuse(entry, "roll back", "revoke it first")
    if source.name == entry.name and source.revision == entry.revision:
        raise _refuse(entry, "roll back", f"revision {source.revision} is the current one")
    if source.name != entry.name or source.revision > entry.revision:
        raise LifecycleError(
            "SR_RECORD_REVISION_NOT_FOUND", f"skill {entry.name!r} has no earlier revision {source.revision}"
        )
    if source.draft.draft_digest == entry.draft.draft_digest:
        raise _refuse(
            entry, "roll back", f"revision {source.revision} holds the same draft as the current one"
        )
    origin = DraftOrigin(
        revision=source.revision, draft_digest=source.draft.draft_digest, version=source.version
    )
    return _next(
        entry,
        now,
        status="draft",
        draft=source.draft,
        events=source.events,
        approval=None,
        last_report=None,
        installation=None,
        heal_proposal=None,
        origin=origin,
    )


@dataclass(frozen=True)
class Released:
    """The approved version a new approval is compared with: its version and draft (None when that
    revision is not kept in this store, e.g. after an import: the bump is then counted as major)."""

    version: str
    draft: Draft | None


def stamp_version(
    approved: StoreEntry, base: Released | None, before: StoreEntry, proposal: HealProposal | None = None
) -> StoreEntry:
    """Give the draft ``approved`` (just approved, from ``before``) its version and provenance record:
    the bump from ``base`` (``model.versions.classify``), where the draft came from (a review, the heal
    proposal ``before`` held, or ``before``'s rollback origin) and who approved it. Same revision."""
    if approved.approval is None:
        raise _refuse(approved, "version", "only an approved draft has a version")
    if base is not None and base.draft is None:
        change = VersionChange(
            "major", ("the previous approved draft is not kept here: counted as incompatible",)
        )
    else:
        change = classify(base.draft if base is not None else None, approved.draft)
    proposal = proposal if proposal is not None else before.heal_proposal
    healed: tuple[HealedStep, ...] = ()
    if proposal is not None and proposal.draft.draft_digest == approved.draft.draft_digest:
        healed = healed_steps(before.draft, proposal.draft, proposal.healed_actions)
    else:
        proposal = None
    origin = before.origin if before.status == "draft" else None
    source: Source = "heal" if proposal is not None else "rollback" if origin is not None else "review"
    record = VersionRecord(
        version=bumped(base.version if base else None, change.bump),
        revision=approved.revision,
        draft_digest=approved.draft.draft_digest,
        bump=change.bump,
        source=source,
        reasons=change.reasons,
        healed=healed,
        proposed_by=proposal.report_digest if proposal is not None else None,
        rolled_back_from=origin.revision if origin is not None else None,
        reviewer=approved.approval.reviewer,
        approved_at=approved.approval.approved_at,
    )
    return approved.evolve(versions=(*approved.versions, record)[-MAX_VERSION_RECORDS:])


def approved_environments(draft: Draft, environments: Collection[str] | None) -> tuple[str, ...]:
    """The environments an approval of ``draft`` covers: those named (each must be declared,
    ``SR_RECORD_ENVIRONMENT_UNKNOWN``), or every declared one when None."""
    declared = draft.environment.environment_names
    if environments is None:
        return declared
    unknown = sorted(set(environments) - set(declared))
    if unknown:
        raise TargetError(
            "SR_RECORD_ENVIRONMENT_UNKNOWN",
            f"skill {draft.name!r} declares no environment {', '.join(map(repr, unknown))}",
        )
    return tuple(sorted(set(environments)))


def approve(
    entry: StoreEntry, reviewer: str, now: str, environments: Collection[str] | None = None
) -> StoreEntry:
    """Approve the current draft, once. The approval binds its exact digest and capabilities, and
    the named environments it may replay on (``environments``; every declared one when None)."""
    if entry.status not in ALLOWED["review"]:
        raise _refuse(entry, "approve", "only a draft is approved, and only once")
    approval = Approval.build(
        name=entry.name,
        draft_digest=entry.draft.draft_digest,
        reviewer=reviewer,
        approved_capabilities=entry.draft.capabilities,
        approved_environments=approved_environments(entry.draft, environments),
        approved_at=now,
    )
    return _next(entry, now, status="approved", approval=approval, origin=None)


def ensure_replayable(entry: StoreEntry) -> Approval:
    """The approval a replay runs under; a draft (or a broken approval) is refused."""
    if entry.status not in REPLAYABLE or entry.approval is None:
        raise ReplayError("SR_REPLAY_NOT_APPROVED", f"skill {entry.name!r} is not approved")
    if not entry.approval.matches(entry.draft):
        raise LifecycleError("SR_RECORD_APPROVAL_INVALID", f"skill {entry.name!r}: approval does not match")
    return entry.approval


def validate(entry: StoreEntry, report: ReplayReport, now: str) -> StoreEntry:
    """The first successful run of an approved revision: approved becomes validated, keeping that
    run's report. Replays never change a skill otherwise (a run is its own record)."""
    ensure_replayable(entry)
    if entry.status != "approved":
        raise _refuse(entry, "validate", "only an approved revision is validated, once")
    return _next(entry, now, status="validated", last_report=report)


def validates(entry: StoreEntry, revision: int, draft_digest: str) -> bool:
    """Whether a successful run of ``revision`` (of this draft) validates ``entry`` as it is now:
    still that revision, still approved. A run that lost the race to another one validates nothing."""
    same = entry.revision == revision and entry.draft.draft_digest == draft_digest
    return entry.status == "approved" and same


def enable(entry: StoreEntry, installation: Installation, now: str) -> StoreEntry:
    """Only a validated skill is enabled the first time; a revoked one may be enabled again."""
    if entry.status not in ALLOWED["enable"]:
        why = "it is enabled already" if entry.status == "enabled" else "replay it successfully first"
        raise _refuse(entry, "enable", why)
    return _next(entry, now, status="enabled", installation=installation, was_enabled=True)


def revoke(entry: StoreEntry, now: str) -> StoreEntry:
    if entry.status not in ALLOWED["revoke"]:
        raise _refuse(entry, "revoke", "only an enabled skill is revoked")
    return _next(entry, now, status="revoked", installation=None)


def ensure_deletable(entry: StoreEntry) -> None:
    if entry.status not in ALLOWED["delete"]:
        raise _refuse(entry, "delete", "revoke it first")


def is_expired(entry: StoreEntry, now: str, retention_days: int) -> bool:
    """Expired: not enabled and last changed more than ``retention_days`` before ``now``."""
    if entry.status not in NOT_ENABLED:
        return False
    age = parse_timestamp(now) - parse_timestamp(entry.updated_at)
    return age > timedelta(days=retention_days)


def accept_heal(
    entry: StoreEntry,
    reviewer: str,
    now: str,
    proposal: HealProposal | None = None,
    environments: Collection[str] | None = None,
) -> StoreEntry:
    """Adopt a pending heal proposal (``proposal``, from the store's proposals of this draft, or the
    one an older store kept in the entry) as a new draft revision and approve it (a normal review),
    covering ``environments`` (every declared one when None).

    The result is ``approved``: it must replay successfully again before it is validated. It is
    one revision (``revision + 1``), like every other transition, so the store's compare-and-set
    and history hold.
    """
    proposal = proposal if proposal is not None else entry.heal_proposal
    if proposal is None:
        raise _refuse(entry, "accept a heal proposal of", "it has none")
    if proposal.base_draft_digest != entry.draft.draft_digest or proposal.draft.name != entry.name:
        raise _refuse(entry, "accept a heal proposal of", "the proposal is for another revision")
    if entry.status not in ALLOWED["review --heal-proposal"]:
        raise _refuse(entry, "accept a heal proposal of", "revoke it first")
    approval = Approval.build(
        name=entry.name,
        draft_digest=proposal.draft.draft_digest,
        reviewer=reviewer,
        approved_capabilities=proposal.draft.capabilities,
        approved_environments=approved_environments(proposal.draft, environments),
        approved_at=now,
    )
    return _next(
        entry,
        now,
        status="approved",
        draft=proposal.draft,
        approval=approval,
        last_report=None,
        installation=None,
        heal_proposal=None,
    )


def reject_heal(entry: StoreEntry, now: str, *, heal_pending: bool | None = None) -> StoreEntry:
    """Reject the heal proposals pending for the current draft: the approved draft stays as it is (the
    next replay that heals proposes again). A new revision, so the rejection is compare-and-set and
    audited; the store drops the proposal rows in the same transaction (``Store.update(...,
    drop_heal_proposals=True)``) and this clears the one an older store kept in the entry."""
    pending = entry.heal_proposal is not None if heal_pending is None else heal_pending
    if not pending or entry.status not in ALLOWED["review --heal-proposal --reject"]:
        raise _refuse(entry, "reject a heal proposal of", "it has none")
    return _next(entry, now, heal_proposal=None)


def next_steps(entry: StoreEntry, *, heal_pending: bool | None = None) -> list[str]:
    """What can be done to ``entry`` now, from :data:`ALLOWED` (``show`` lists it). ``heal_pending``
    says whether a heal proposal of this draft waits (default: the one the entry itself holds)."""
    pending = entry.heal_proposal is not None if heal_pending is None else heal_pending
    return [
        step
        for step, states in ALLOWED.items()
        if entry.status in states
        and (not step.startswith("review --heal-proposal") or pending)
        and (step != "rollback" or _can_go_back(entry))
    ]


def _can_go_back(entry: StoreEntry) -> bool:
    """An older approved version differs from the current draft: two versions, or a pending draft."""
    return len(entry.versions) >= 2 or (entry.status == "draft" and bool(entry.versions))
