"""Use case: list every skill with its state and revision (``skillreel list``; summary columns only),
its track record (``model.trust``: one query over the run rows of each current draft), and the
store's size against its bound."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model.trust import TrustScore
from ..store import EntrySummary, Store, StoreSize


@dataclass(frozen=True)
class SkillList:
    skills: tuple[EntrySummary, ...]
    store_size: StoreSize
    trust: dict[str, TrustScore] = field(default_factory=dict)

    def trust_of(self, name: str) -> TrustScore:
        return self.trust.get(name, TrustScore())

    def to_json(self) -> dict[str, Any]:
        skills = [{**s.to_json(), "trust": self.trust_of(s.name).to_json()} for s in self.skills]
        return {"skills": skills, "store": self.store_size.to_json()}


def list_skills(store: Store) -> SkillList:
    return SkillList(tuple(store.summaries()), store.size(), store.trust())
