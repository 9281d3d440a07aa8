"""Use case: go back to an older revision's draft (``skillreel rollback NAME --to N --approve``).

The current entry becomes a new draft revision holding revision N's draft and events log; like any
draft it needs a review before it replays (its approval is the next version, bumped against the
version it replaces). The entry remembers where the draft came from until it is approved, and the
``rollback`` audit event names revision N by its entry digest. An enabled skill is revoked first; a
revision the store never had or no longer keeps is ``SR_RECORD_REVISION_NOT_FOUND``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import lifecycle
from ..model.base import check_skill_name
from ..model.entry import StoreEntry
from ..store import AuditNote, Store
from .guards import approval_required, check_reviewer, require_pinned


@dataclass(frozen=True)
class RollbackResult:
    name: str
    revision: int
    rolled_back_to: int
    version: str | None  # the version revision N carried, if it was approved
    draft_digest: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": "draft",
            "revision": self.revision,
            "rolledBackTo": self.rolled_back_to,
            "restoredVersion": self.version,
            "draftDigest": self.draft_digest,
        }


def rollback_skill(
    store: Store,
    name: str,
    to: int,
    *,
    approve: bool,
    expected_revision: int | None = None,
    reviewer: str | None = None,
) -> RollbackResult:
    """Make a new draft holding revision ``to``'s draft; ``reviewer``: who asked for it, when a
    reviewer rejected a draft so (the review page), recorded in the ``rollback`` event."""
    name, now = check_skill_name(name), store.now()
    reviewer = check_reviewer(reviewer) if reviewer is not None else None
    current = store.get(name)
    lifecycle.check_revision(current, expected_revision)
    source = store.revision(name, to)

    def change(entry: StoreEntry) -> StoreEntry:
        return lifecycle.rollback(entry, source, now)

    preview = change(current)
    would = (
        f"make revision {preview.revision} of skill {name!r} a draft holding revision {to}'s draft "
        "(it then needs a review)"
    )
    if not approve:
        details = {
            "name": name,
            "revision": current.revision,
            "rollBackTo": to,
            "draftDigest": source.draft.draft_digest,
            "restoredVersion": source.version,
        }
        raise approval_required(would, details, revision=current.revision)
    command = f"skillreel rollback {name} --to {to}"
    require_pinned(expected_revision, name, current.revision, would=would, command=command)
    note = AuditNote(
        kind="rollback",
        digests={"from": source.entry_digest, "draft": source.draft.draft_digest},
        reviewer=reviewer,
    )
    new = store.update(name, change, note, expected_revision=current.revision)
    return RollbackResult(new.name, new.revision, to, source.version, new.draft.draft_digest)
