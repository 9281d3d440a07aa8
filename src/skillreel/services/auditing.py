"""Use case: read the content-free audit events, or verify their hash chain (``skillreel audit``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model.audit import AuditEvent
from ..model.base import check_skill_name
from ..store import AuditVerification, Store

DEFAULT_AUDIT_LIMIT = 1000


@dataclass(frozen=True)
class AuditLog:
    """The newest events, how many there are, and how many refused calls were counted but not yet
    reported by a written event (they come fast and are coalesced; see ``store/audit.py``)."""

    events: tuple[AuditEvent, ...]
    total: int
    unlogged_refusals: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "events": [e.to_json() for e in self.events],
            "total": self.total,
            "unloggedRefusals": self.unlogged_refusals,
        }


def audit_log(store: Store, name: str | None = None, limit: int = DEFAULT_AUDIT_LIMIT) -> AuditLog:
    if name is not None:
        check_skill_name(name)
    return AuditLog(
        tuple(store.audit_events(name, limit)), store.audit_count(name), store.unlogged_refusals()
    )


def verify_audit(store: Store) -> AuditVerification:
    return store.verify_audit()
