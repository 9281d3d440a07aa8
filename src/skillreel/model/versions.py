"""Semantic versions of approved revisions, and the provenance they leave (ARCHITECTURE 15, issue 13).

Every approval gives the approved draft a version ``MAJOR.MINOR.PATCH``, decided by :func:`classify`,
a pure function of the previously approved draft and the new one (through ``model.diff``):

* **major** when a caller of the previous version could break: an input removed, a required input
  added, an input that becomes required or changes whether it is sensitive (it then comes from the
  vault, not the command line), an output removed or retyped (schema v2);
* **minor** for compatible additions and changes of behaviour: an optional input or an output added,
  a step added, removed, moved or changed in more than its locators, a new capability, an
  environment (the recorded one or a declared one) added, removed or changed in its origin,
  allowlist or sign-in;
* **patch** for an adopted heal or a locator change (only locators or fingerprints differ), a new
  description, failure condition, step intent or input or output description (each text an agent
  reads is named in the reasons, so the provenance never calls it "no change"), or an approval of an
  unchanged draft.

The first approval is ``1.0.0``. A skill approved before versions existed counts as
:data:`LEGACY_VERSION` until its next approval. Versions never go back: a rollback to an older
draft is approved as a new version, bumped against the draft it replaces.

:class:`VersionRecord` keeps, per approval, the version, why it was bumped, where the draft came
from (a review, an adopted heal with the steps it changed and the replay that proposed it, or a
rollback), who approved it and when: the skill's provenance, stored in the entry (an optional field,
left out of documents that have none, so entries written before keep their digests).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

from pydantic import Field, StringConstraints

from .base import ActionId, Digest, Document, Label, Timestamp
from .diff import diff_drafts
from .diff_parts import EnvironmentChange, NamedChange
from .draft import Draft

SemVer = Annotated[
    str, StringConstraints(pattern=r"^(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})$")
]
Bump = Literal["initial", "major", "minor", "patch"]
Source = Literal["review", "heal", "rollback"]
HealChange = Literal["locators", "fingerprint"]
Reason = Annotated[str, StringConstraints(min_length=1, max_length=160)]

FIRST_VERSION: Final = "1.0.0"
LEGACY_VERSION: Final = "1.0.0"  # a skill approved before versions existed
MAX_VERSION_RECORDS: Final = 64  # the newest are kept
MAX_REASONS: Final = 24


class HealedStep(Document):
    """One step an adopted heal changed, and what of its target changed."""

    step: ActionId
    changed: tuple[HealChange, ...] = Field(min_length=1, max_length=2)


class VersionRecord(Document):
    """One approved version: what it is, why, where its draft came from, who approved it."""

    version: SemVer
    revision: Annotated[
        int, Field(ge=1)
    ]  # the revision whose approval carries it (in the store that approved it)
    draft_digest: Digest
    bump: Bump
    source: Source
    reasons: tuple[Reason, ...] = Field(default=(), max_length=MAX_REASONS)
    healed: tuple[HealedStep, ...] = Field(default=(), max_length=256)
    proposed_by: Digest | None = None  # the report of the replay that proposed an adopted heal
    rolled_back_from: Annotated[int, Field(ge=1)] | None = None  # the revision a rollback restored
    reviewer: Label
    approved_at: Timestamp


class DraftOrigin(Document):
    """Where a pending draft came from when it is not a recording: a rollback to revision N."""

    kind: Literal["rollback"] = "rollback"
    revision: Annotated[int, Field(ge=1)]
    draft_digest: Digest
    version: SemVer | None = None  # the version revision N carried, if it was approved


def parse_version(version: str) -> tuple[int, int, int]:
    major, minor, patch = (int(part) for part in version.split("."))
    return major, minor, patch


def bumped(previous: str | None, bump: Bump) -> str:
    """The version after ``previous`` for this bump (``1.0.0`` first)."""
    if previous is None or bump == "initial":
        return FIRST_VERSION
    major, minor, patch = parse_version(previous)
    if bump == "major":
        return f"{major + 1}.0.0"
    if bump == "minor":
        return f"{major}.{minor + 1}.0"
    return f"{major}.{minor}.{patch + 1}"


@dataclass(frozen=True)
class VersionChange:
    bump: Bump
    reasons: tuple[str, ...]


def outputs_of(draft: Draft) -> Mapping[str, str]:
    """The outputs a draft declares, by name and shape: the type, an enum's values, a list's fields
    and whether it may be null (a caller reading it sees each). v1 drafts declare none."""
    return {o.name: _shape(o.type, o.values, o.nullable, o.fields) for o in draft.outputs}


def _shape(type_: str, values: Sequence[str] | None, nullable: bool, fields: Sequence[Any] = ()) -> str:
    shape = type_ + (f"[{'|'.join(values)}]" if values else "")
    if fields:
        shape += "{" + ",".join(_shape(f.type, f.values, f.nullable) + " " + f.name for f in fields) + "}"
    return shape + ("?" if nullable else "")


def _output_reasons(previous: Draft, new: Draft) -> tuple[list[str], list[str]]:
    old, now = outputs_of(previous), outputs_of(new)
    major = [f"output {n} removed" for n in sorted(set(old) - set(now))]
    major += [f"output {n} changed type" for n in sorted(set(old) & set(now)) if old[n] != now[n]]
    minor = [f"output {n} added" for n in sorted(set(now) - set(old))]
    return major, minor


def classify(previous: Draft | None, new: Draft) -> VersionChange:
    """The bump from the previously approved draft to ``new`` and the reasons (see the module docstring)."""
    if previous is None:
        return VersionChange("initial", ("first approved version",))
    diff = diff_drafts(previous, new)
    major, minor = _output_reasons(previous, new)
    patch: list[str] = []
    for p in diff.parameters:
        if p.change == "removed":
            major.append(f"input {p.name} removed")
        elif p.change == "added" and p.after is not None:
            required = p.after["required"]
            (major if required else minor).append(
                f"{'required' if required else 'optional'} input {p.name} added"
            )
        elif p.before is not None and p.after is not None:
            if p.after["required"] and not p.before["required"]:
                major.append(f"input {p.name} became required")
            elif p.before["required"] and not p.after["required"]:
                minor.append(f"input {p.name} became optional")
            if p.before["sensitive"] != p.after["sensitive"]:
                what = "became sensitive" if p.after["sensitive"] else "is no longer sensitive"
                major.append(f"input {p.name} {what}")
            _typed_reasons(p.name, p.before, p.after, major, minor)
    for step in diff.steps:
        target_only = set(step.categories) <= {"locators", "fingerprint"}
        if step.change == "changed" and all(c.field == "intent" for c in step.changes):
            patch.append(f"step {step.id}: intent changed")
        elif step.change == "changed" and target_only:
            patch.append(f"step {step.id}: {' and '.join(step.categories)} changed")
        elif step.change == "changed":
            minor.append(f"step {step.id}: {', '.join(step.categories)} changed")
        else:
            minor.append(f"step {step.id} {step.change}")
    minor += [f"capability {c} added" for c in diff.capabilities_added]
    minor += [_environment_reason(e) for e in diff.environments]
    minor += _other_fields("input", diff.parameters) + _other_fields("output", diff.outputs)
    # every text an agent reads (SKILL.md, skills_list) is named: the provenance never says "no change"
    patch += [f"{_TEXT_NAMES.get(t.field, t.field)} changed" for t in diff.texts]
    if not (major or minor or patch):
        patch.append("approved again without a change")
    bump: Bump = "major" if major else "minor" if minor else "patch"
    reasons = (*major, *minor, *patch)
    if len(reasons) > MAX_REASONS:
        reasons = (*reasons[: MAX_REASONS - 1], f"and {len(reasons) - MAX_REASONS + 1} more changes")
    return VersionChange(bump, reasons)


_TEXT_NAMES = {"description": "description", "failureConditions": "failure conditions"}


def _environment_reason(change: EnvironmentChange) -> str:
    where = "the recorded environment" if change.recorded else f"environment {change.name}"
    if change.change != "changed":
        return f"{where} {change.change}"
    return f"{where}: {', '.join(change.fields)} changed"


def _fields(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> list[str]:
    old, new = before or {}, after or {}
    return [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]


# The fields of an input or an output that other reasons name (the texts name the description).
_NAMED_ELSEWHERE = frozenset(
    {"required", "sensitive", "type", "values", "default", "fields", "nullable", "description"}
)


def _other_fields(kind: str, changes: Sequence[NamedChange]) -> list[str]:
    """A field of a changed input or output that no other reason names (a newer schema's)."""
    return [
        f"{kind} {c.name}: {field} changed"
        for c in changes
        if c.change == "changed"
        for field in _fields(c.before, c.after)
        if field not in _NAMED_ELSEWHERE
    ]


def _typed_reasons(
    name: str, before: Mapping[str, Any], after: Mapping[str, Any], major: list[str], minor: list[str]
) -> None:
    """Schema v2 inputs: another type, or an enum that no longer allows a value, can break a caller
    (major); a new allowed value, a default added or changed is compatible (minor)."""
    if before.get("type") != after.get("type"):
        major.append(f"input {name} changed type")
    elif set(before.get("values", ())) - set(after.get("values", ())):
        major.append(f"input {name} allows fewer values")
    elif set(after.get("values", ())) - set(before.get("values", ())):
        minor.append(f"input {name} allows more values")
    if before.get("default") != after.get("default"):
        minor.append(f"input {name}: default changed")


def healed_steps(base: Draft, healed: Draft, step_ids: tuple[str, ...]) -> tuple[HealedStep, ...]:
    """What an adopted heal changed in each of its steps (locators, fingerprint or both)."""
    diff = diff_drafts(base, healed)
    out = []
    for step in diff.steps:
        changed: list[HealChange] = []
        if "locators" in step.categories:
            changed.append("locators")
        if "fingerprint" in step.categories:
            changed.append("fingerprint")
        if step.id in step_ids and changed:
            out.append(HealedStep(step=step.id, changed=tuple(changed)))
    return tuple(out)
