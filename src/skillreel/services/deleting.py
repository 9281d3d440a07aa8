"""Use case: delete a skill that is not enabled, with its kept revisions (``skillreel delete``).

Deleting holds the install lock and first finishes or rolls back a package transaction a killed
``enable`` or ``revoke`` left for the skill (:func:`~skillreel.agent_skills.transaction.package_transaction`):
otherwise a package published by an enable killed before its commit would stay live on disk for a
skill the store no longer knows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..agent_skills.install import no_fault
from ..agent_skills.transaction import package_transaction
from ..model import lifecycle
from ..model.base import check_skill_name
from ..model.envelope import ResultWarning
from ..store import AuditNote, Store
from .guards import approval_required, require_pinned


@dataclass(frozen=True)
class DeleteResult:
    name: str
    revision: int
    status: str
    warnings: tuple[ResultWarning, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"deleted": self.name, "revision": self.revision, "status": self.status}


def delete_skill(
    store: Store, name: str, *, approve: bool, expected_revision: int | None = None
) -> DeleteResult:
    current = store.get(check_skill_name(name))
    lifecycle.check_revision(current, expected_revision)
    lifecycle.ensure_deletable(current)
    kept = len(store.revisions(name))
    would = (
        f"delete skill {name!r} ({current.status}, revision {current.revision}) and its {kept} kept "
        "revision(s)"
    )
    if not approve:
        details = {"name": name, "revision": current.revision, "revisionsKept": kept}
        raise approval_required(would, details, revision=current.revision)
    require_pinned(expected_revision, name, current.revision, would=would, command=f"skillreel delete {name}")
    with package_transaction(store, name, no_fault) as (_, warnings):
        current = store.get(name)  # again, under the lock and after converging
        lifecycle.check_revision(current, expected_revision)
        lifecycle.ensure_deletable(current)
        removed = store.remove(name, AuditNote(kind="delete"), expected_revision=current.revision)
    return DeleteResult(removed.name, removed.revision, removed.status, warnings)
