"""Use case: page through a skill's replay runs, newest first (``skillreel runs``).

Each run is its own record (``model.runs``): who ran it, when, which revision, how it ended, how
many steps ran and acted, which healed. A run still marked started whose process is gone shows as
``interrupted`` (``prune`` records it as such). ``next.before`` is the number to pass to get the
page after this one; numbers never change, so a page stays the same while new runs start.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from ..errors import InputError
from ..model.base import check_skill_name
from ..store import RunView, Store

DEFAULT_PAGE: Final = 20
MAX_PAGE: Final = 1000


@dataclass(frozen=True)
class RunPage:
    name: str
    runs: tuple[RunView, ...]
    total: int
    more: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "runs": [r.to_json() for r in self.runs],
            "total": self.total,
            "next": {"before": self.runs[-1].number} if self.more and self.runs else None,
        }


def list_runs(store: Store, name: str, *, limit: int = DEFAULT_PAGE, before: int | None = None) -> RunPage:
    """The newest ``limit`` runs of ``name`` (those numbered below ``before`` when given)."""
    if not 1 <= limit <= MAX_PAGE:
        raise InputError("SR_RECORD_USAGE", f"--limit must be 1 to {MAX_PAGE:,}")
    if before is not None and before < 1:
        raise InputError("SR_RECORD_USAGE", "--before must be a run number (1 or more)")
    store.get(check_skill_name(name))
    found = store.runs(name, limit=limit + 1, before=before)
    return RunPage(name, tuple(found[:limit]), store.run_count(name), len(found) > limit)
