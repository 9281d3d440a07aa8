"""Use case: approve one exact draft revision, or accept the pending heal proposal
(``skillreel review``). The approval binds the draft's digest, its capabilities and the named
environments it may replay on (those given, or every declared one); the policy must allow those
capabilities; without ``approve`` nothing changes. The heal proposal accepted is the newest one
pending for the current draft (``show`` lists them, newest first).

An approval binds to what the reviewer read: with ``approve`` the caller names the revision
(``expected_revision``, what ``show`` printed) or the draft digest (``draft_digest``, the draft's
or, for ``heal_proposal``, the proposal's digest that ``show`` printed), or both. Without either it
is refused (``SR_RECORD_REVIEW_UNPINNED``) with the revision and digest it would approve, so the
reviewer can check them and repeat the command; a mismatch is ``SR_RECORD_REVISION_CONFLICT``."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ..errors import InputError, LifecycleError
from ..model import lifecycle
from ..model.approval import Approval
from ..model.base import check_skill_name
from ..model.entry import StoreEntry
from ..store import AuditNote, Store
from .guards import approval_required, check_reviewer

DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


@dataclass(frozen=True)
class ReviewResult:
    name: str
    revision: int
    approval_digest: str
    draft_digest: str
    heal_proposal: bool
    environments: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": "approved",
            "revision": self.revision,
            "approvalDigest": self.approval_digest,
            "draftDigest": self.draft_digest,
            "healProposalAccepted": self.heal_proposal,
            "approvedEnvironments": list(self.environments),
        }


def review_skill(
    store: Store,
    name: str,
    reviewer: str,
    *,
    approve: bool,
    expected_revision: int | None = None,
    draft_digest: str | None = None,
    heal_proposal: bool = False,
    environments: Collection[str] | None = None,
) -> ReviewResult:
    """Approve the current draft revision (or accept the pending heal proposal), covering the
    named ``environments`` (every declared one when None)."""
    name, reviewer, now = check_skill_name(name), check_reviewer(reviewer), store.now()
    if draft_digest is not None and not DIGEST.fullmatch(draft_digest):
        raise InputError(
            "SR_RECORD_USAGE", "--draft-digest takes a digest as `show` prints it: sha256:<64 hex>"
        )
    current = store.get(name)
    lifecycle.check_revision(current, expected_revision)
    pending = store.heal_proposals(name)[:1] if heal_proposal else []

    def change(entry: StoreEntry) -> StoreEntry:
        if heal_proposal:
            reviewed = lifecycle.accept_heal(
                entry, reviewer, now, pending[0] if pending else None, environments
            )
        else:
            reviewed = lifecycle.approve(entry, reviewer, now, environments)
        if draft_digest is not None and reviewed.draft.draft_digest != draft_digest:
            raise LifecycleError(
                "SR_RECORD_REVISION_CONFLICT",
                f"the {'heal proposal' if heal_proposal else 'draft'} of skill {name!r} is not the one with "
                f"digest {draft_digest}; run `skillreel show {name}` and review what it prints now",
            )
        return reviewed

    preview = change(current)
    store.policy().require_capabilities(preview.draft.capabilities)
    what = "accept the heal proposal of" if heal_proposal else "approve"
    would = (
        f"{what} skill {name!r} at revision {current.revision} (draft {preview.draft.draft_digest}) "
        f"as reviewer {reviewer!r}"
    )
    details = {
        "name": name,
        "revision": current.revision,
        "draftDigest": preview.draft.draft_digest,
        "capabilities": list(preview.draft.capabilities),
        "environments": list(_approval(preview).approved_environments),
    }
    if not approve:
        raise approval_required(would, details)
    if expected_revision is None and draft_digest is None:
        raise InputError(
            "SR_RECORD_REVIEW_UNPINNED",
            f"say what you reviewed: this would {would}; repeat with --expected-revision "
            f"{current.revision} (or --draft-digest {preview.draft.draft_digest}) if that is what "
            "`skillreel show` showed you",
            details={"wouldApprove": details},
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
        _approval(new).approved_environments,
    )


def _approval(entry: StoreEntry) -> Approval:
    if entry.approval is None:  # approve() and accept_heal() always set one; the invariant checks it
        raise LifecycleError("SR_RECORD_APPROVAL_INVALID", f"skill {entry.name!r} has no approval")
    return entry.approval


def _approval_digest(entry: StoreEntry) -> str:
    return _approval(entry).approval_digest
