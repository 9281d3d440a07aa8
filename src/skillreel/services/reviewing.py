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


@dataclass(frozen=True)
class ReviewResult:
    name: str
    revision: int
    approval_digest: str
    draft_digest: str
    heal_proposal: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": "approved",
            "revision": self.revision,
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

    def change(entry: StoreEntry) -> StoreEntry:
        if heal_proposal:
            return lifecycle.accept_heal(entry, reviewer, now, pending[0] if pending else None)
        return lifecycle.approve(entry, reviewer, now)

    preview = change(current)
    store.policy().require_capabilities(preview.draft.capabilities)
    if not approve:
        what = "accept the heal proposal of" if heal_proposal else "approve"
        raise approval_required(
            f"{what} skill {name!r} at revision {current.revision} as reviewer {reviewer!r}",
            {
                "name": name,
                "revision": current.revision,
                "draftDigest": preview.draft.draft_digest,
                "capabilities": list(preview.draft.capabilities),
            },
        )
    note = AuditNote(
        kind="review",
        reviewer=reviewer,
        digests={"draft": preview.draft.draft_digest, "approval": _approval_digest(preview)},
    )
    new = store.update(name, change, note, expected_revision=current.revision)
    return ReviewResult(new.name, new.revision, _approval_digest(new), new.draft.draft_digest, heal_proposal)


def _approval_digest(entry: StoreEntry) -> str:
    if entry.approval is None:  # approve() and accept_heal() always set one; the invariant checks it
        raise LifecycleError("SR_RECORD_APPROVAL_INVALID", f"skill {entry.name!r} has no approval")
    return entry.approval.approval_digest
