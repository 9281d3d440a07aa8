"""Use case: list every skill with its state and revision (``skillreel list``; summary columns only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..store import EntrySummary, Store


@dataclass(frozen=True)
class SkillList:
    skills: tuple[EntrySummary, ...]

    def to_json(self) -> dict[str, Any]:
        return {"skills": [s.to_json() for s in self.skills]}


def list_skills(store: Store) -> SkillList:
    return SkillList(tuple(store.summaries()))
