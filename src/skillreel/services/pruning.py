"""Use case: remove skills past the policy's retention, trim what runs and changes leave behind
(finished runs and kept revisions past the retention, heal proposals of drafts no longer current,
the oldest runs while the store is over 3/4 of its bound; runs left started by a dead process are
recorded as interrupted), finish or roll back package transactions a killed process left (their
journals), and trim a nearly full audit log (``skillreel prune``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..agent_skills.transaction import converge_interrupted, interrupted_transactions
from ..model.envelope import ResultWarning
from ..store import RunsPruned, Store
from .guards import approval_required


@dataclass(frozen=True)
class PruneResult:
    pruned: tuple[tuple[str, int], ...]
    retention_days: int
    audit_trimmed: int = 0
    trimmed: RunsPruned = field(default_factory=RunsPruned)
    installs_recovered: tuple[str, ...] = ()
    warnings: tuple[ResultWarning, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "pruned": [{"name": n, "revision": r} for n, r in self.pruned],
            "retentionDays": self.retention_days,
            "auditTrimmed": self.audit_trimmed,
            "trimmed": self.trimmed.to_json(),
            "installsRecovered": list(self.installs_recovered),
        }


def prune_skills(store: Store, *, approve: bool) -> PruneResult:
    """Remove skills that are not enabled and unchanged for longer than the policy's retention, and
    trim the oldest audit events when the log is nearly full (first, so the prune events fit)."""
    now = store.now()
    days = store.policy().retention_days
    expired = store.prune(now, dry_run=True)
    trim = store.trim_audit(dry_run=True)
    runs = store.prune_runs(now, dry_run=True)
    unfinished = interrupted_transactions(store)
    if (expired or trim or runs or unfinished) and not approve:
        names = [e.name for e in expired]
        would = []
        if unfinished:
            would.append(
                f"finish or roll back the interrupted package transaction(s) of {', '.join(unfinished)}"
            )
        if names:
            would.append(
                f"prune {len(names)} skill(s) unchanged for more than {days} days: {', '.join(names)}"
            )
        if runs:
            would.append(
                f"trim {runs.runs} run(s), {runs.revisions} old revision(s) and {runs.proposals} "
                f"stale heal proposal(s), and record {runs.interrupted} interrupted run(s)"
            )
        if trim:
            would.append(f"trim the {trim} oldest audit event(s)")
        raise approval_required(
            " and ".join(would),
            {
                "names": names,
                "retentionDays": days,
                "auditTrimmed": trim,
                "trimmed": runs.to_json(),
                "installsRecovered": unfinished,
            },
        )
    # first, so a skill pruned below no longer has a package of an unfinished enable on disk
    recovered = converge_interrupted(store, unfinished)
    trimmed = store.trim_audit() if trim else 0
    removed = store.prune(now) if expired else []
    trimmed_runs = store.prune_runs(now) if runs else RunsPruned()
    return PruneResult(
        tuple((e.name, e.revision) for e in removed),
        days,
        trimmed,
        trimmed_runs,
        tuple(unfinished),
        recovered,
    )
