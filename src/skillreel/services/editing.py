"""Use case: a new draft revision from structured, reviewed edits (``skillreel edit NAME``).

The edits come from a patch file (``--patch FILE``, ``skillreel.edit/v1``, see ``record.edits``)
or from the ``$EDITOR`` round trip: :func:`editable` renders the current draft as a readable JSON
document (the parameters, the outputs and the step graph, targets shown by id only), and
:func:`patch_from_editable` turns the person's changes to it into the same edits. Either way the
edits are applied to the current draft (pure), the result is validated like any draft (graph
rules, outputs, parameters), scanned for secrets, and stored as the next revision with status
``draft`` (any approval dropped), only when the revision they were written against is named
(``--expected-revision`` or the patch's ``revision``); an enabled skill is refused (revoke it
first). Any problem stores nothing: ``SR_RECORD_EDIT_INVALID`` / ``SR_RECORD_EDIT_REFERENCE`` name
the edit and the step, graph problems keep their own codes and name the step.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import InputError, LifecycleError
from ..model import lifecycle
from ..model.base import check_skill_name
from ..model.draft import Draft
from ..model.entry import StoreEntry
from ..model.intents import generated_intent
from ..record.edits import EditPatch, EditProblem, apply_edits
from ..record.redact import scan
from ..store import AuditNote, Store
from ..user_files import input_error, parse_document, read_user_file
from .guards import require_pinned

PATCH_LIMIT = 256 * 1024


@dataclass(frozen=True)
class EditResult:
    """The stored draft revision (or, for a check, the one that would be stored)."""

    entry: StoreEntry
    previous_revision: int
    dropped_parameters: tuple[str, ...]
    stored: bool

    def to_json(self) -> dict[str, Any]:
        draft = self.entry.draft
        return {
            "name": self.entry.name,
            "revision": self.entry.revision,
            "previousRevision": self.previous_revision,
            "status": self.entry.status,
            "schema": draft.schema_,
            "draftDigest": draft.draft_digest,
            "stored": self.stored,
            "droppedParameters": list(self.dropped_parameters),
            "parameters": [p.to_json() for p in draft.parameters],
            "outputs": [o.to_json() for o in draft.outputs],
            "steps": len(draft.walk()),
        }


def read_patch(path: Path) -> EditPatch:
    """The patch file, validated (``SR_RECORD_INPUT_*`` for a bad file)."""
    return parse_document(
        EditPatch, read_user_file(path, what="edit patch", limit=PATCH_LIMIT), what="edit patch"
    )


def _edited(current: StoreEntry, patch: EditPatch, now: str) -> tuple[StoreEntry, tuple[str, ...]]:
    if current.status not in lifecycle.NOT_ENABLED:
        raise LifecycleError(
            "SR_RECORD_STATE_INVALID",
            f"cannot edit skill {current.name!r} in state {current.status!r} (revoke it first)",
        )
    try:
        edited = apply_edits(current.draft, patch)
    except EditProblem as exc:
        raise InputError(exc.code, str(exc), action_id=exc.step) from None
    except ValidationError as exc:
        raise input_error(exc, what="edited draft") from None
    findings = scan(edited.draft)
    if findings:
        shown = ", ".join(f"{f.path} ({f.category})" for f in findings[:8])
        raise InputError("SR_RECORD_SECRET_FINDING", f"nothing was stored; secrets found in: {shown}")
    if edited.draft.draft_digest == current.draft.draft_digest:
        raise InputError("SR_RECORD_EDIT_INVALID", "the edits change nothing; nothing was stored")
    entry = lifecycle.replace_draft(current, edited.draft, current.events, now)
    return entry, edited.dropped


def edit_skill(
    store: Store,
    name: str,
    patch: EditPatch,
    *,
    expected_revision: int | None = None,
    check: bool = False,
    command: str | None = None,
) -> EditResult:
    """Apply ``patch`` to the current draft of ``name`` and store the next draft revision
    (``check``: validate only, store nothing). Storing needs the revision the edits were written
    against: ``expected_revision`` or the patch's own ``revision`` (``command``: the command as
    given, for the refusal that asks for it)."""
    name, now = check_skill_name(name), store.now()
    expected = expected_revision if expected_revision is not None else patch.revision
    current = store.get(name)
    lifecycle.check_revision(current, expected)
    preview, dropped = _edited(current, patch, now)
    store.policy().require_capabilities(preview.draft.capabilities)
    if check:
        return EditResult(preview, current.revision, dropped, stored=False)
    would = f"make revision {preview.revision} of skill {name!r} a draft with {len(patch.edits)} edit(s)"
    command = command or f"skillreel edit {name}"
    require_pinned(expected, name, current.revision, would=would, command=command, approve=False)
    note = AuditNote(kind="edit", digests={"draft": preview.draft.draft_digest})
    entry = store.update(name, lambda e: _edited(e, patch, now)[0], note, expected_revision=current.revision)
    return EditResult(entry, current.revision, dropped, stored=True)


# ---- the $EDITOR round trip ----------------------------------------------------------------------


def editable(store: Store, name: str) -> dict[str, Any]:
    """The current draft as the person edits it: ``revision``, ``parameters``, ``outputs`` and the
    ``steps`` (id, kind, intent, optional, onFail, nested blocks); the edits they make to it
    become a patch (:func:`patch_from_editable`). Targets are not shown: they cannot be edited."""
    entry = store.get(check_skill_name(name))
    draft = entry.draft
    does = _does(draft)
    return {
        "revision": entry.revision,
        "parameters": [p.to_json() for p in draft.parameters],
        "outputs": [{"name": o.name, "description": o.description} for o in draft.outputs],
        "steps": [_editable_step(a.to_json(), does) for a in draft.actions],
    }


_SHOWN = ("id", "kind", "intent", "optional", "onFail", "output", "reason", "check", "until", "accept")


def _does(draft: Draft) -> dict[str, str]:
    """Each step's intent as people read it (display names first, issue 31): the editor document's
    read-only ``does`` (edit ``intent`` to write one; a changed ``does`` is ignored)."""
    sensitive = frozenset(p.name for p in draft.parameters if p.sensitive)
    return {a.id: generated_intent(a, sensitive, named=True) for a in draft.walk()}


def _editable_step(step: dict[str, Any], does: dict[str, str]) -> dict[str, Any]:
    view = {k: step[k] for k in _SHOWN if k in step}
    view = {**{k: view[k] for k in ("id", "kind") if k in view}, "does": does.get(step["id"], ""), **view}
    for key in ("body", "then", "else"):
        if key in step:
            view[key] = [_editable_step(s, does) for s in step[key]]
    return view


def _flat(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for step in steps:
        out.append(step)
        for key in ("body", "then", "else"):
            if isinstance(step.get(key), list):
                out += _flat(step[key])
    return out


def patch_from_editable(before: dict[str, Any], after: Any) -> EditPatch:
    """The edits that turn ``before`` (what :func:`editable` gave) into ``after`` (what the person
    saved): parameter fields, output descriptions, step flags and intents, deleted steps and the
    order of the top-level steps. Anything else changed (an id, a kind, a nested block's shape) is
    ``SR_RECORD_EDIT_INVALID``: use a patch file for structural edits."""
    if not isinstance(after, dict) or set(after) != set(before):
        raise InputError("SR_RECORD_EDIT_INVALID", "the edited document must keep its four keys")
    edits: list[dict[str, Any]] = []
    old_params = {p["name"]: p for p in before["parameters"]}
    new_params = after.get("parameters")
    if not isinstance(new_params, list) or len(new_params) != len(old_params):
        raise InputError("SR_RECORD_EDIT_INVALID", "parameters are edited in place, not added or removed")
    for old, new in zip(before["parameters"], new_params, strict=True):
        if not isinstance(new, dict):
            raise InputError("SR_RECORD_EDIT_INVALID", "each parameter stays an object")
        changed = {k: new.get(k) for k in set(old) | set(new) if k != "name" and old.get(k) != new.get(k)}
        if changed:
            edits.append({"op": "set-parameter", "name": old["name"], **changed})
        if new.get("name") != old["name"]:
            edits.append({"op": "rename-parameter", "name": old["name"], "to": new.get("name")})
    for old, new in zip(before["outputs"], after.get("outputs") or [], strict=False):
        if isinstance(new, dict) and new.get("description") != old.get("description"):
            edits.append({"op": "set-output", "name": old["name"], "description": new.get("description")})
    old_steps = {s["id"]: s for s in _flat(before["steps"])}
    new_list = after.get("steps")
    if not isinstance(new_list, list):
        raise InputError("SR_RECORD_EDIT_INVALID", "steps stay a list")
    new_steps = {s.get("id"): s for s in _flat(new_list) if isinstance(s, dict)}
    for step_id, new in new_steps.items():
        old = old_steps.get(step_id)
        if old is None or new.get("kind") != old["kind"]:
            raise InputError("SR_RECORD_EDIT_INVALID", f"step {step_id}: ids and kinds are not edited here")
        changed = {k: new.get(k) for k in ("intent", "optional", "onFail") if new.get(k) != old.get(k)}
        if changed:
            edits.append({"op": "set-step", "step": step_id, **changed})
    for step_id in old_steps:
        if step_id not in new_steps:
            edits.append({"op": "delete-step", "step": step_id})
    kept = [s["id"] for s in before["steps"] if s["id"] in new_steps]
    order = [s.get("id") for s in new_list if isinstance(s, dict)]
    if order != kept:
        if sorted(map(str, order)) != sorted(kept):
            raise InputError("SR_RECORD_EDIT_INVALID", "steps move only within the top level here")
        for i in range(len(order) - 1, 0, -1):
            edits.append({"op": "move-step", "step": order[i - 1], "before": order[i]})
    if not edits:
        raise InputError("SR_RECORD_EDIT_INVALID", "nothing was changed; nothing was stored")
    document = {"schema": "skillreel.edit/v1", "revision": before["revision"], "edits": edits}
    return parse_document(EditPatch, json.dumps(document), what="edited document")
