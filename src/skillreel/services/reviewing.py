"""Use case: approve one exact draft revision, or accept the pending heal proposal
(``skillreel review``). The approval binds the draft's digest and capabilities; the policy must
allow those capabilities; without ``approve`` nothing changes. The heal proposal accepted is the
newest one pending for the current draft (``show`` lists them, newest first)."""

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
    pending = store.heal_proposals(name)[:1] if heal_proposal else []
    accepted = pending[0] if pending else None
    base = approved_base(store, current)

    def change(entry: StoreEntry) -> StoreEntry:
        if heal_proposal:
            adopted = lifecycle.accept_heal(entry, reviewer, now, accepted)
        else:
            adopted = lifecycle.approve(entry, reviewer, now)
        return lifecycle.stamp_version(adopted, base.released if base else None, entry, accepted)

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
    """Reject the heal proposals pending for the current draft (``review --heal-proposal --reject``;
    ``rejectedDraftDigest`` names the newest, the one ``--heal-proposal`` would have accepted); the
    approved draft stays."""
    name, reviewer, now = check_skill_name(name), check_reviewer(reviewer), store.now()
    current = store.get(name)
    lifecycle.check_revision(current, expected_revision)
    pending = store.heal_proposals(name)
    # every check before anything is asked: it refuses without a pending proposal
    lifecycle.reject_heal(current, now, heal_pending=bool(pending))
    rejected = pending[0].draft.draft_digest
    if not approve:
        raise approval_required(
            f"reject the heal proposal of skill {name!r} at revision {current.revision} "
            f"as reviewer {reviewer!r}",
            {"name": name, "revision": current.revision, "rejectedDraftDigest": rejected},
        )
    note = AuditNote(kind="review", reviewer=reviewer, digests={"rejected": rejected})
    new = store.update(
        name,
        lambda e: lifecycle.reject_heal(e, now, heal_pending=True),
        note,
        expected_revision=current.revision,
        drop_heal_proposals=True,
    )
    return RejectResult(new.name, new.revision, rejected)


def _approval_digest(entry: StoreEntry) -> str:
    if entry.approval is None:  # approve() and accept_heal() always set one; the invariant checks it
        raise LifecycleError("SR_RECORD_APPROVAL_INVALID", f"skill {entry.name!r} has no approval")
    return entry.approval.approval_digest
