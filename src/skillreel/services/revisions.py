"""Shared by the use cases that compare revisions (review, diff, rollback, the review page): which
kept revision holds the approved version a new approval is measured against.

The approved version before a new one is the current entry's when it is approved (a heal proposal
is accepted on top of it); for a pending draft it is the revision named by the last version record,
or for a skill approved before versions existed the newest approved revision in the history. A
revision the store no longer keeps (or that belongs to another store's history, after an import) is
reported with no draft, and the next version is then counted as major.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import SkillreelError
from ..model.draft import Draft
from ..model.entry import StoreEntry
from ..model.lifecycle import Released
from ..model.versions import LEGACY_VERSION
from ..store import Store


@dataclass(frozen=True)
class ApprovedBase:
    """The last approved version of a skill: the revision that carries it (None when not kept)."""

    version: str
    revision: int | None
    draft: Draft | None

    @property
    def released(self) -> Released:
        return Released(self.version, self.draft)


def approved_base(store: Store, entry: StoreEntry) -> ApprovedBase | None:
    """The approved version a new approval of ``entry`` follows, or None before the first approval."""
    if entry.approval is not None and entry.version is not None:
        return ApprovedBase(entry.version, entry.revision, entry.draft)
    if entry.versions:
        record = entry.versions[-1]
        kept = _kept(store, entry.name, record.revision)
        if kept is not None and kept.draft.draft_digest == record.draft_digest:
            return ApprovedBase(record.version, record.revision, kept.draft)
        return ApprovedBase(record.version, None, None)
    for summary in reversed(store.revisions(entry.name)):
        if summary.status != "draft" and summary.revision < entry.revision:
            kept = _kept(store, entry.name, summary.revision)
            return ApprovedBase(LEGACY_VERSION, summary.revision, kept.draft if kept else None)
    return None


def _kept(store: Store, name: str, revision: int) -> StoreEntry | None:
    try:
        return store.revision(name, revision)
    except SkillreelError as exc:
        if exc.code in ("SR_RECORD_REVISION_NOT_FOUND", "SR_RECORD_NOT_FOUND"):
            return None
        raise
