"""Which element is the step's target: the pure decision rule of replay resolution (ARCHITECTURE 5).

``resolve.js`` measures, in one evaluation inside an isolated world, how every relevant element of
the page compares with the recorded :class:`~skillreel.model.locators.Fingerprint`; this module
decides. It does no I/O and imports no browser code, so every decision is a plain function of
plain data, tested without Chromium (``tests/unit/test_heal.py``).

**Comparing an element with the fingerprint** (:func:`compare`, twinned in ``resolve.js``):

* *Gates* — tag, type and role must be equal, or the element is not a candidate at all.
* *Features* — each hashed attribute present on either side (``same``, ``changed``, ``absent``
  from the page, or ``extra`` on the page only), the label hash and own-text hash (same four
  states), the parent tag path (longest common subsequence over the longer path), and sibling
  index and count among same-tag siblings.

**Similarity** (:func:`similarity`) is the weighted share of features that agree, in ``[0, 1]``::

    score = sum(weight of agreeing features) / sum(weight of features present on either side)

with the weights of :data:`WEIGHTS`. Identity features (stable attributes, label, text) weigh
more than context features (class, parent path, sibling position); ``type``'s attribute weighs
nothing because the gate already compares it.

**The rule** (:func:`decide`), every comparison over *visible* elements that pass the gates:

1. *Bundle first.* Candidates are tried in rank order; the first that designates exactly one
   visible element that passes the gates with ``score >= EXACT_MIN`` is the *hit*. A selector that
   lands on an element that disagrees (a decoy that took the old id) is no hit.
2. *Nobody else may be as good.* The hit is accepted (``exact``) only when every other element
   scores below ``hit - MARGIN``. If another element is within the margin the step is
   ``ambiguous`` (two identical buttons: nothing is clicked). If another element beats the hit by
   more than the margin, the hit is treated as a decoy and resolution goes on to healing.
3. *Heal* (only when healing is allowed): the best-scoring element is accepted (``healed``) only
   when ``score >= HEAL_MIN``, at least one identity feature agrees (position and classes alone
   never justify a heal), and it beats the second best by ``MARGIN``; otherwise ``not-found``
   (nothing good enough) or ``ambiguous`` (two good ones). Never "the first match".

Constants (tuned on the drift cases in ``tests/unit/test_heal.py`` and
``tests/integration/replay/test_drift.py``): ``EXACT_MIN = 0.45``, ``HEAL_MIN = 0.55``,
``MARGIN = 0.15``. The visible text and label weigh most (6 each), then test ids (3), id, name and
aria-label (2), placeholder, href and autocomplete (1.5), class, title, alt and for (1), the parent
path (2, times the share of the longer path in common), sibling index and count (0.5 each): a
redesign renames developer attributes far more often than what a person reads, and no single
context feature can carry an element past a bar on its own. The engine (``replay/engine.py``)
accepts a heal only when the same element wins a second probe taken 100 ms later.

``resolve.js`` does not report elements whose best possible score is below
``FLOOR = min(EXACT_MIN, HEAL_MIN) - MARGIN``: they can neither win nor come within the margin of
a winner, so the decision is the same as if it had seen them.

Known limit: elements that are identical in everything the fingerprint holds (rows of identical
"Delete" buttons told apart only by their position) are always ``ambiguous``: the rule will not
click the row the structural path points to when another row looks the same. Give such controls
a distinguishing attribute (``data-testid``, ``aria-label``) to make them replayable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ..model.locators import Fingerprint

Match = Literal["same", "changed", "absent", "extra"]
_MATCHES: Final = frozenset({"same", "changed", "absent", "extra"})

EXACT_MIN: Final = 0.45
HEAL_MIN: Final = 0.55
MARGIN: Final = 0.15
FLOOR: Final = round(min(EXACT_MIN, HEAL_MIN) - MARGIN, 6)
TOP_K: Final = 4  # pool elements resolve.js reports, best first (the rule needs two)


@dataclass(frozen=True)
class Weights:
    attributes: Mapping[str, float]
    default_attribute: float
    label: float
    text: float
    path: float
    sibling_index: float
    sibling_count: float

    def attribute(self, name: str) -> float:
        return self.attributes.get(name, self.default_attribute)

    def to_json(self) -> dict[str, Any]:
        return {
            "attributes": dict(self.attributes),
            "defaultAttribute": self.default_attribute,
            "label": self.label,
            "text": self.text,
            "path": self.path,
            "siblingIndex": self.sibling_index,
            "siblingCount": self.sibling_count,
        }


WEIGHTS: Final = Weights(
    attributes={
        "data-testid": 3.0,
        "data-test": 3.0,
        "data-skillreel": 3.0,
        "id": 2.0,
        "name": 2.0,
        "aria-label": 2.0,
        "placeholder": 1.5,
        "href": 1.5,
        "autocomplete": 1.5,
        "class": 1.0,
        "title": 1.0,
        "alt": 1.0,
        "for": 1.0,
        "role": 0.5,
        "type": 0.0,
    },
    default_attribute=0.5,
    label=6.0,
    text=6.0,
    path=2.0,
    sibling_index=0.5,
    sibling_count=0.5,
)

# Context features: they say where an element is and how it looks, not which element it is.
CONTEXT_ATTRIBUTES: Final = frozenset({"class", "role", "type"})


@dataclass(frozen=True)
class Comparison:
    """How one page element compares with the recorded fingerprint (no content, only outcomes)."""

    tag: bool
    type: bool
    role: bool
    attributes: Mapping[str, Match] = field(default_factory=dict)
    label: Match | None = None
    text: Match | None = None
    path_common: int = 0
    path_length: int = 0
    sibling_index: bool = False
    sibling_count: bool = False

    @property
    def gates(self) -> bool:
        return self.tag and self.type and self.role

    def identity_agrees(self) -> bool:
        """At least one identity feature (a stable attribute, the label or the text) agrees."""
        if self.label == "same" or self.text == "same":
            return True
        return any(
            m == "same"
            for name, m in self.attributes.items()
            if name not in CONTEXT_ATTRIBUTES and WEIGHTS.attribute(name) > 0
        )


def _match(recorded: str | None, observed: str | None) -> Match | None:
    if recorded is None and observed is None:
        return None
    if recorded is None:
        return "extra"
    if observed is None:
        return "absent"
    return "same" if recorded == observed else "changed"


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Longest common subsequence of two short tag paths (at most 8 entries each)."""
    row = [0] * (len(b) + 1)
    for x in a:
        prev = 0
        for j, y in enumerate(b, start=1):
            cur = row[j]
            row[j] = prev + 1 if x == y else max(row[j], row[j - 1])
            prev = cur
    return row[len(b)]


def compare(recorded: Fingerprint, observed: Fingerprint) -> Comparison:
    """Python twin of ``compare`` in resolve.js, over two fingerprints."""
    names = sorted(set(recorded.attributes) | set(observed.attributes))
    attrs = {n: m for n in names if (m := _match(recorded.attributes.get(n), observed.attributes.get(n)))}
    return Comparison(
        tag=recorded.tag == observed.tag,
        type=recorded.type == observed.type,
        role=recorded.role == observed.role,
        attributes=attrs,
        label=_match(recorded.label_hash, observed.label_hash),
        text=_match(recorded.text_hash, observed.text_hash),
        path_common=lcs_length(recorded.parent_path, observed.parent_path),
        path_length=len(observed.parent_path),
        sibling_index=recorded.sibling_index == observed.sibling_index,
        sibling_count=recorded.sibling_count == observed.sibling_count,
    )


def similarity(recorded: Fingerprint, c: Comparison, weights: Weights = WEIGHTS) -> float:
    """Weighted share of agreeing features, 0 when a gate fails. See the module docstring."""
    if not c.gates:
        return 0.0
    num = den = 0.0
    for name, m in c.attributes.items():
        w = weights.attribute(name)
        den += w
        num += w if m == "same" else 0.0
    for w, hashed in ((weights.label, c.label), (weights.text, c.text)):
        if hashed is not None:
            den += w
            num += w if hashed == "same" else 0.0
    longest = max(len(recorded.parent_path), c.path_length)
    den += weights.path
    num += weights.path * (c.path_common / longest if longest else 1.0)
    den += weights.sibling_index + weights.sibling_count
    num += weights.sibling_index if c.sibling_index else 0.0
    num += weights.sibling_count if c.sibling_count else 0.0
    return round(num / den, 6) if den else 0.0


# ---- what resolve.js reports -------------------------------------------------------------------


@dataclass(frozen=True)
class CandidateHit:
    """One bundle candidate on the page: how many elements it designates, how many are visible,
    and the element id when exactly one visible element is designated."""

    rank: int
    total: int
    visible: int
    element: int | None = None


@dataclass(frozen=True)
class Observed:
    element: int
    visible: bool
    comparison: Comparison


@dataclass(frozen=True)
class Probe:
    """One in-page measurement: bundle hits, comparisons of the elements that matter, pool size.

    ``pool`` lists the visible, gate-passing elements at or above :data:`FLOOR`, best first;
    ``observed`` holds a comparison for every element a hit or the pool refers to.
    """

    token: str
    hits: tuple[CandidateHit, ...]
    observed: Mapping[int, Observed]
    pool: tuple[int, ...]
    scored: int = 0


Outcome = Literal["exact", "healed", "not-found", "ambiguous"]


@dataclass(frozen=True)
class Resolution:
    """The verdict on one probe; ``element`` is set only for ``exact`` and ``healed``."""

    outcome: Outcome
    element: int | None = None
    score: float = 0.0
    rank: int | None = None
    runner_up: float | None = None
    reason: str = ""

    @property
    def accepted(self) -> bool:
        return self.outcome in ("exact", "healed")

    @property
    def healed(self) -> bool:
        return self.outcome == "healed"


def decide(recorded: Fingerprint, probe: Probe, *, allow_heal: bool) -> Resolution:
    """Apply the rule of the module docstring to one probe."""
    scores = {e: similarity(recorded, o.comparison) for e, o in probe.observed.items() if o.visible}
    hit = _first_hit(probe, scores)
    if hit is not None:
        element, rank = hit
        rival = max((s for e, s in _pool_scores(probe, scores) if e != element), default=None)
        if rival is None or rival < scores[element] - MARGIN:
            return Resolution("exact", element, scores[element], rank, rival, "the ranked locator agrees")
        if rival <= scores[element] + MARGIN:
            return Resolution(
                "ambiguous",
                None,
                scores[element],
                rank,
                rival,
                "another element matches the fingerprint as well as the located one",
            )
    if not allow_heal:
        return Resolution("not-found", reason="no ranked locator agrees and healing is off")
    return _heal(probe, scores)


def _first_hit(probe: Probe, scores: Mapping[int, float]) -> tuple[int, int] | None:
    for hit in sorted(probe.hits, key=lambda h: h.rank):
        if hit.visible != 1 or hit.element is None or hit.element not in scores:
            continue
        observed = probe.observed[hit.element]
        if observed.comparison.gates and scores[hit.element] >= EXACT_MIN:
            return hit.element, hit.rank
    return None


def _pool_scores(probe: Probe, scores: Mapping[int, float]) -> list[tuple[int, float]]:
    ranked = [(e, scores[e]) for e in probe.pool if e in scores and probe.observed[e].comparison.gates]
    return sorted(ranked, key=lambda p: -p[1])


def none_close_enough(candidates: int) -> str:
    """Why healing found nothing: no element of the recorded kind at all, or how many there were.
    ``candidates`` is the probe's count of elements of the recorded tag (``Probe.scored``)."""
    if candidates == 0:
        return "no element of the same kind is on the page"
    return f"{candidates} candidate(s) of the same kind, none close enough to the recorded element"


def _heal(probe: Probe, scores: Mapping[int, float]) -> Resolution:
    ranked = _pool_scores(probe, scores)
    if not ranked:
        return Resolution("not-found", reason=none_close_enough(probe.scored))
    best, best_score = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else None
    if best_score < HEAL_MIN or not probe.observed[best].comparison.identity_agrees():
        return Resolution(
            "not-found",
            score=best_score,
            runner_up=second,
            reason=none_close_enough(max(probe.scored, len(ranked))),
        )
    if second is not None and second > best_score - MARGIN:
        return Resolution(
            "ambiguous",
            score=best_score,
            runner_up=second,
            reason="two elements match the fingerprint equally well",
        )
    return Resolution("healed", best, best_score, None, second, "healed by fingerprint similarity")


# ---- parsing resolve.js output (the only shape crossing from the page) --------------------------


class ProbeShapeError(ValueError):
    """resolve.js returned something that is not a probe (never shown to a user as content)."""


def _int(value: Any, *, low: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ProbeShapeError("expected a non-negative integer")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ProbeShapeError("expected a boolean")
    return value


def _opt_match(value: Any) -> Match | None:
    if value is None:
        return None
    if value not in _MATCHES:
        raise ProbeShapeError("expected a match state")
    m: Match = value
    return m


def comparison_from_json(data: Mapping[str, Any]) -> Comparison:
    attrs = data.get("attributes") or {}
    if not isinstance(attrs, Mapping):
        raise ProbeShapeError("attributes must be an object")
    parsed: dict[str, Match] = {}
    for name, m in attrs.items():
        checked = _opt_match(m)
        if not isinstance(name, str) or checked is None:
            raise ProbeShapeError("bad attribute comparison")
        parsed[name] = checked
    return Comparison(
        tag=_bool(data.get("tag")),
        type=_bool(data.get("type")),
        role=_bool(data.get("role")),
        attributes=parsed,
        label=_opt_match(data.get("label")),
        text=_opt_match(data.get("text")),
        path_common=_int(data.get("pathCommon")),
        path_length=_int(data.get("pathLength")),
        sibling_index=_bool(data.get("siblingIndex")),
        sibling_count=_bool(data.get("siblingCount")),
    )


def probe_from_json(data: Any) -> Probe:
    """Validate resolve.js's ``probe`` result into a :class:`Probe`."""
    if not isinstance(data, Mapping) or not isinstance(data.get("token"), str):
        raise ProbeShapeError("not a probe")
    try:
        hits = tuple(
            CandidateHit(
                rank=_int(h["rank"]),
                total=_int(h["total"]),
                visible=_int(h["visible"]),
                element=None if h.get("element") is None else _int(h["element"]),
            )
            for h in data["hits"]
        )
        observed = {
            _int(o["element"]): Observed(
                _int(o["element"]), _bool(o["visible"]), comparison_from_json(o["comparison"])
            )
            for o in data["observed"]
        }
        pool = tuple(_int(e) for e in data["pool"])
        scored = _int(data.get("scored", 0))
    except (KeyError, TypeError) as exc:
        raise ProbeShapeError("incomplete probe") from exc
    referenced = {h.element for h in hits if h.element is not None} | set(pool)
    if not referenced <= set(observed):
        raise ProbeShapeError("a probe refers to an element it does not describe")
    return Probe(token=data["token"], hits=hits, observed=observed, pool=pool, scored=scored)
