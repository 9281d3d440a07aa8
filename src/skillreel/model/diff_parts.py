"""What changed in the parts of a draft that are not steps: the texts an agent reads, the inputs and
outputs, and every environment with its origins and allowlist (``model.diff`` puts them beside the
step changes).

Everything here lands in ``SKILL.md``, ``recorded-skill.json`` or ``skills_list``, so a reviewer sees
each change with its old and new value: the description and failure conditions, each input and
output as a whole (its flags, type, allowed values, default and description: every field of its
JSON, so a field added later is compared too), and each environment (the recorded one and every
declared one by name) with its origin, its allowlist (the origins added and removed), its sign-in,
identity and viewport. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .draft import Draft
from .environment import Environment, HtmlTarget

Change = Literal["added", "removed", "changed"]
RECORDED = "(recorded)"  # the recorded environment in a diff (a declared name starts with a letter)


@dataclass(frozen=True)
class NamedChange:
    """An input or an output added, removed or changed: its whole JSON before and after (no name)."""

    name: str
    change: Change
    before: Mapping[str, Any] | None = None
    after: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "change": self.change,
            "before": dict(self.before) if self.before is not None else None,
            "after": dict(self.after) if self.after is not None else None,
        }


@dataclass(frozen=True)
class TextChange:
    """A text an agent or a person reads (``description``, ``failureConditions``,
    ``inputs.NAME.description``, ``outputs.NAME.description``), before and after (None: none)."""

    field: str
    before: str | list[str] | None
    after: str | list[str] | None

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class EnvironmentChange:
    """One environment added, removed or changed. ``name`` is :data:`RECORDED` for the recorded one
    (``recorded: true``), else the declared name; ``before`` and ``after`` are what a replay on it
    reaches: its origin, its allowlist, its sign-in (and, recorded only, the target, identity and
    viewport)."""

    name: str
    recorded: bool
    change: Change
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None

    @property
    def origins_added(self) -> list[str]:
        return sorted(set(_origins(self.after)) - set(_origins(self.before)))

    @property
    def origins_removed(self) -> list[str]:
        return sorted(set(_origins(self.before)) - set(_origins(self.after)))

    @property
    def fields(self) -> list[str]:
        """The keys whose values differ (all of them for an added or removed environment)."""
        old, new = self.before or {}, self.after or {}
        return [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "recorded": self.recorded,
            "change": self.change,
            "fields": self.fields,
            "originsAdded": self.origins_added,
            "originsRemoved": self.origins_removed,
            "before": dict(self.before) if self.before is not None else None,
            "after": dict(self.after) if self.after is not None else None,
        }


def _origins(view: Mapping[str, Any] | None) -> list[str]:
    return list(view.get("allowedOrigins", ())) if view else []


def diff_named(
    old: Mapping[str, Mapping[str, Any]], new: Mapping[str, Mapping[str, Any]]
) -> tuple[NamedChange, ...]:
    """Changes between two ``name -> JSON`` maps, by name."""
    out = []
    for name in sorted(set(old) | set(new)):
        if name not in old:
            out.append(NamedChange(name, "added", None, new[name]))
        elif name not in new:
            out.append(NamedChange(name, "removed", old[name], None))
        elif old[name] != new[name]:
            out.append(NamedChange(name, "changed", old[name], new[name]))
    return tuple(out)


def _without_name(doc: Any) -> dict[str, Any]:
    data: dict[str, Any] = doc.to_json()
    data.pop("name", None)
    return data


def parameters_of(draft: Draft | None) -> dict[str, dict[str, Any]]:
    """Each input's JSON without its name (its flags; schema v2: type, values, default, description)."""
    return {p.name: _without_name(p) for p in draft.parameters} if draft is not None else {}


def outputs_of(draft: Draft | None) -> dict[str, dict[str, Any]]:
    """Each output's JSON without its name (type, allowed values, fields, nullable, description)."""
    return {o.name: _without_name(o) for o in draft.outputs} if draft is not None else {}


def diff_texts(before: Draft | None, after: Draft) -> tuple[TextChange, ...]:
    """The description, the failure conditions and every input's and output's description that differ."""
    out: list[TextChange] = []
    if before is None or before.description != after.description:
        out.append(TextChange("description", before.description if before else None, after.description))
    old_fail = list(before.failure_conditions) if before else []
    if old_fail != list(after.failure_conditions):
        out.append(TextChange("failureConditions", old_fail, list(after.failure_conditions)))
    for kind, docs in (("inputs", parameters_of), ("outputs", outputs_of)):
        old, new = docs(before), docs(after)
        for name in sorted(set(old) | set(new)):
            was, now = old.get(name, {}).get("description"), new.get(name, {}).get("description")
            if was != now:
                out.append(TextChange(f"{kind}.{name}.description", was, now))
    return tuple(out)


def environment_views(environment: Environment) -> dict[str, dict[str, Any]]:
    """Every environment a replay of this draft may reach, by name (:data:`RECORDED` first): its
    origin, allowlist and sign-in; the recorded one also its target (URL and query-key rule, or the
    HTML fixture's digest), identity and viewport. Built from each document's whole JSON, so a field
    added later is compared too."""
    recorded = environment.to_json()
    for key in ("schema", "environmentDigest", "environments"):
        recorded.pop(key, None)
    target = recorded.pop("target")
    target.pop("allowedOrigins", None)
    is_html = isinstance(environment.target, HtmlTarget)
    views = {
        RECORDED: {
            "origin": None if is_html else environment.target.origin,  # type: ignore[union-attr]
            "allowedOrigins": list(environment.allowed_origins),
            "target": target,
            **recorded,
        }
    }
    for named in environment.environments:
        views[named.name] = {"session": None, **_without_name(named)}
    return views


def diff_environments(before: Draft | None, after: Draft) -> tuple[EnvironmentChange, ...]:
    """Each environment whose origin, allowlist or sign-in differs, the recorded one first."""
    old = environment_views(before.environment) if before is not None else {}
    new = environment_views(after.environment)
    if before is not None and before.environment.environment_digest == after.environment.environment_digest:
        return ()
    out = [
        EnvironmentChange(c.name, c.name == RECORDED, c.change, c.before, c.after)
        for c in diff_named(old, new)
    ]
    return tuple(sorted(out, key=lambda c: (not c.recorded, c.name)))


def named_json(changes: Sequence[NamedChange]) -> list[dict[str, Any]]:
    return [c.to_json() for c in changes]
