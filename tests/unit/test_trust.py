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
    newest_first = [facts("succeeded")] * RECENT_RUNS + [
        facts("failed", code="SR_REPLAY_UI_TARGET_NOT_FOUND")
    ] * 5
    score = trust_score(newest_first)
    assert (score.runs, score.recent_runs, score.success_rate) == (25, 20, 1.0)
    assert (
        score.last_failure_code == "SR_REPLAY_UI_TARGET_NOT_FOUND"
    )  # older than the window, still the last failure


def test_newest_success_and_failure_and_heals() -> None:
    score = trust_score(
        [
            facts("failed", "2026-01-04T00:00:00Z", "SR_REPLAY_UI_ASSERTION_FAILED"),
            facts("cancelled", "2026-01-03T00:00:00Z", "SR_REPLAY_CANCELLED"),
            facts("succeeded", "2026-01-02T00:00:00Z", healed=True),
            facts("failed", "2026-01-01T00:00:00Z", "SR_REPLAY_UI_TARGET_NOT_FOUND"),
        ]
    )
    assert (score.last_success_at, score.last_failure_code, score.heals) == (
        "2026-01-02T00:00:00Z",
        "SR_REPLAY_UI_ASSERTION_FAILED",
        1,
    )
    assert (score.recent_runs, score.success_rate) == (3, 0.33)
    assert (
        score.line() == "4 runs, 33% of the last 3 succeeded, 1 healed, last success 2026-01-02T00:00:00Z, "
        "last failure SR_REPLAY_UI_ASSERTION_FAILED"
    )
    assert TrustScore.from_json(score.to_json()) == score
