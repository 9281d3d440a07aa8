"""What ``resolve.js`` reports from the page, and its validation: the only shape that crosses from
the page into the decision rule (:mod:`skillreel.locate.heal`). Pure; a payload that is not a probe
raises :class:`ProbeShapeError` and is never shown to a user as content.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from .similarity import Comparison, Match, NameMatch

_MATCHES: Final = frozenset({"same", "changed", "absent"})
_NAME_MATCHES: Final = frozenset({"same", "alias", "contains", "changed", "absent"})


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

    ``pool`` lists the visible, gate-passing elements at or above
    :data:`~skillreel.locate.heal.FLOOR`, best first; ``observed`` holds a comparison for every element a
    hit or the pool refers to.
    """

    token: str
    hits: tuple[CandidateHit, ...]
    observed: Mapping[int, Observed]
    pool: tuple[int, ...]
    scored: int = 0


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


def _opt_name_match(value: Any) -> NameMatch | None:
    if value is None:
        return None
    if value not in _NAME_MATCHES:
        raise ProbeShapeError("expected a name match state")
    m: NameMatch = value
    return m


def _opt_bool(value: Any) -> bool | None:
    return None if value is None else _bool(value)


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
        name=_opt_name_match(data.get("name")),
        value=_opt_match(data.get("value")),
        link=_opt_match(data.get("link")),
        row=_opt_match(data.get("row")),
        caption=_opt_match(data.get("caption")),
        stable_id=_opt_bool(data.get("stableId")),
        stable_name=_opt_bool(data.get("stableName")),
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
