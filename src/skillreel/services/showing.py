"""Use case: one revision of a skill as a reviewer reads it before approving (``skillreel show``).

The projection holds everything a reviewer needs and every digest; a target is shown as its ranked
candidates (no fingerprint hashes) and a value as the parameter it reads. Beside the revision: the
heal proposals pending for the current draft, the skill's last runs (``skillreel runs`` pages
through all of them) and the store's size against its bound.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ..model import lifecycle
from ..model.base import check_skill_name
from ..model.draft import Draft
from ..model.entry import HealProposal, StoreEntry
from ..model.locators import LocatorBundle
from ..store import RevisionSummary, RunView, Store, StoreSize

LAST_RUNS = 5


@dataclass(frozen=True)
class SkillView:
    """One revision of a skill (the current one unless asked), the list of kept revisions, the heal
    proposals pending for the current draft (newest first), the last runs and the store's size."""

    entry: StoreEntry
    revisions: tuple[RevisionSummary, ...]
    current_revision: int
    proposals: tuple[HealProposal, ...] = ()
    runs: tuple[RunView, ...] = ()
    run_count: int = 0
    store_size: StoreSize | None = None

    def to_json(self) -> dict[str, Any]:
        current = self.entry.revision == self.current_revision
        proposals = self.proposals if current else ()
        return {
            **project_entry(self.entry, proposals),
            "current": current,
            "revisions": [r.to_json() for r in self.revisions],
            "lastRuns": [r.to_json() for r in self.runs],
            "runCount": self.run_count,
            "store": self.store_size.to_json() if self.store_size is not None else None,
        }


def show_skill(store: Store, name: str, revision: int | None = None) -> SkillView:
    current = store.get(check_skill_name(name))
    entry = current if revision is None or revision == current.revision else store.revision(name, revision)
    return SkillView(
        entry,
        tuple(store.revisions(name)),
        current.revision,
        tuple(store.heal_proposals(name)),
        tuple(store.runs(name, limit=LAST_RUNS)),
        store.run_count(name),
        store.size(),
    )


def _target(bundle: LocatorBundle | None) -> dict[str, Any] | None:
    if bundle is None:
        return None
    fp = bundle.fingerprint
    return {
        "candidates": [
            {"strategy": c.strategy, "selector": c.selector, "matchCount": c.match_count}
            for c in bundle.candidates
        ],
        "element": {"tag": fp.tag, "type": fp.type, "role": fp.role},
    }


def project_actions(draft: Draft, only: Collection[str] | None = None) -> list[dict[str, Any]]:
    """Each action (or those with ids in ``only``): id, kind, its own fields; a target as its ranked
    candidates (no hashes); a value as the parameter it reads."""
    views = []
    for action in draft.actions:
        if only is not None and action.id not in only:
            continue
        view = action.to_json()
        if "target" in view:
            view["target"] = _target(getattr(action, "target", None))
        if "value" in view:
            view["parameter"] = view.pop("value")["name"]
        views.append(view)
    return views


def project_proposal(heal: HealProposal) -> dict[str, Any]:
    """A pending heal proposal as ``show`` prints it: what it heals and the healed steps' targets."""
    return {
        "baseRevision": heal.base_revision,
        "draftDigest": heal.draft.draft_digest,
        "healedActions": list(heal.healed_actions),
        "reportDigest": heal.report_digest,
        "proposedAt": heal.proposed_at,
        "actions": project_actions(heal.draft, heal.healed_actions),
    }


def project_entry(entry: StoreEntry, proposals: tuple[HealProposal, ...] | None = None) -> dict[str, Any]:
    """The full projection ``show`` prints: everything a reviewer needs, all digests. ``proposals``:
    the pending heal proposals (default: the one the entry itself holds, from an older store);
    ``healProposal`` is the newest, the one ``review --heal-proposal`` accepts."""
    draft, env = entry.draft, entry.draft.environment
    target = env.target.to_json()
    target.pop("kind")
    if env.target.kind == "url":
        target.setdefault("query", None)  # absent: the first query-key rule (every token key by name)
    approval, report, inst = entry.approval, entry.last_report, entry.installation
    if proposals is None:
        proposals = (entry.heal_proposal,) if entry.heal_proposal is not None else ()
    return {
        "name": entry.name,
        "status": entry.status,
        "revision": entry.revision,
        "description": draft.description,
        "createdAt": entry.created_at,
        "updatedAt": entry.updated_at,
        "digests": {
            "entry": entry.entry_digest,
            "draft": draft.draft_digest,
            "events": draft.events_digest,
            "environment": env.environment_digest,
            "approval": approval.approval_digest if approval else None,
            "lastReport": report.report_digest if report else None,
            "package": inst.package_digest if inst else None,
        },
        "actions": project_actions(draft),
        "parameters": [p.to_json() for p in draft.parameters],
        "capabilities": list(draft.capabilities),
        "failureConditions": list(draft.failure_conditions),
        "environment": {
            "kind": env.target.kind,
            **target,
            "allowedOrigins": list(env.allowed_origins),
            "identity": env.identity,
            "storageStateDigest": env.storage_state_digest,
            "session": env.session,
            "viewport": env.viewport.to_json(),
            "environments": [e.to_json() for e in env.environments],
        },
        "approval": None
        if approval is None
        else {
            "reviewer": approval.reviewer,
            "approvedAt": approval.approved_at,
            "approvedCapabilities": list(approval.approved_capabilities),
            "approvedEnvironments": list(approval.approved_environments),
        },
        "lastReport": None
        if report is None
        else {"finishedAt": report.finished_at, "steps": len(report.steps), "healed": report.healed},
        "installation": None if inst is None else inst.to_json(),
        "healProposal": project_proposal(proposals[0]) if proposals else None,
        "healProposals": [project_proposal(p) for p in proposals],
        "wasEnabled": entry.was_enabled,
        "next": lifecycle.next_steps(entry, heal_pending=bool(proposals)),
    }
