"""Validated skills built through the model API and stored through the real store, for package,
install and MCP tests (no browser: the replay report is built with the model's own API)."""

from __future__ import annotations

from typing import Any

from skillreel.model import lifecycle
from skillreel.model.canonical import tagged_digest
from skillreel.model.entry import StoreEntry
from skillreel.model.report import ReplayReport, StepResult
from skillreel.store import AuditNote, Store
from tests import factory

T1 = "2026-01-02T03:05:00Z"
T2 = "2026-01-02T03:06:00Z"
REVIEWER = "reviewer-1"


def report_for(entry: StoreEntry, *, healed: bool = False) -> ReplayReport:
    assert entry.approval is not None
    steps = tuple(
        StepResult(
            action_id=a.id,
            evidence_digest=tagged_digest("skillreel.evidence/v1", {"a": a.id}),
            healed=healed and i == 0,
        )
        for i, a in enumerate(entry.draft.actions)
    )
    return ReplayReport.build(
        name=entry.name,
        draft_digest=entry.draft.draft_digest,
        approval_digest=entry.approval.approval_digest,
        environment_digest=entry.draft.environment.environment_digest,
        steps=steps,
        finished_at=T2,
    )


def validated_entry(name: str = "search-invoices", **draft_kw: Any) -> StoreEntry:
    """A validated entry (revision 3) built in memory."""
    approved = lifecycle.approve(factory.entry(name, **draft_kw), REVIEWER, T1)
    return lifecycle.replay_succeeded(approved, report_for(approved), T2)


def store_entry(store: Store, entry: StoreEntry, status: str = "validated") -> StoreEntry:
    """Put a new skill through the real store up to ``status`` (draft, approved or validated)."""
    current = store.insert(entry, AuditNote(kind="record"))
    if status == "draft":
        return current
    current = store.update(
        entry.name, lambda e: lifecycle.approve(e, REVIEWER, T1), AuditNote(kind="review", reviewer=REVIEWER)
    )
    if status == "approved":
        return current
    return store.update(
        entry.name, lambda e: lifecycle.replay_succeeded(e, report_for(e), T2), AuditNote(kind="replay")
    )
