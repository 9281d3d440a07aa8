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
    events: tuple[AuditEvent, ...]
    total: int

    def to_json(self) -> dict[str, Any]:
        return {"events": [e.to_json() for e in self.events], "total": self.total}


def audit_log(store: Store, name: str | None = None, limit: int = DEFAULT_AUDIT_LIMIT) -> AuditLog:
    if name is not None:
        check_skill_name(name)
    return AuditLog(tuple(store.audit_events(name, limit)), store.audit_count(name))


def verify_audit(store: Store) -> AuditVerification:
    return store.verify_audit()
