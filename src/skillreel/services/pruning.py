"""Use case: remove skills past the policy's retention and trim a nearly full audit log
(``skillreel prune``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..store import Store
from .guards import approval_required


@dataclass(frozen=True)
class PruneResult:
    pruned: tuple[tuple[str, int], ...]
    retention_days: int
    audit_trimmed: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "pruned": [{"name": n, "revision": r} for n, r in self.pruned],
            "retentionDays": self.retention_days,
            "auditTrimmed": self.audit_trimmed,
        }


def prune_skills(store: Store, *, approve: bool) -> PruneResult:
    """Remove skills that are not enabled and unchanged for longer than the policy's retention, and
    trim the oldest audit events when the log is nearly full (first, so the prune events fit)."""
    now = store.now()
    days = store.policy().retention_days
    expired = store.prune(now, dry_run=True)
    trim = store.trim_audit(dry_run=True)
    if (expired or trim) and not approve:
        names = [e.name for e in expired]
        would = []
        if names:
            would.append(
                f"prune {len(names)} skill(s) unchanged for more than {days} days: {', '.join(names)}"
            )
        if trim:
            would.append(f"trim the {trim} oldest audit event(s)")
        raise approval_required(
            " and ".join(would), {"names": names, "retentionDays": days, "auditTrimmed": trim}
        )
    trimmed = store.trim_audit() if trim else 0
    removed = store.prune(now) if expired else []
    return PruneResult(tuple((e.name, e.revision) for e in removed), days, trimmed)
