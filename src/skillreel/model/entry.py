"""The store entry: one revision of a skill with every nested document, and its lifecycle state.

The entry's consistency rules are the lifecycle's invariants (``model.lifecycle``): a document
that breaks them cannot be parsed, so a tampered store row fails closed.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from .approval import Approval
from .base import ActionId, Digest, DigestedDocument, Document, SkillName, Timestamp
from .draft import Draft
from .events import EventsLog
from .report import ReplayReport
from .versions import LEGACY_VERSION, MAX_VERSION_RECORDS, DraftOrigin, VersionRecord, parse_version

Status = Literal["draft", "approved", "validated", "enabled", "revoked"]
STATUSES: tuple[Status, ...] = ("draft", "approved", "validated", "enabled", "revoked")


class Installation(Document):
    scope: Literal["project", "user"]
    paths: tuple[Annotated[str, StringConstraints(min_length=1, max_length=4096)], ...] = Field(
        min_length=1, max_length=8
    )
    package_digest: Digest
    installed_at: Timestamp


class HealProposal(Document):
    """A candidate new draft revision with healed locators, from a replay that had to heal.

    It never replaces the approved draft by itself: a reviewer accepts it with a normal review.
    """

    base_revision: Annotated[int, Field(ge=1)]
    base_draft_digest: Digest
    draft: Draft
    healed_actions: tuple[ActionId, ...] = Field(min_length=1, max_length=256)
    report_digest: Digest
    proposed_at: Timestamp


class StoreEntry(DigestedDocument):
    digest_tag = "skillreel.store-entry/v1"
    digest_field = "entry_digest"

    schema_: Literal["skillreel.store-entry/v1"] = Field("skillreel.store-entry/v1", alias="schema")
    name: SkillName
    revision: Annotated[int, Field(ge=1)]
    status: Status
    draft: Draft
    events: EventsLog
    approval: Approval | None = None
    last_report: ReplayReport | None = None
    installation: Installation | None = None
    heal_proposal: HealProposal | None = None
    was_enabled: bool = False
    # Provenance (issue 13): left out of the document when empty, so entries written before keep
    # their bytes and digests. ``versions``: one record per approval, oldest first; ``origin``: where
    # a pending draft came from when it is not a recording (a rollback).
    versions: tuple[VersionRecord, ...] = Field(
        default=(), max_length=MAX_VERSION_RECORDS, exclude_if=lambda records: not records
    )
    origin: DraftOrigin | None = Field(default=None, exclude_if=lambda origin: origin is None)
    created_at: Timestamp
    updated_at: Timestamp
    entry_digest: Digest

    @model_validator(mode="after")
    def _invariants(self) -> StoreEntry:
        problem = entry_problem(self)
        if problem:
            raise ValueError(problem)
        return self

    @property
    def version(self) -> str | None:
        """The semantic version of the approved draft (None for a draft): its version record's, or
        :data:`~skillreel.model.versions.LEGACY_VERSION` for a skill approved before versions existed."""
        if self.approval is None:
            return None
        if not self.versions:
            return LEGACY_VERSION
        last = self.versions[-1]
        return last.version if last.draft_digest == self.draft.draft_digest else None

    @property
    def last_version(self) -> str | None:
        """The version of the last approved draft, also while a new draft waits for review."""
        if self.versions:
            return self.versions[-1].version
        return LEGACY_VERSION if self.approval is not None else None


def _report_fits(e: StoreEntry) -> bool:
    report = e.last_report
    return (
        report is not None
        and e.approval is not None
        and report.draft_digest == e.draft.draft_digest
        and report.approval_digest == e.approval.approval_digest
        and report.environment_digest == e.draft.environment.environment_digest
    )


def entry_problem(e: StoreEntry) -> str | None:
    """The first lifecycle invariant ``e`` breaks, or None. Pure; shared with property tests."""
    if e.draft.name != e.name:
        return "draft name differs from entry name"
    if e.draft.events_digest != e.events.events_digest:
        return "draft does not come from this events log"
    if e.status == "draft":
        if e.approval is not None or e.last_report is not None:
            return "a draft carries no approval or report"
    elif e.approval is None or not e.approval.matches(e.draft):
        return "an approved state needs an approval of exactly this draft"
    if e.last_report is not None and not _report_fits(e):
        return "the last report is not for this approved draft"
    if e.status in ("validated", "enabled", "revoked") and e.last_report is None:
        return "validated, enabled and revoked need a successful replay report"
    if (e.status == "enabled") != (e.installation is not None):
        return "exactly enabled skills have an installation"
    if e.status == "enabled" and not e.was_enabled:
        return "an enabled skill is marked was_enabled"
    if e.heal_proposal is not None:
        hp = e.heal_proposal
        if hp.base_revision > e.revision or hp.base_draft_digest != e.draft.draft_digest:
            return "the heal proposal is not for this draft"
        if hp.draft.name != e.name:
            return "the heal proposal is for another skill"
    problem = _provenance_problem(e)
    if problem:
        return problem
    if e.updated_at < e.created_at:
        return "updatedAt precedes createdAt"
    return None


def _provenance_problem(e: StoreEntry) -> str | None:
    versions = [parse_version(r.version) for r in e.versions]
    if any(a >= b for a, b in pairwise(versions)):
        return "versions must increase"
    last = e.versions[-1] if e.versions else None
    if last is not None and last.revision == e.revision and last.draft_digest != e.draft.draft_digest:
        return "the version record of this revision is not for its draft"
    if e.origin is not None and (e.status != "draft" or e.origin.draft_digest != e.draft.draft_digest):
        return "a draft origin belongs to a pending draft"
    return None
