"""The trust score's arithmetic (``model.trust``, pure): the success rate over the newest 20
finished runs, cancelled runs left out of it, the newest success and failure, the line people read."""

from __future__ import annotations

from skillreel.model.trust import RECENT_RUNS, RunFacts, TrustScore, trust_score


def facts(
    outcome: str, at: str = "2026-01-02T03:04:05Z", code: str | None = None, healed: bool = False
) -> RunFacts:
    return RunFacts(outcome, at, code, healed)


def test_no_runs_is_no_rate() -> None:
    score = trust_score([])
    assert (score.runs, score.success_rate) == (0, None)
    assert score.line() == "no runs yet"


def test_the_rate_is_over_the_newest_runs_only() -> None:
    newest_first = [facts("succeeded")] * RECENT_RUNS + [facts("failed", code="SR_X")] * 5
    score = trust_score(newest_first)
    assert (score.runs, score.recent_runs, score.success_rate) == (25, 20, 1.0)
    assert score.last_failure_code == "SR_X"  # older than the window, still the last failure


def test_newest_success_and_failure_and_heals() -> None:
    score = trust_score(
        [
            facts("failed", "t3", "SR_NEW"),
            facts("cancelled", "t2", "SR_REPLAY_CANCELLED"),
            facts("succeeded", "t1", healed=True),
            facts("failed", "t0", "SR_OLD"),
        ]
    )
    assert (score.last_success_at, score.last_failure_code, score.heals) == ("t1", "SR_NEW", 1)
    assert (score.recent_runs, score.success_rate) == (3, 0.33)
    assert (
        score.line() == "4 runs, 33% of the last 3 succeeded, 1 healed, last success t1, last failure SR_NEW"
    )
    assert TrustScore.from_json(score.to_json()) == score
