"""What changed between two drafts of a skill, step by step (``skillreel diff``, versions, the review page).

Pure: two :class:`~skillreel.model.draft.Draft` documents in, a :class:`DraftDiff` out. Steps are
matched by what they do, not by id or position (``model.step_align``: kind, target identity, value
reference; a longest common subsequence per step list, so a step inserted in the middle of a
re-recording is one ``added`` and the renumbered steps around it are unchanged; a step matched under
another id or place carries its ``previousPath``). :func:`walk_steps` is the one place that knows how
steps nest: a v1 draft is a flat list; schema v2's blocks (a loop's ``body``, a branch's ``then``
and ``else``) add their nested step lists (:func:`children`), aligned level by level inside blocks
matched on both sides; every step, at any depth, is compared the same way.
A step is compared field by field (its JSON without its id and without nested steps), each field
falling into one category:

* ``locators`` - the ranked candidates of its target (strategy and selector, before and after),
  with what a person reads of each target when they differ (``target.description``: a replaced
  target's old and new description, ``model.intents.describe_target``), and of the rows a target
  chosen in a row chooses among;
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
from .intents import describe_target, step_intent
from .locators import Fingerprint, LocatorBundle
from .step_align import align

StepPath = tuple[str, ...]
"""A step's place in the graph: the ids of its enclosing blocks, then its own (``("a3",)`` in v1)."""

Change = Literal["added", "removed", "changed", "moved"]
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
    change: Change
    kind: str
    changes: tuple[FieldChange, ...] = ()
    position: tuple[int | None, int | None] = (None, None)  # index before, index after
    previous: StepPath | None = None  # the step's path before, when it had another id or place
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
            **({"previousPath": list(self.previous)} if self.previous is not None else {}),
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
        if a is not None and b is not None:  # a replaced target: what a person reads of each
            shown = ([describe_target(a, named=True)], [describe_target(b, named=True)])  # as candidates are
            if shown[0] != shown[1]:
                out.append(FieldChange("locators", "target.description", *shown))
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
    names = (a.display_name if a else None, b.display_name if b else None)
    if names[0] != names[1]:  # the name a person reads (issue 31): page chrome, screened at recording
        out.append(FieldChange("fingerprint", "target.displayName", names[0], names[1]))
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


def diff_steps(
    before: Sequence[Action], after: Sequence[Action], *, hashed: bool = True
) -> tuple[tuple[StepChange, ...], int]:
    """Step changes in the order of ``after`` (removed steps where they stood), and how many are
    unchanged. Steps are aligned by what they do (``model.step_align``), level by level: a step
    inserted in the middle is one ``added``, the steps around it unchanged whatever their ids;
    ``hashed``: whether the two drafts share their salt (their salted candidates then compare)."""
    old_at = {path: i for i, (path, _) in enumerate(walk_steps(before))}
    new_at = {path: j for j, (path, _) in enumerate(walk_steps(after))}
    found: list[_Found] = []
    _align_level(before, after, (), (), hashed, found)
    matched = {f.old: new_at[f.new] for f in found if f.old is not None and f.new is not None}
    changes: list[tuple[float, StepChange]] = []
    unchanged = 0
    for f in found:
        if f.change is None:
            unchanged += 1
            continue
        i = None if f.old is None else old_at[f.old]
        j = None if f.new is None else new_at[f.new]
        if j is not None:
            where = float(j)
        else:  # just after the nearest earlier step that is still there
            earlier = [matched[p] for p, k in old_at.items() if i is not None and k < i and p in matched]
            where = (max(earlier) if earlier else -1) + 0.5
        previous = f.old if f.new is not None and f.old != f.new else None
        changes.append((where, StepChange(f.path, f.change, f.kind, f.fields, (i, j), previous)))
    changes.sort(key=lambda c: c[0])
    return tuple(c for _, c in changes), unchanged


@dataclass(frozen=True)
class _Found:
    """One aligned step: its path on each side (None where it is not), what changed (None: nothing)."""

    old: StepPath | None
    new: StepPath | None
    kind: str
    change: Change | None
    fields: tuple[FieldChange, ...] = ()

    @property
    def path(self) -> StepPath:
        return self.new if self.new is not None else (self.old or ())


def _align_level(
    before: Sequence[Action],
    after: Sequence[Action],
    old_parent: StepPath,
    new_parent: StepPath,
    hashed: bool,
    found: list[_Found],
) -> None:
    """Align one level (see ``model.step_align``) and every block kept on both sides below it."""
    for row in align(before, after, hashed=hashed):
        old = before[row.old] if row.old is not None else None
        new = after[row.new] if row.new is not None else None
        if new is None:
            if old is not None:
                found += [_Found(p, None, s.kind, "removed") for p, s in walk_steps((old,), old_parent)]
            continue
        if old is None:
            found += [_Found(None, p, s.kind, "added") for p, s in walk_steps((new,), new_parent)]
            continue
        old_path, new_path = (*old_parent, old.id), (*new_parent, new.id)
        fields = step_changes(old, new)
        change: Change | None = "changed" if fields else ("moved" if row.how == "moved" else None)
        found.append(_Found(old_path, new_path, new.kind, change, fields))
        old_lists, new_lists = children(old), children(new)
        for k in range(max(len(old_lists), len(new_lists))):
            _align_level(
                old_lists[k] if k < len(old_lists) else (),
                new_lists[k] if k < len(new_lists) else (),
                old_path,
                new_path,
                hashed,
                found,
            )


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
    hashed = before is None or before.fingerprint_salt == after.fingerprint_salt
    steps, unchanged = diff_steps(before.actions if before else (), after.actions, hashed=hashed)
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
