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

from ..errors import InputError, LifecycleError, RecordError
from ..model import lifecycle
from ..model.approval import Approval
from ..model.base import check_skill_name
from ..model.coverage import FINAL_CHECK_MISSING, unchecked_side_effect
from ..model.entry import StoreEntry
from ..model.envelope import ResultWarning
from ..store import AuditNote, Store
from .guards import approval_required, check_reviewer
from .revisions import approved_base

DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


@dataclass(frozen=True)
class ReviewResult:
    name: str
    revision: int
    approval_digest: str
    draft_digest: str
    heal_proposal: bool
    version: str | None = None
    bump: str | None = None
    environments: tuple[str, ...] = ()
    warnings: tuple[ResultWarning, ...] = ()

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
    _check_digest(draft_digest)
    current = store.get(name)
    lifecycle.check_revision(current, expected_revision)
    pending = store.heal_proposals(name) if heal_proposal else []
    accepted = pending[0] if pending else None
    base = approved_base(store, current)

    def change(entry: StoreEntry) -> StoreEntry:
        if heal_proposal:
            reviewed = lifecycle.accept_heal(entry, reviewer, now, accepted, environments)
        else:
            reviewed = lifecycle.approve(entry, reviewer, now, environments)
        if draft_digest is not None and reviewed.draft.draft_digest != draft_digest:
            raise LifecycleError(
                "SR_RECORD_REVISION_CONFLICT",
                f"the {'heal proposal' if heal_proposal else 'draft'} of skill {name!r} is not the one with "
                f"digest {draft_digest}; run `skillreel show {name}` and review what it prints now",
            )
        return lifecycle.stamp_version(reviewed, base.released if base else None, entry, accepted)

    preview = change(current)
    record = preview.versions[-1]
    policy = store.policy()
    policy.require_capabilities(preview.draft.capabilities)
    unchecked = unchecked_side_effect(preview.draft.actions)
    if unchecked is not None and policy.require_final_check:
        raise RecordError(
            "SR_RECORD_FINAL_CHECK_MISSING",
            f"skill {name!r}: step {unchecked} is its last side effect and {FINAL_CHECK_MISSING}; "
            "the policy's requireFinalCheck refuses to approve it",
            details={"name": name, "step": unchecked},
        )
    what = "accept the heal proposal of" if heal_proposal else "approve"
    would = (
        f"{what} skill {name!r} at revision {current.revision} (draft {preview.draft.draft_digest}) "
        f"as reviewer {reviewer!r} as version {record.version} ({record.bump})"
    )
    details = {
        "name": name,
        "revision": current.revision,
        "draftDigest": preview.draft.draft_digest,
        "capabilities": list(preview.draft.capabilities),
        "version": record.version,
        "bump": record.bump,
        "reasons": list(record.reasons),
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
    if heal_proposal and draft_digest is None:
        _one_proposal_pending(len(pending), name, current.revision, preview.draft.draft_digest)
    note = AuditNote(
        kind="review",
        reviewer=reviewer,
        digests={"draft": preview.draft.draft_digest, "approval": _approval_digest(preview)},
    )
    # An adopted heal consumes the proposals of the draft it replaced: a rollback to that draft must
    # not offer them again.
    new = store.update(
        name, change, note, expected_revision=current.revision, drop_heal_proposals=heal_proposal
    )
    return ReviewResult(
        new.name,
        new.revision,
        _approval_digest(new),
        new.draft.draft_digest,
        heal_proposal,
        new.version,
        new.versions[-1].bump,
        _approval(new).approved_environments,
        _coverage_warnings(unchecked),
    )


def _coverage_warnings(unchecked: str | None) -> tuple[ResultWarning, ...]:
    """The review's warning about a last side effect no check follows (``model.coverage``)."""
    if unchecked is None:
        return ()
    message = f"step {unchecked} is the skill's last side effect and {FINAL_CHECK_MISSING}"
    return (ResultWarning(code="SR_RECORD_FINAL_CHECK_MISSING", message=message),)


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
    store: Store,
    name: str,
    reviewer: str,
    *,
    approve: bool,
    expected_revision: int | None = None,
    draft_digest: str | None = None,
) -> RejectResult:
    """Reject the heal proposals pending for the current draft (``review --heal-proposal --reject``;
    ``rejectedDraftDigest`` names the newest, the one ``--heal-proposal`` would have accepted); the
    approved draft stays. Like an approval it is pinned to what the reviewer saw: the revision or
    the proposal's draft digest."""
    name, reviewer, now = check_skill_name(name), check_reviewer(reviewer), store.now()
    _check_digest(draft_digest)
    current = store.get(name)
    lifecycle.check_revision(current, expected_revision)
    pending = store.heal_proposals(name)
    # every check before anything is asked: it refuses without a pending proposal
    lifecycle.reject_heal(current, now, heal_pending=bool(pending))
    rejected = pending[0].draft.draft_digest
    if draft_digest is not None and draft_digest != rejected:
        raise LifecycleError(
            "SR_RECORD_REVISION_CONFLICT",
            f"the heal proposal of skill {name!r} is not the one with digest {draft_digest}; "
            f"run `skillreel show {name}` and review what it prints now",
        )
    would = (
        f"reject the heal proposal of skill {name!r} at revision {current.revision} "
        f"(proposal {rejected}) as reviewer {reviewer!r}"
    )
    details = {"name": name, "revision": current.revision, "rejectedDraftDigest": rejected}
    if not approve:
        raise approval_required(would, details)
    if expected_revision is None and draft_digest is None:
        raise InputError(
            "SR_RECORD_REVIEW_UNPINNED",
            f"say what you reviewed: this would {would}; repeat with --expected-revision "
            f"{current.revision} (or --draft-digest {rejected}) if that is what `skillreel show` "
            "showed you",
            details={"wouldReject": details},
        )
    if draft_digest is None:
        _one_proposal_pending(len(pending), name, current.revision, rejected)
    note = AuditNote(kind="review", reviewer=reviewer, digests={"rejected": rejected})
    new = store.update(
        name,
        lambda e: lifecycle.reject_heal(e, now, heal_pending=True),
        note,
        expected_revision=current.revision,
        drop_heal_proposals=True,
    )
    return RejectResult(new.name, new.revision, rejected)


def _one_proposal_pending(pending: int, name: str, revision: int, newest: str) -> None:
    """A heal proposal never changes the revision: with more than one pending, ``--expected-revision``
    cannot tell which one the reviewer read (a later replay may have left the newest after it)."""
    if pending > 1:
        raise LifecycleError(
            "SR_RECORD_REVISION_CONFLICT",
            f"{pending} heal proposals of skill {name!r} are pending at revision {revision}: the revision "
            f"does not say which one you reviewed; run `skillreel show {name}` and repeat with "
            f"--draft-digest {newest} if that is the one it shows",
            details={"pending": pending, "draftDigest": newest},
        )


def _check_digest(draft_digest: str | None) -> None:
    if draft_digest is not None and not DIGEST.fullmatch(draft_digest):
        raise InputError(
            "SR_RECORD_USAGE", "--draft-digest takes a digest as `show` prints it: sha256:<64 hex>"
        )


def _approval(entry: StoreEntry) -> Approval:
    if entry.approval is None:  # approve() and accept_heal() always set one; the invariant checks it
        raise LifecycleError("SR_RECORD_APPROVAL_INVALID", f"skill {entry.name!r} has no approval")
    return entry.approval


def _approval_digest(entry: StoreEntry) -> str:
    return _approval(entry).approval_digest
