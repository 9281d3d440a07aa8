"""Use case: delete a skill that is not enabled, with its kept revisions (``skillreel delete``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import lifecycle
from ..model.base import check_skill_name
from ..store import AuditNote, Store
from .guards import approval_required


@dataclass(frozen=True)
class DeleteResult:
    name: str
    revision: int
    status: str

    def to_json(self) -> dict[str, Any]:
        return {"deleted": self.name, "revision": self.revision, "status": self.status}


def delete_skill(
    store: Store, name: str, *, approve: bool, expected_revision: int | None = None
) -> DeleteResult:
    current = store.get(check_skill_name(name))
    lifecycle.check_revision(current, expected_revision)
    lifecycle.ensure_deletable(current)
    if not approve:
        kept = len(store.revisions(name))
        raise approval_required(
            f"delete skill {name!r} ({current.status}, revision {current.revision}) and its {kept} kept "
            f"revision(s)",
            {"name": name, "revision": current.revision, "revisionsKept": kept},
        )
    removed = store.remove(name, AuditNote(kind="delete"), expected_revision=current.revision)
    return DeleteResult(removed.name, removed.revision, removed.status)
