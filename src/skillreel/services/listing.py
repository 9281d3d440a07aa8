"""Use case: list every skill with its state and revision (``skillreel list``; summary columns only),
and the store's size against its bound."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..store import EntrySummary, Store, StoreSize


@dataclass(frozen=True)
class SkillList:
    skills: tuple[EntrySummary, ...]
    store_size: StoreSize

    def to_json(self) -> dict[str, Any]:
        return {"skills": [s.to_json() for s in self.skills], "store": self.store_size.to_json()}


def list_skills(store: Store) -> SkillList:
    return SkillList(tuple(store.summaries()), store.size())
