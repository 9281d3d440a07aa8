"""What changed between two drafts of a skill, step by step (``skillreel diff``, versions, the review page).

Pure: two :class:`~skillreel.model.draft.Draft` documents in, a :class:`DraftDiff` out. Steps are
matched by their stable id through :func:`walk_steps`, the one place that knows how steps nest: a v1
draft is a flat list; schema v2's blocks (a loop's ``body``, a branch's ``then`` and ``else``) add
their nested step lists (:func:`children`) and every step, at any depth, is compared the same way.
A step is compared field by field (its JSON without its id and without nested steps), each field
falling into one category:

* ``locators`` - the ranked candidates of its target (strategy and selector, before and after),
  and of the rows a target chosen in a row chooses among;
* ``fingerprint`` - which recorded features of its element changed (names only, never a hash), and
  how many earlier fingerprints it keeps as accepted identities;
* ``assertion`` - an assertion's check or expected value;
* ``parameter`` - which input (or earlier output, or item field) a value reads, and which one
  chooses a filtered target;
* ``policy`` - what the step may do: its kind and the capability that needs;
* ``action`` - other settings of the step (the key it presses, the page it loads, why a person acts);
* ``other`` - a field this module does not know (a newer schema's), by name.

Beside the steps (``model.diff_parts``): every input and output as a whole, every text an agent reads
(description, failure conditions, input and output descriptions) old and new, and every environment
(the recorded one and each declared one) with its origin, its allowlist (origins added and removed) and
its sign-in: everything that lands in ``SKILL.md`` or ``skills_list``.

Nothing here reads page text: selectors are shown as ``show`` shows them, fingerprints as the names
of the features that differ. Each step change carries the step's intent as people read it
(:func:`described`: the target's display name when it keeps one, issue 31), and a changed display
name is a ``fingerprint`` change shown old and new (page chrome screened at recording, never
data). The renderings escape invisible characters (``model.visible``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from .actions import CAPABILITY_OF_KIND, Action
from .actions import children as block_children
from .diff_parts import (
    EnvironmentChange,
    NamedChange,
    TextChange,
    diff_environments,
    diff_named,
    diff_texts,
    named_json,
    outputs_of,
    parameters_of,
)
from .draft import Draft
from .intents import step_intent
from .locators import Fingerprint, LocatorBundle

StepPath = tuple[str, ...]
"""A step's place in the graph: the ids of its enclosing blocks, then its own (``("a3",)`` in v1)."""

Category = Literal["locators", "fingerprint", "assertion", "parameter", "policy", "action", "other"]
CATEGORIES: tuple[Category, ...] = (
    "policy",
    "parameter",
    "assertion",
    "action",
    "locators",
    "fingerprint",
    "other",
)
NESTED_KEYS: frozenset[str] = frozenset({"body", "then", "else"})  # block children (v2)
_FIELD_CATEGORY: Mapping[str, Category] = {
    "kind": "policy",
    "optional": "policy",
    "value": "parameter",
    "text": "parameter",
    "check": "assertion",
    "expected": "assertion",
    "onFail": "assertion",
    "condition": "assertion",
    "items": "locators",
    **dict.fromkeys(
        (
            "key",
            "url",
            "reason",
            "intent",
            "output",
            "read",
            "attribute",
            "type",
            "values",
            "pattern",
            "fields",
            "limit",
            "overflow",
            "collect",
            "until",
            "timeoutMs",
            "to",
            "maxRounds",
            "accept",
            "expects",
        ),
        "action",
    ),
}


def children(step: Action) -> Sequence[Sequence[Action]]:
    """The nested step lists of a block step (a loop's body; a branch's then and else)."""
    return block_children(step)


def walk_steps(steps: Sequence[Action], parent: StepPath = ()) -> Iterator[tuple[StepPath, Action]]:
    """Every step, depth first in document order, with its path."""
    for step in steps:
        path = (*parent, step.id)
        yield path, step
        for nested in children(step):
            yield from walk_steps(nested, path)


@dataclass(frozen=True)
class FieldChange:
    """One changed part of a step: its category, the field, and a content-free before/after."""

    category: Category
    field: str
    before: Any = None
    after: Any = None

    def to_json(self) -> dict[str, Any]:
        return {"category": self.category, "field": self.field, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class StepChange:
    path: StepPath
    change: Literal["added", "removed", "changed", "moved"]
    kind: str
    changes: tuple[FieldChange, ...] = ()
    position: tuple[int | None, int | None] = (None, None)  # index before, index after
    intent: str = ""  # what the step does, as people read it (:func:`described`), "" when not known

    @property
    def id(self) -> str:
        return self.path[-1]

    @property
    def categories(self) -> tuple[Category, ...]:
        found = {c.category for c in self.changes}
        return tuple(c for c in CATEGORIES if c in found)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": list(self.path),
            "change": self.change,
            "kind": self.kind,
            "categories": list(self.categories),
            "changes": [c.to_json() for c in self.changes],
            "position": {"before": self.position[0], "after": self.position[1]},
            "intent": self.intent,
        }


ParameterChange = NamedChange  # an input added, removed or changed (its whole JSON, no name)


@dataclass(frozen=True)
class DraftDiff:
    """Every difference between two drafts (``before`` may be None: everything is added)."""

    steps: tuple[StepChange, ...]
    unchanged: int
    parameters: tuple[ParameterChange, ...] = ()
    capabilities_added: tuple[str, ...] = ()
    capabilities_removed: tuple[str, ...] = ()
    environment: tuple[str, ...] = ()  # names of the environment parts that changed
    description: bool = False
    failure_conditions: bool = False
    same_draft: bool = False
    outputs: tuple[NamedChange, ...] = ()
    texts: tuple[TextChange, ...] = ()  # every text an agent reads, old and new
    environments: tuple[EnvironmentChange, ...] = ()  # each environment's origins, allowlist, sign-in

    @property
    def empty(self) -> bool:
        return not (
            self.steps
            or self.parameters
            or self.capabilities_added
            or self.capabilities_removed
            or self.environment
            or self.description
            or self.failure_conditions
            or self.outputs
            or self.texts
            or self.environments
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "sameDraft": self.same_draft,
            "steps": [s.to_json() for s in self.steps],
            "unchangedSteps": self.unchanged,
            "parameters": named_json(self.parameters),
            "outputs": named_json(self.outputs),
            "capabilities": {
                "added": list(self.capabilities_added),
                "removed": list(self.capabilities_removed),
            },
            "environment": list(self.environment),
            "description": self.description,
            "failureConditions": self.failure_conditions,
            "texts": [t.to_json() for t in self.texts],
            "environments": [e.to_json() for e in self.environments],
        }


# ---- steps ---------------------------------------------------------------------------------------


def _own_fields(step: Action) -> dict[str, Any]:
    data = step.to_json()
    data.pop("id", None)
    for key in NESTED_KEYS:
        data.pop(key, None)
    return data


def _candidates(bundle: Mapping[str, Any] | None) -> list[str]:
    if not bundle:
        return []
    return [f"{c['strategy']} {c['selector']}" for c in bundle.get("candidates", ())]


def fingerprint_changes(before: Fingerprint | None, after: Fingerprint | None) -> list[str]:
    """The names of the fingerprint features that differ (``attributes.id``, ``label``, ``parentPath``...)."""
    if before is None or after is None:
        return [] if before is after else ["element"]
    names = []
    for feature in ("tag", "type", "role", "parent_path", "sibling_index", "sibling_count"):
        if getattr(before, feature) != getattr(after, feature):
            names.append(_camel(feature))
    for name in sorted(set(before.attributes) | set(after.attributes)):
        if before.attributes.get(name) != after.attributes.get(name):
            names.append(f"attributes.{name}")
    if before.label_hash != after.label_hash:
        names.append("label")
    if before.text_hash != after.text_hash:
        names.append("text")
    return names


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def _bundle(step: Action) -> LocatorBundle | None:
    target = getattr(step, "target", None)
    return target if isinstance(target, LocatorBundle) else None


def _target_changes(before: Action, after: Action) -> list[FieldChange]:
    a, b = _bundle(before), _bundle(after)
    out = []
    old = _candidates(a.to_json() if a else None)
    new = _candidates(b.to_json() if b else None)
    if old != new:
        out.append(FieldChange("locators", "target.candidates", old, new))
    features = fingerprint_changes(a.fingerprint if a else None, b.fingerprint if b else None)
    if features:
        out.append(FieldChange("fingerprint", "target.fingerprint", None, features))
    kept = (len(a.identities) if a else 0, len(b.identities) if b else 0)
    if kept[0] != kept[1]:  # earlier fingerprints kept as accepted identities (an adopted heal)
        out.append(FieldChange("fingerprint", "target.identities", kept[0], kept[1]))
    chosen = [_ref(x.filter.contains_token.to_json()) if x and x.filter else None for x in (a, b)]
    if chosen[0] != chosen[1]:  # which value chooses the element of a set (schema v2)
        out.append(FieldChange("parameter", "target.filter", chosen[0], chosen[1]))
    scope = (a.within if a else None, b.within if b else None)
    if scope[0] != scope[1]:
        out.append(FieldChange("locators", "target.within", scope[0], scope[1]))
    rows = [_candidates(x.row.to_json()) if x and x.row else [] for x in (a, b)]
    if rows[0] != rows[1]:  # the rows a target chosen in a row chooses among (``bind-target``, a heal)
        out.append(FieldChange("locators", "target.row", rows[0], rows[1]))
    shown = (a.display_name if a else None, b.display_name if b else None)
    if shown[0] != shown[1]:  # the name a person reads (issue 31): page chrome, screened at recording
        out.append(FieldChange("fingerprint", "target.displayName", shown[0], shown[1]))
    return out


def _ref(value: Mapping[str, Any]) -> Any:
    """A value reference as the diff shows it: the parameter's name (as v1 did), ``steps.a5.total``,
    ``item.status``, or a literal's value (the reviewer chose it; it is no page text)."""
    kind = value.get("ref", "parameter")
    if kind == "output":
        return f"steps.{value.get('step')}.{value.get('field')}"
    if kind == "item":
        return f"item.{value.get('field')}"
    if kind == "literal":
        return value.get("value")
    return value.get("name")


def _shown_value(key: str, value: Any) -> Any:
    """A changed field without hashes: references by what they read, targets as candidates."""
    if isinstance(value, Mapping) and (key in ("value", "text") or "ref" in value):
        return _ref(value)
    if key == "items" and isinstance(value, Mapping):
        return _candidates(value)
    if key == "fields" and isinstance(value, list):
        return [f.get("name") for f in value if isinstance(f, Mapping)]
    if key == "condition" and isinstance(value, Mapping):
        return {k: _candidates(v) if k == "target" else _shown_value(k, v) for k, v in value.items()}
    if key == "limit" and isinstance(value, Mapping):
        return _ref(value)
    return value


def step_changes(before: Action, after: Action) -> tuple[FieldChange, ...]:
    """How one step changed (same id), category by category."""
    old, new = _own_fields(before), _own_fields(after)
    out: list[FieldChange] = []
    for key in sorted(set(old) | set(new)):
        if key == "target" or old.get(key) == new.get(key):
            continue
        category = _FIELD_CATEGORY.get(key, "other")
        out.append(
            FieldChange(category, key, _shown_value(key, old.get(key)), _shown_value(key, new.get(key)))
        )
    old_cap, new_cap = CAPABILITY_OF_KIND.get(before.kind), CAPABILITY_OF_KIND.get(after.kind)
    if old_cap != new_cap:
        out.append(FieldChange("policy", "capability", old_cap, new_cap))
    out += _target_changes(before, after)
    order = {c: i for i, c in enumerate(CATEGORIES)}
    return tuple(sorted(out, key=lambda c: (order[c.category], c.field)))


def diff_steps(before: Sequence[Action], after: Sequence[Action]) -> tuple[tuple[StepChange, ...], int]:
    """Step changes in the order of ``after`` (removed steps where they stood), and how many are unchanged."""
    old = {path: (i, s) for i, (path, s) in enumerate(walk_steps(before))}
    new = {path: (i, s) for i, (path, s) in enumerate(walk_steps(after))}
    changes: list[tuple[float, StepChange]] = []
    unchanged = 0
    kept_old = [p for p in old if p in new]
    kept_new = [p for p in new if p in old]
    moved = _moved(kept_old, kept_new)
    for path, (j, step) in new.items():
        if path not in old:
            changes.append((j, StepChange(path, "added", step.kind, position=(None, j))))
            continue
        i, previous = old[path]
        fields = step_changes(previous, step)
        if fields:
            changes.append((j, StepChange(path, "changed", step.kind, fields, (i, j))))
        elif path in moved:
            changes.append((j, StepChange(path, "moved", step.kind, position=(i, j))))
        else:
            unchanged += 1
    for path, (i, step) in old.items():
        if path not in new:
            changes.append(
                (_where_removed(i, old, new), StepChange(path, "removed", step.kind, position=(i, None)))
            )
    changes.sort(key=lambda c: c[0])
    return tuple(c for _, c in changes), unchanged


def _moved(kept_old: list[StepPath], kept_new: list[StepPath]) -> set[StepPath]:
    """The kept steps outside a longest run that stays in order (the ones a reviewer sees move)."""
    index = {p: i for i, p in enumerate(kept_old)}
    seq = [index[p] for p in kept_new]
    # longest increasing subsequence, O(n^2) over at most a few hundred steps
    best: list[list[int]] = []
    longest: list[int] = []
    for k, value in enumerate(seq):
        run: list[int] = []
        for m in range(k):
            if seq[m] < value and len(best[m]) > len(run):
                run = best[m]
        best.append([*run, value])
        if len(best[-1]) > len(longest):
            longest = best[-1]
    keep = set(longest)
    return {p for p in kept_new if index[p] not in keep}


def _where_removed(i: int, old: Mapping[StepPath, tuple[int, Action]], new: Mapping[StepPath, Any]) -> float:
    """Sort key placing a removed step just after the nearest earlier step that is still there."""
    earlier = [new[p][0] for p, (k, _) in old.items() if k < i and p in new]
    return (max(earlier) if earlier else -1) + 0.5


# ---- the whole draft -----------------------------------------------------------------------------


def diff_parameters(before: Draft | None, after: Draft) -> tuple[NamedChange, ...]:
    """Inputs added, removed or changed in any field (flags, type, values, default, description)."""
    return diff_named(parameters_of(before), parameters_of(after))


def diff_outputs(before: Draft | None, after: Draft) -> tuple[NamedChange, ...]:
    """Outputs added, removed or changed in any field (type, values, fields, nullable, description)."""
    return diff_named(outputs_of(before), outputs_of(after))


def _target_key(draft: Draft) -> dict[str, Any]:
    target = draft.environment.target.to_json()
    target.pop("allowedOrigins", None)
    return target


def _environment_changes(before: Draft, after: Draft) -> tuple[str, ...]:
    a, b = before.environment, after.environment
    if a.environment_digest == b.environment_digest:
        return ()
    changed = {
        "target": _target_key(before) != _target_key(after),
        "allowedOrigins": a.allowed_origins != b.allowed_origins,
        "identity": a.identity != b.identity,
        "storageState": a.storage_state_digest != b.storage_state_digest,
        "session": a.login != b.login,
        "viewport": a.viewport != b.viewport,
        "environments": a.environments != b.environments,
    }
    return tuple(name for name, differs in changed.items() if differs)


def diff_drafts(before: Draft | None, after: Draft) -> DraftDiff:
    """Every difference from ``before`` to ``after``; with no ``before``, every step is added."""
    steps, unchanged = diff_steps(before.actions if before else (), after.actions)
    steps = described(steps, before, after)
    old_caps = set(before.capabilities) if before else set()
    new_caps = set(after.capabilities)
    return DraftDiff(
        steps=steps,
        unchanged=unchanged,
        parameters=diff_parameters(before, after),
        capabilities_added=tuple(sorted(new_caps - old_caps)),
        capabilities_removed=tuple(sorted(old_caps - new_caps)),
        environment=_environment_changes(before, after) if before else ("target",),
        description=before is None or before.description != after.description,
        failure_conditions=before is None or before.failure_conditions != after.failure_conditions,
        same_draft=before is not None and before.draft_digest == after.draft_digest,
        outputs=diff_outputs(before, after),
        texts=diff_texts(before, after),
        environments=diff_environments(before, after),
    )


def described(steps: Sequence[StepChange], before: Draft | None, after: Draft) -> tuple[StepChange, ...]:
    """``steps`` each with its intent as people read it (``model.intents.step_intent`` with display
    names, issue 31): the step as it is after, a removed one as it was."""

    def intents(draft: Draft | None) -> dict[StepPath, str]:
        if draft is None:
            return {}
        sensitive = frozenset(p.name for p in draft.parameters if p.sensitive)
        return {path: step_intent(step, sensitive, named=True) for path, step in walk_steps(draft.actions)}

    new, old = intents(after), intents(before)
    return tuple(replace(s, intent=new.get(s.path) or old.get(s.path, "")) for s in steps)
