"""Use case: approve one exact draft revision, or accept the pending heal proposal
(``skillreel review``). The approval binds the draft's digest and capabilities; the policy must
allow those capabilities; without ``approve`` nothing changes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import LifecycleError
from ..model import lifecycle
from ..model.base import check_skill_name
from ..model.entry import StoreEntry
from ..store import AuditNote, Store
from .guards import approval_required, check_reviewer
from .revisions import approved_base


@dataclass(frozen=True)
class ReviewResult:
    name: str
    revision: int
    approval_digest: str
    draft_digest: str
    heal_proposal: bool
    version: str | None = None
    bump: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": "approved",
            "revision": self.revision,
            "version": self.version,
            "bump": self.bump,
            "approvalDigest": self.approval_digest,
            "draftDigest": self.draft_digest,
            "healProposalAccepted": self.heal_proposal,
        }


def review_skill(
    store: Store,
    name: str,
    reviewer: str,
    *,
    approve: bool,
    expected_revision: int | None = None,
    heal_proposal: bool = False,
) -> ReviewResult:
    """Approve the current draft revision (or accept the pending heal proposal)."""
    name, reviewer, now = check_skill_name(name), check_reviewer(reviewer), store.now()
    current = store.get(name)
    lifecycle.check_revision(current, expected_revision)
    step = lifecycle.accept_heal if heal_proposal else lifecycle.approve
    base = approved_base(store, current)

    def change(entry: StoreEntry) -> StoreEntry:
        return lifecycle.stamp_version(step(entry, reviewer, now), base.released if base else None, entry)

    preview = change(current)
    record = preview.versions[-1]
    store.policy().require_capabilities(preview.draft.capabilities)
    if not approve:
        what = "accept the heal proposal of" if heal_proposal else "approve"
        raise approval_required(
            f"{what} skill {name!r} at revision {current.revision} as reviewer {reviewer!r}"
            f" as version {record.version} ({record.bump})",
            {
                "name": name,
                "revision": current.revision,
                "draftDigest": preview.draft.draft_digest,
                "capabilities": list(preview.draft.capabilities),
                "version": record.version,
                "bump": record.bump,
                "reasons": list(record.reasons),
            },
        )
    note = AuditNote(
        kind="review",
        reviewer=reviewer,
        digests={"draft": preview.draft.draft_digest, "approval": _approval_digest(preview)},
    )
    new = store.update(name, change, note, expected_revision=current.revision)
    return ReviewResult(
        new.name,
        new.revision,
        _approval_digest(new),
        new.draft.draft_digest,
        heal_proposal,
        new.version,
        new.versions[-1].bump,
    )


@dataclass(frozen=True)
class RejectResult:
    name: str
    revision: int
    rejected_draft_digest: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "revision": self.revision,
            "healProposalRejected": True,
            "rejectedDraftDigest": self.rejected_draft_digest,
        }


def reject_heal_proposal(
    store: Store, name: str, reviewer: str, *, approve: bool, expected_revision: int | None = None
) -> RejectResult:
    """Drop the pending heal proposal (``review --heal-proposal --reject``); the approved draft stays."""
    name, reviewer, now = check_skill_name(name), check_reviewer(reviewer), store.now()
    current = store.get(name)
    lifecycle.check_revision(current, expected_revision)
    lifecycle.reject_heal(current, now)  # every check before anything is asked: it refuses without one
    rejected = current.heal_proposal.draft.draft_digest if current.heal_proposal else ""
    if not approve:
        raise approval_required(
            f"reject the heal proposal of skill {name!r} at revision {current.revision} "
            f"as reviewer {reviewer!r}",
            {"name": name, "revision": current.revision, "rejectedDraftDigest": rejected},
        )
    note = AuditNote(kind="review", reviewer=reviewer, digests={"rejected": rejected})
    new = store.update(
        name, lambda e: lifecycle.reject_heal(e, now), note, expected_revision=current.revision
    )
    return RejectResult(new.name, new.revision, rejected)


def _approval_digest(entry: StoreEntry) -> str:
    if entry.approval is None:  # approve() and accept_heal() always set one; the invariant checks it
        raise LifecycleError("SR_RECORD_APPROVAL_INVALID", f"skill {entry.name!r} has no approval")
    return entry.approval.approval_digest
