"""Governance use cases: list, show, review, delete, prune, audit, policy, export, import.

Each function takes an open :class:`~skillreel.store.Store` and plain arguments and returns a
frozen result with ``to_json()``; the CLI (and MCP) only render. A mutation asked for without
``approve`` checks everything it can, changes nothing and raises ``SR_RECORD_APPROVAL_REQUIRED``
whose message and ``details`` say what would change.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError, LifecycleError, RecordError
from ..model import lifecycle
from ..model.audit import AuditEvent
from ..model.base import check_skill_name, is_label
from ..model.draft import Draft
from ..model.entry import StoreEntry
from ..model.export import ExportDocument
from ..model.locators import LocatorBundle
from ..model.policy import Policy, PolicySettings
from ..store import AuditNote, AuditVerification, EntrySummary, RevisionSummary, Store, signing, utc_now
from ..store.transfer import check_output, export_bytes, export_document, imported_entry, write_private
from ..user_files import decode_json_object, parse_document, read_user_file

DEFAULT_AUDIT_LIMIT = 1000


# --- results -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SkillList:
    skills: tuple[EntrySummary, ...]

    def to_json(self) -> dict[str, Any]:
        return {"skills": [s.to_json() for s in self.skills]}


@dataclass(frozen=True)
class SkillView:
    """One revision of a skill (the current one unless asked) and the list of kept revisions."""

    entry: StoreEntry
    revisions: tuple[RevisionSummary, ...]
    current_revision: int

    def to_json(self) -> dict[str, Any]:
        return {**project_entry(self.entry), "current": self.entry.revision == self.current_revision,
                "revisions": [r.to_json() for r in self.revisions]}


@dataclass(frozen=True)
class ReviewResult:
    name: str
    revision: int
    approval_digest: str
    draft_digest: str
    heal_proposal: bool

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": "approved", "revision": self.revision,
                "approvalDigest": self.approval_digest, "draftDigest": self.draft_digest,
                "healProposalAccepted": self.heal_proposal}


@dataclass(frozen=True)
class DeleteResult:
    name: str
    revision: int
    status: str

    def to_json(self) -> dict[str, Any]:
        return {"deleted": self.name, "revision": self.revision, "status": self.status}


@dataclass(frozen=True)
class PruneResult:
    pruned: tuple[tuple[str, int], ...]
    retention_days: int
    audit_trimmed: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"pruned": [{"name": n, "revision": r} for n, r in self.pruned],
                "retentionDays": self.retention_days, "auditTrimmed": self.audit_trimmed}


@dataclass(frozen=True)
class AuditLog:
    events: tuple[AuditEvent, ...]
    total: int

    def to_json(self) -> dict[str, Any]:
        return {"events": [e.to_json() for e in self.events], "total": self.total}


@dataclass(frozen=True)
class PolicyView:
    policy: Policy
    default: bool

    def to_json(self) -> dict[str, Any]:
        return {"policy": self.policy.to_json(), "default": self.default}


@dataclass(frozen=True)
class PolicyChange:
    policy: Policy
    changes: tuple[tuple[str, Any, Any], ...]

    def to_json(self) -> dict[str, Any]:
        return {"policy": self.policy.to_json(),
                "changed": [{"field": f, "from": old, "to": new} for f, old, new in self.changes]}


@dataclass(frozen=True)
class ExportResult:
    name: str
    revision: int
    path: Path
    export_digest: str
    signed_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "revision": self.revision, "path": str(self.path),
                "exportDigest": self.export_digest, "signedBy": self.signed_by}


@dataclass(frozen=True)
class ImportResult:
    name: str
    revision: int
    status: str
    replaced: bool
    export_digest: str
    entry_digest: str
    signed_by: str | None  # the signature's key id, if the export is signed
    verified: bool  # the signature was checked against a trusted key

    def to_json(self) -> dict[str, Any]:
        signature = None if self.signed_by is None else {"keyId": self.signed_by, "verified": self.verified}
        return {"name": self.name, "revision": self.revision, "status": self.status,
                "replaced": self.replaced, "exportDigest": self.export_digest,
                "entryDigest": self.entry_digest, "signature": signature}


# --- checks ---------------------------------------------------------------------------------------

def check_reviewer(reviewer: str) -> str:
    if not is_label(reviewer):
        raise InputError("SR_RECORD_INPUT_MALFORMED",
                         "a reviewer id is letters, digits and . _ @ : - (at most 128)")
    return reviewer


def approval_required(would: str, details: dict[str, Any]) -> RecordError:
    return RecordError("SR_RECORD_APPROVAL_REQUIRED",
                       f"would {would}; nothing was changed (repeat with --approve to do it)",
                       details={"wouldChange": details})


# --- projections ----------------------------------------------------------------------------------

def _target(bundle: LocatorBundle | None) -> dict[str, Any] | None:
    if bundle is None:
        return None
    fp = bundle.fingerprint
    return {"candidates": [{"strategy": c.strategy, "selector": c.selector, "matchCount": c.match_count}
                           for c in bundle.candidates],
            "element": {"tag": fp.tag, "type": fp.type, "role": fp.role}}


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


def project_entry(entry: StoreEntry) -> dict[str, Any]:
    """The full projection ``show`` prints: everything a reviewer needs, all digests."""
    draft, env = entry.draft, entry.draft.environment
    target = env.target.to_json()
    target.pop("kind")
    approval, report, inst, heal = entry.approval, entry.last_report, entry.installation, entry.heal_proposal
    return {
        "name": entry.name, "status": entry.status, "revision": entry.revision,
        "description": draft.description, "createdAt": entry.created_at, "updatedAt": entry.updated_at,
        "digests": {"entry": entry.entry_digest, "draft": draft.draft_digest, "events": draft.events_digest,
                    "environment": env.environment_digest,
                    "approval": approval.approval_digest if approval else None,
                    "lastReport": report.report_digest if report else None,
                    "package": inst.package_digest if inst else None},
        "actions": project_actions(draft),
        "parameters": [p.to_json() for p in draft.parameters],
        "capabilities": list(draft.capabilities),
        "failureConditions": list(draft.failure_conditions),
        "environment": {"kind": env.target.kind, **target, "allowedOrigins": list(env.allowed_origins),
                        "identity": env.identity, "storageStateDigest": env.storage_state_digest,
                        "viewport": env.viewport.to_json()},
        "approval": None if approval is None else {
            "reviewer": approval.reviewer, "approvedAt": approval.approved_at,
            "approvedCapabilities": list(approval.approved_capabilities)},
        "lastReport": None if report is None else {
            "finishedAt": report.finished_at, "steps": len(report.steps), "healed": report.healed},
        "installation": None if inst is None else inst.to_json(),
        "healProposal": None if heal is None else {
            "baseRevision": heal.base_revision, "draftDigest": heal.draft.draft_digest,
            "healedActions": list(heal.healed_actions), "reportDigest": heal.report_digest,
            "proposedAt": heal.proposed_at, "actions": project_actions(heal.draft, heal.healed_actions)},
        "wasEnabled": entry.was_enabled,
        "next": lifecycle.next_steps(entry),
    }


# --- use cases ------------------------------------------------------------------------------------

def list_skills(store: Store) -> SkillList:
    return SkillList(tuple(store.summaries()))


def show_skill(store: Store, name: str, revision: int | None = None) -> SkillView:
    current = store.get(check_skill_name(name))
    entry = current if revision is None or revision == current.revision else store.revision(name, revision)
    return SkillView(entry, tuple(store.revisions(name)), current.revision)


def review_skill(store: Store, name: str, reviewer: str, *, approve: bool,
                 expected_revision: int | None = None, heal_proposal: bool = False,
                 now: str | None = None) -> ReviewResult:
    """Approve the current draft revision (or accept the pending heal proposal)."""
    name, reviewer, now = check_skill_name(name), check_reviewer(reviewer), now or utc_now()
    current = store.get(name)
    lifecycle.check_revision(current, expected_revision)
    step = lifecycle.accept_heal if heal_proposal else lifecycle.approve

    def change(entry: StoreEntry) -> StoreEntry:
        return step(entry, reviewer, now)

    preview = change(current)
    store.policy().require_capabilities(preview.draft.capabilities)
    if not approve:
        what = "accept the heal proposal of" if heal_proposal else "approve"
        raise approval_required(
            f"{what} skill {name!r} at revision {current.revision} as reviewer {reviewer!r}",
            {"name": name, "revision": current.revision, "draftDigest": preview.draft.draft_digest,
             "capabilities": list(preview.draft.capabilities)})
    note = AuditNote(kind="review", reviewer=reviewer,
                     digests={"draft": preview.draft.draft_digest, "approval": _approval_digest(preview)})
    new = store.update(name, change, note, expected_revision=current.revision)
    return ReviewResult(new.name, new.revision, _approval_digest(new), new.draft.draft_digest, heal_proposal)


def _approval_digest(entry: StoreEntry) -> str:
    if entry.approval is None:  # approve() and accept_heal() always set one; the invariant checks it
        raise LifecycleError("SR_RECORD_APPROVAL_INVALID", f"skill {entry.name!r} has no approval")
    return entry.approval.approval_digest


def delete_skill(store: Store, name: str, *, approve: bool,
                 expected_revision: int | None = None) -> DeleteResult:
    current = store.get(check_skill_name(name))
    lifecycle.check_revision(current, expected_revision)
    lifecycle.ensure_deletable(current)
    if not approve:
        kept = len(store.revisions(name))
        raise approval_required(
            f"delete skill {name!r} ({current.status}, revision {current.revision}) and its {kept} kept "
            f"revision(s)", {"name": name, "revision": current.revision, "revisionsKept": kept})
    removed = store.remove(name, AuditNote(kind="delete"), expected_revision=current.revision)
    return DeleteResult(removed.name, removed.revision, removed.status)


def prune_skills(store: Store, *, approve: bool, now: str | None = None) -> PruneResult:
    """Remove skills that are not enabled and unchanged for longer than the policy's retention, and
    trim the oldest audit events when the log is nearly full (first, so the prune events fit)."""
    now = now or utc_now()
    days = store.policy().retention_days
    expired = store.prune(now, dry_run=True)
    trim = store.trim_audit(dry_run=True)
    if (expired or trim) and not approve:
        names = [e.name for e in expired]
        would = []
        if names:
            would.append(f"prune {len(names)} skill(s) unchanged for more than {days} days: "
                         f"{', '.join(names)}")
        if trim:
            would.append(f"trim the {trim} oldest audit event(s)")
        raise approval_required(" and ".join(would),
                                {"names": names, "retentionDays": days, "auditTrimmed": trim})
    trimmed = store.trim_audit() if trim else 0
    removed = store.prune(now) if expired else []
    return PruneResult(tuple((e.name, e.revision) for e in removed), days, trimmed)


def audit_log(store: Store, name: str | None = None, limit: int = DEFAULT_AUDIT_LIMIT) -> AuditLog:
    if name is not None:
        check_skill_name(name)
    return AuditLog(tuple(store.audit_events(name, limit)), store.audit_count(name))


def verify_audit(store: Store) -> AuditVerification:
    return store.verify_audit()


def show_policy(store: Store) -> PolicyView:
    return PolicyView(store.policy(), store.policy_is_default())


def policy_template() -> dict[str, Any]:
    """A complete policy file with the default values, to edit and pass to ``policy set``."""
    return PolicySettings().to_json()


def read_policy_file(path: Path) -> Policy:
    """A policy file: PolicySettings, or a Policy whose ``policyDigest`` must then match."""
    data = read_user_file(path, what="policy file")
    has_digest = "policyDigest" in decode_json_object(data, what="policy file")
    if has_digest:
        return parse_document(Policy, data, what="policy file")
    return Policy.from_settings(parse_document(PolicySettings, data, what="policy file"))


def set_policy(store: Store, path: Path, *, approve: bool) -> PolicyChange:
    new, old = read_policy_file(path), store.policy()
    fresh, previous = new.to_json(), old.to_json()
    changes = tuple((key, previous[key], fresh[key]) for key in fresh
                    if key != "policyDigest" and fresh[key] != previous[key])
    if not changes:
        return PolicyChange(old, ())
    if not approve:
        shown = ", ".join(f"{k} {a!r} -> {b!r}" for k, a, b in changes)
        raise approval_required(f"change the policy: {shown}",
                                {"changed": [{"field": k, "from": a, "to": b} for k, a, b in changes]})
    return PolicyChange(store.set_policy(new), changes)


def export_skill(store: Store, name: str, out: Path, *, force: bool = False, sign_key: Path | None = None,
                 now: str | None = None) -> ExportResult:
    """Write the current entry as one export file (0600, atomic), Ed25519-signed with ``sign_key``
    if given; audited as ``export``."""
    key = signing.load_signing_key(sign_key) if sign_key is not None else None
    entry = store.get(check_skill_name(name))
    document = export_document(entry, now or utc_now())
    if key is not None:
        document = signing.sign_export(document, key)
    check_output(out, force=force)
    digests = {"export": document.export_digest}
    store.audit(AuditNote(kind="export", name=name, revision=entry.revision,
                          digests={**digests, "entry": entry.entry_digest}))
    try:
        write_private(out, export_bytes(document), force=force)
    except RecordError as exc:
        store.audit(AuditNote(kind="export", name=name, revision=entry.revision, outcome="failed",
                              code=exc.code, digests=digests))
        raise
    signer = document.signature.key_id if document.signature else None
    return ExportResult(name, entry.revision, out, document.export_digest, signer)


def read_export(path: Path) -> ExportDocument:
    """An export file, re-validated completely (every nested schema and digest)."""
    data = read_user_file(path, what="export file")
    return parse_document(ExportDocument, data, what="export file")


def import_skill(store: Store, path: Path, *, replace: bool = False, approve: bool = False,
                 expected_revision: int | None = None, trust: Sequence[Path] = (),
                 now: str | None = None) -> ImportResult:
    """Store an exported skill: a new name at revision 1, or (``replace`` + ``approve``) the next
    revision of an existing skill that is not enabled. ``enabled`` becomes ``validated``.
    With ``trust`` (public key files), only an export signed by one of those keys is accepted."""
    trusted = signing.load_trusted_keys(trust)
    document, now = read_export(path), now or utc_now()
    if trusted:
        signing.verify_export(document, trusted)
    source = document.entry
    note = AuditNote(kind="import", digests={"export": document.export_digest})
    existing = store.find(source.name)
    if existing is None:
        stored = store.insert(imported_entry(source, 1, now), note)
    else:
        stored = _replace(store, existing, source, note, replace=replace, approve=approve,
                          expected_revision=expected_revision, now=now)
    signer = document.signature.key_id if document.signature else None
    return ImportResult(stored.name, stored.revision, stored.status, existing is not None,
                        document.export_digest, stored.entry_digest, signer, bool(trusted))


def _replace(store: Store, existing: StoreEntry, source: StoreEntry, note: AuditNote, *, replace: bool,
             approve: bool, expected_revision: int | None, now: str) -> StoreEntry:
    name = existing.name
    if not replace:
        raise LifecycleError("SR_RECORD_EXISTS",
                             f"a skill named {name!r} already exists (import with --replace --approve)")
    lifecycle.check_revision(existing, expected_revision)
    change: Callable[[StoreEntry], StoreEntry] = lambda cur: _replacing(cur, source, now)  # noqa: E731
    preview = change(existing)
    if not approve:
        raise approval_required(
            f"replace skill {name!r} ({existing.status}, revision {existing.revision}) with the imported "
            f"one as revision {preview.revision} ({preview.status})",
            {"name": name, "revision": existing.revision, "newStatus": preview.status})
    return store.update(name, change, note, expected_revision=existing.revision)


def _replacing(current: StoreEntry, source: StoreEntry, now: str) -> StoreEntry:
    if current.status == "enabled":
        raise LifecycleError("SR_RECORD_STATE_INVALID",
                             f"cannot replace enabled skill {current.name!r} by an import (revoke it first)")
    return imported_entry(source, current.revision + 1, max(now, current.updated_at))
