"""Use case: what changed between two drafts of a skill, step by step (``skillreel diff NAME [A [B]]``).

A side is a kept revision number, ``approved`` (the last approved version), ``current`` (the current
revision) or ``proposal`` (the pending heal proposal). Without sides: the pending heal proposal, or
else a draft waiting for review, against the approved version; when nothing is pending, the last
approved version against the one before it. With one side A: A against that same default. The
comparison is ``model.diff.diff_drafts``; the bump is the one an approval would give
(``model.versions.classify``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..errors import InputError, LifecycleError
from ..model.base import check_skill_name
from ..model.diff import DraftDiff, diff_drafts
from ..model.draft import Draft
from ..model.entry import HealProposal, StoreEntry
from ..model.versions import VersionChange, bumped, classify
from ..model.visible import visible_tree
from ..store import Store
from .revisions import approved_base

KEYWORDS = ("approved", "current", "proposal")


@dataclass(frozen=True)
class Side:
    """One side of a diff: what it is, the revision that holds it, its version, its draft."""

    label: str  # "approved", "draft", "proposal", "revision" or "nothing"
    revision: int | None
    version: str | None
    draft: Draft | None

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "revision": self.revision,
            "version": self.version,
            "draftDigest": self.draft.draft_digest if self.draft is not None else None,
        }

    def describe(self) -> str:
        if self.label == "nothing":
            return "nothing approved yet"
        where = "the heal proposal" if self.label == "proposal" else f"revision {self.revision}"
        kind = "" if self.label in ("proposal", "revision") else f"{self.label} "
        return f"{kind}{where}" + (f" ({self.version})" if self.version else "")


@dataclass(frozen=True)
class SkillDiff:
    name: str
    before: Side
    after: Side
    diff: DraftDiff
    change: VersionChange
    next_version: str | None  # what approving ``after`` would make it, when ``before`` is the approved one

    def to_json(self) -> dict[str, Any]:
        """The diff as every rendering reads it: invisible characters escaped (``model.visible``)."""
        data = {
            "name": self.name,
            "from": self.before.to_json(),
            "to": self.after.to_json(),
            **self.diff.to_json(),
            "bump": self.change.bump,
            "reasons": list(self.change.reasons),
            "nextVersion": self.next_version,
        }
        shown: dict[str, Any] = visible_tree(data)
        return shown


def parse_side(spec: str) -> int | str:
    if re.fullmatch(r"[1-9][0-9]{0,8}", spec):
        return int(spec)
    if spec in KEYWORDS:
        return spec
    raise InputError(
        "SR_RECORD_USAGE",
        "a side of a diff is a revision number or one of approved, current, proposal",
    )


def diff_skill(store: Store, name: str, a: str | None = None, b: str | None = None) -> SkillDiff:
    entry = store.get(check_skill_name(name))
    specs = [parse_side(s) for s in (a, b) if s is not None]
    # newest first: the one `review --heal-proposal` takes. A draft waiting for review is what is
    # pending then (a rollback may restore a draft that once had proposals).
    pending = store.heal_proposals(entry.name) if entry.status != "draft" else []
    proposal = pending[0] if pending else None
    if len(specs) == 2:
        before, after = _side(store, entry, proposal, specs[0]), _side(store, entry, proposal, specs[1])
    elif specs:
        before, after = _side(store, entry, proposal, specs[0]), _pending(entry, proposal)
    else:
        before, after = _default(store, entry, proposal)
    if after.draft is None:  # only "nothing" has no draft, and it is never the newer side
        raise LifecycleError("SR_RECORD_INTERNAL", "the newer side of a diff has no draft")
    change = classify(before.draft, after.draft)
    base = approved_base(store, entry)
    next_version = None
    if after.label in ("draft", "proposal") and (before.label == "nothing" or before.label == "approved"):
        next_version = bumped(base.version if base else None, change.bump)
    return SkillDiff(entry.name, before, after, diff_drafts(before.draft, after.draft), change, next_version)


def _pending(entry: StoreEntry, proposal: HealProposal | None) -> Side:
    if proposal is not None:
        return Side("proposal", None, None, proposal.draft)
    label = "draft" if entry.status == "draft" else "current"
    return Side(label, entry.revision, entry.version, entry.draft)


def _default(store: Store, entry: StoreEntry, proposal: HealProposal | None) -> tuple[Side, Side]:
    if proposal is not None or entry.status == "draft":
        return _approved(store, entry, required=False), _pending(entry, proposal)
    current = Side("approved", entry.revision, entry.version, entry.draft)
    if len(entry.versions) >= 2:
        previous = entry.versions[-2]
        try:
            kept = store.revision(entry.name, previous.revision)
        except LifecycleError:
            kept = None
        if kept is not None and kept.draft.draft_digest == previous.draft_digest:
            return Side("revision", previous.revision, previous.version, kept.draft), current
    return Side("nothing", None, None, None), current


def _approved(store: Store, entry: StoreEntry, *, required: bool) -> Side:
    base = approved_base(store, entry)
    if base is None or base.draft is None:
        if required:
            raise LifecycleError(
                "SR_RECORD_REVISION_NOT_FOUND",
                f"skill {entry.name!r} has no approved revision kept in this store",
            )
        return Side("nothing", None, None, None)
    return Side("approved", base.revision, base.version, base.draft)


def _side(store: Store, entry: StoreEntry, proposal: HealProposal | None, spec: int | str) -> Side:
    if spec == "approved":
        return _approved(store, entry, required=True)
    if spec == "proposal":
        if proposal is None:
            raise LifecycleError(
                "SR_RECORD_STATE_INVALID", f"skill {entry.name!r} has no pending heal proposal"
            )
        return Side("proposal", None, None, proposal.draft)
    revision = entry.revision if spec == "current" else int(spec)
    kept = entry if revision == entry.revision else store.revision(entry.name, revision)
    return Side("revision", revision, kept.version, kept.draft)
