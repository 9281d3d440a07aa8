"""Which element is the step's target: the pure decision rule of replay resolution (ARCHITECTURE 5).

``resolve.js`` measures, in one evaluation inside an isolated world, how every relevant element of
the page compares with the recorded :class:`~skillreel.model.locators.Fingerprint`
(:mod:`skillreel.locate.similarity` is the Python twin of that comparison and its score;
:mod:`skillreel.locate.probe` validates what the page reports); this module decides. It does no
I/O and imports no browser code, so every decision is a plain function of plain data, tested
without Chromium (``tests/unit/test_heal.py``).

**The rule** (:func:`decide`), every comparison over *visible* elements that pass the gates:

1. *Bundle first.* Candidates are tried in rank order (test id, id, name, aria-label, role + name,
   link destination, label, placeholder, CSS path); the first that designates exactly one visible
   element that passes the gates with ``score >= EXACT_MIN`` is the *hit*. A selector that lands
   on an element that disagrees (a decoy that took the old id) is no hit.
2. *Nobody else may be as good.* The hit is accepted (``exact``) only when every other element
   scores below ``hit - MARGIN``. If another element is within the margin the step is
   ``ambiguous`` (two identical buttons: nothing is clicked). If another element beats the hit by
   more than the margin, the hit is treated as a decoy and resolution goes on to healing.
   *Reading by position* (``positional``, a step that only reads its target: an extraction, an
   assertion, a wait): a content-free target
   (no hash of its text, model rule) cannot tell the items of a list apart, so a look-alike within
   the margin does not stop the hit; the ranked locator, which designates exactly one visible
   element, holds the position the person demonstrated ("the first result's amount"). A rival
   that beats the hit still sends it to healing, and acting steps never read by position.
3. *Heal* (only when healing is allowed): the best-scoring element is accepted (``healed``) only
   when ``score >= HEAL_MIN``, at least one identity feature agrees (name, alias or a name holding
   its words, label, caption, text, button value, link destination, a stable key or a non-context
   attribute: position, row and classes alone never justify a heal), and it beats the second best
   by ``MARGIN``; otherwise ``not-found`` (nothing good enough) or ``ambiguous`` (two good ones).
   Never "the first match".

Constants (tuned on the drift cases in ``tests/unit/test_heal.py``,
``tests/integration/replay/test_drift.py``, ``tests/integration/replay/test_drift_redesigns.py``,
``tests/integration/replay/test_admin_like.py`` and the real-app corpus of ``bench/realworld``):
``EXACT_MIN = 0.45``, ``HEAL_MIN = 0.55``, ``MARGIN = 0.15``. The engine (``replay/engine.py``)
accepts a heal only when the same element wins a second probe taken 100 ms later.

``resolve.js`` does not report elements whose best possible score is below
``FLOOR = min(EXACT_MIN, HEAL_MIN) - MARGIN``: they can neither win nor come within the margin of
a winner, so the decision is the same as if it had seen them. It also stops trying candidates at
the first hit the rule takes: later ones cannot change the decision.

Known limit: elements that are identical in everything the fingerprint holds (rows of identical
"Delete" buttons told apart by nothing, not even their row header or link) are always
``ambiguous``: the rule will not click the row the structural path points to when another row
looks the same. (An extraction reads by position instead: rule 2.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from ..model.locators import Fingerprint
from .probe import Observed, Probe
from .similarity import similarity

EXACT_MIN: Final = 0.45
HEAL_MIN: Final = 0.55
MARGIN: Final = 0.15
FLOOR: Final = round(min(EXACT_MIN, HEAL_MIN) - MARGIN, 6)
TOP_K: Final = 4  # pool elements resolve.js reports, best first (the rule needs two)


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


def pool(recorded: Fingerprint, observed: Mapping[int, Observed]) -> tuple[int, ...]:
    """The pool ``resolve.js`` reports, from comparisons: the visible, gate-passing elements at or
    above :data:`FLOOR`, best first (ties keep element order), at most :data:`TOP_K`. The one
    Python statement of that rule, used by ``replay.fake.FakeDriver`` and the unit tests."""
    scores = {
        e: similarity(recorded, o.comparison) for e, o in observed.items() if o.visible and o.comparison.gates
    }
    ranked = sorted((e for e, s in scores.items() if s >= FLOOR), key=lambda e: -scores[e])
    return tuple(ranked[:TOP_K])


def decide(recorded: Fingerprint, probe: Probe, *, allow_heal: bool, positional: bool = False) -> Resolution:
    """Apply the rule of the module docstring to one probe (``positional``: reading by position)."""
    scores = {e: similarity(recorded, o.comparison) for e, o in probe.observed.items() if o.visible}
    hit = _first_hit(probe, scores)
    if hit is not None:
        element, rank = hit
        rival = max((s for e, s in _pool_scores(probe, scores) if e != element), default=None)
        if rival is None or rival < scores[element] - MARGIN:
            return Resolution("exact", element, scores[element], rank, rival, "the ranked locator agrees")
        if rival <= scores[element] + MARGIN and positional:
            return Resolution(
                "exact", element, scores[element], rank, rival, "the ranked locator designates it"
            )
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
