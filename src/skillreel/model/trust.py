"""A skill's track record from its runs (pure; issue 33): the trust score.

Computed from the finished run rows of one approved draft (the store reads them: ``store.runs``'s
``trust_rows``): how many runs, how many of the last ``RECENT_RUNS`` succeeded, how many healed,
when it last succeeded and the code of its last failure. Content-free: counts, a timestamp and an
``SR_*`` code. ``list``, ``show``, MCP ``skills_list`` and SKILL.md's "Track record" line show it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ..errors.codes import CODES

__all__ = ["RECENT_RUNS", "RunFacts", "TrustScore", "trust_score"]

RECENT_RUNS: Final = 20  # the success rate is over this many of the newest finished runs
_TIMESTAMP: Final = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z")


def _code(code: object) -> str | None:
    """A failure code fit to show: one of the catalogue's, else none (the run rows are read as
    stored, unvalidated: a forged or corrupt one may hold any text)."""
    return code if isinstance(code, str) and code in CODES else None


def _time(at: object) -> str | None:
    """A timestamp fit to show (the same reason)."""
    return at if isinstance(at, str) and _TIMESTAMP.fullmatch(at) else None


@dataclass(frozen=True)
class RunFacts:
    """What the score reads of one finished run."""

    outcome: str
    finished_at: str | None
    code: str | None
    healed: bool


@dataclass(frozen=True)
class TrustScore:
    runs: int = 0
    recent_runs: int = 0
    recent_successes: int = 0
    heals: int = 0
    last_success_at: str | None = None
    last_failure_code: str | None = None

    @property
    def success_rate(self) -> float | None:
        """Successes over the recent runs (None before the first run), to two decimals."""
        return round(self.recent_successes / self.recent_runs, 2) if self.recent_runs else None

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "recentRuns": self.recent_runs,
            "successRate": self.success_rate,
            "heals": self.heals,
            "lastSuccessAt": self.last_success_at,
            "lastFailureCode": self.last_failure_code,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TrustScore:
        """The score back from :meth:`to_json` (its success rate is recomputed)."""
        recent, rate = int(data.get("recentRuns") or 0), data.get("successRate") or 0.0
        return cls(
            int(data.get("runs") or 0),
            recent,
            round(recent * float(rate)),
            int(data.get("heals") or 0),
            _time(data.get("lastSuccessAt")),
            _code(data.get("lastFailureCode")),
        )

    def line(self) -> str:
        """One line for people ("12 runs, 95% of the last 20 succeeded, 1 healed, last success
        2026-...; last failure SR_..."), or "no runs yet"."""
        if not self.runs:
            return "no runs yet"
        rate = self.success_rate or 0.0
        parts = [
            f"{self.runs} run{'s' if self.runs != 1 else ''}",
            f"{round(rate * 100)}% of the last {self.recent_runs} succeeded",
        ]
        if self.heals:
            parts.append(f"{self.heals} healed")
        if self.last_success_at:
            parts.append(f"last success {self.last_success_at}")
        if self.last_failure_code:
            parts.append(f"last failure {self.last_failure_code}")
        return ", ".join(parts)


def trust_score(newest_first: Iterable[RunFacts]) -> TrustScore:
    """The score of these finished runs, newest first (cancelled runs count as runs, not as
    failures of the skill: a person stopped them)."""
    runs = recent = successes = heals = 0
    last_success: str | None = None
    last_failure: str | None = None
    seen_failure = False
    for run in newest_first:
        runs += 1
        heals += run.healed
        if recent < RECENT_RUNS and run.outcome != "cancelled":
            recent += 1
            successes += run.outcome == "succeeded"
        if run.outcome == "succeeded" and last_success is None:
            last_success = _time(run.finished_at)
        if run.outcome == "failed" and not seen_failure:
            seen_failure, last_failure = True, _code(run.code)
    return TrustScore(runs, recent, successes, heals, last_success, last_failure)
