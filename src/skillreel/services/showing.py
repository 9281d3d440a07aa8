"""Use case: one revision of a skill as a reviewer reads it before approving (``skillreel show``).

The projection holds everything a reviewer needs and every digest, with invisible characters of
page-controlled text (a bidi override in a recorded id) escaped; a target is shown as its ranked
candidates (no fingerprint hashes) and a value as the parameter it reads. Beside the revision: the
heal proposals pending for the current draft, the skill's last runs (``skillreel runs`` pages
through all of them) and the store's size against its bound.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from ..model import lifecycle
from ..model.actions import Action, walk
from ..model.base import check_skill_name
from ..model.coverage import unchecked_side_effect
from ..model.draft import Draft
from ..model.entry import HealProposal, StoreEntry
from ..model.exposure import exposed_reads
from ..model.intents import step_intent
from ..model.locators import ElementSet, LocatorBundle
from ..model.trust import TrustScore
from ..model.values import outputs_schema
from ..model.visible import visible_tree
from ..store import RevisionSummary, RunView, Store, StoreSize
from ..vault import input_schema

LAST_RUNS = 5

RUNS_SHOWN = 10  # the review page's list of runs


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
    trust: TrustScore = field(default_factory=TrustScore)

    def to_json(self) -> dict[str, Any]:
        """The projection every reader gets (``show``, its ``--json``, the review page): invisible
        characters of page-controlled text escaped (``model.visible``: a bidi override in a recorded
        id reads as ``\\u202e``)."""
        current = self.entry.revision == self.current_revision
        proposals = self.proposals if current else ()
        view = {
            **project_entry(self.entry, proposals),
            "current": current,
            "revisions": [r.to_json() for r in self.revisions],
            "lastRuns": [r.to_json() for r in self.runs],
            "runCount": self.run_count,
            "trust": self.trust.to_json(),  # of the current draft (model.trust)
            "store": self.store_size.to_json() if self.store_size is not None else None,
        }
        shown: dict[str, Any] = visible_tree(view)
        return shown


def last_runs(store: Store, name: str, limit: int = RUNS_SHOWN) -> tuple[RunView, ...]:
    """The last ``limit`` runs of ``name``, oldest first (the review page's list and chart)."""
    return tuple(reversed(store.runs(name, limit=limit)))


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
        store.trust(name).get(name, TrustScore()),
    )


def _target(bundle: LocatorBundle | ElementSet | None) -> dict[str, Any] | None:
    if bundle is None:
        return None
    fp = bundle.fingerprint
    view: dict[str, Any] = {
        "candidates": [
            {"strategy": c.strategy, "selector": c.selector, "matchCount": c.match_count}
            for c in bundle.candidates
        ],
        "element": {"tag": fp.tag, "type": fp.type, "role": fp.role},
    }
    if bundle.filter is not None:
        view["filter"] = bundle.filter.to_json()
    if bundle.within is not None:
        view["within"] = bundle.within
    if isinstance(bundle, LocatorBundle) and bundle.row is not None:
        view["row"] = _target(bundle.row)  # the rows a target chosen in a row chooses among
    if isinstance(bundle, LocatorBundle) and bundle.display_name is not None:
        view["displayName"] = bundle.display_name  # page chrome, screened at recording (issue 31)
    return view


def _step_view(action: Action, sensitive: frozenset[str]) -> dict[str, Any]:
    """One step as ``show`` projects it: its own fields and its intent; targets and item sets as
    ranked candidates (no hashes); a parameter value as the name it reads (``parameter``); nested
    blocks the same way."""
    view = {**action.to_json(), "intent": step_intent(action, sensitive, named=True)}
    for key in ("target", "items"):
        if key in view:
            view[key] = _target(getattr(action, key, None))
    if isinstance(view.get("value"), dict) and view["value"].get("ref") == "parameter":
        view["parameter"] = view.pop("value")["name"]
    for key, spec in (("fields", getattr(action, "fields", ())),):
        if key in view:
            view[key] = [{**f.to_json(), "target": _target(f.target)} for f in spec]
    cond = getattr(action, "condition", None)
    if cond is not None and getattr(cond, "target", None) is not None:
        view["condition"] = {**cond.to_json(), "target": _target(cond.target)}
    for key, block in (("body", "body"), ("then", "then"), ("else", "otherwise")):
        if key in view:
            view[key] = [_step_view(a, sensitive) for a in getattr(action, block)]
    return view


def project_actions(draft: Draft, only: Collection[str] | None = None) -> list[dict[str, Any]]:
    """Each step (or, with ``only``, those with these ids, wherever they are in the graph): id,
    kind, its own fields and its ``intent`` (the reviewer's line, else one generated without page
    text); a target as its ranked candidates (no hashes); a value as the parameter it reads; loops
    and branches with their nested steps."""
    sensitive = frozenset(p.name for p in draft.parameters if p.sensitive)
    if only is not None:
        return [_step_view(a, sensitive) for a in walk(draft.actions) if a.id in only]
    return [_step_view(a, sensitive) for a in draft.actions]


def inputs_and_outputs(draft: Draft) -> dict[str, Any]:
    """The skill's inputs (each parameter's JSON Schema) and outputs (names, types, JSON Schema)."""
    return {
        "inputs": [
            {"name": p.name, "required": p.required, "sensitive": p.sensitive, "schema": input_schema(p)}
            for p in draft.parameters
        ],
        "outputs": [o.to_json() for o in draft.outputs],
        "outputSchema": outputs_schema(draft.outputs) if draft.outputs else None,
    }


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
        "version": entry.version,
        "lastVersion": entry.last_version,
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
        "schema": draft.schema_,
        "actions": project_actions(draft),
        "parameters": [p.to_json() for p in draft.parameters],
        **inputs_and_outputs(draft),
        "capabilities": list(draft.capabilities),
        "failureConditions": list(draft.failure_conditions),
        "extractsAfterSecret": list(exposed_reads(draft)),
        "uncheckedSideEffect": unchecked_side_effect(draft.actions),
        "environment": {
            "kind": env.target.kind,
            **target,
            "allowedOrigins": list(env.allowed_origins),
            "identity": env.identity,
            "storageStateDigest": env.storage_state_digest,
            "session": env.login,
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
        "origin": entry.origin.to_json() if entry.origin is not None else None,
        "provenance": [record.to_json() for record in entry.versions],
        "next": lifecycle.next_steps(entry, heal_pending=bool(proposals)),
    }
