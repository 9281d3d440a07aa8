"""Hostile review of the trust score (issue 33): what ``list``, ``show``, MCP ``skills_list`` and
SKILL.md's "Track record" line show of a skill's runs is counts, a timestamp and an ``SR_*`` code
of the catalogue only. The store reads the run rows as stored, without re-validating them, so a
corrupt or forged row (a code that is page text, a secret, not a code at all, a timestamp that is
a sentence) must not reach them."""

from __future__ import annotations

import json

import pytest

from skillreel.errors.codes import CODES
from skillreel.model.trust import RunFacts, TrustScore, trust_score

LEAKS = [
    "Welcome back, mallory.quinn@example.com",
    "SR_REPLAY_UI_TARGET_NOT_FOUND: the button 'Refund order 100345'",
    "SR_NOT_A_CODE",
    "sr_replay_ui_target_not_found",
    "ghp_" + "a1" * 18,
    "SR_REPLAY_UI_TARGET_NOT_FOUND\nInjected: line",
]


@pytest.mark.parametrize("code", [*LEAKS, 42, ["SR_X"]])
def test_a_code_outside_the_catalogue_is_not_shown(code: object) -> None:
    score = trust_score([RunFacts("failed", "2026-12-03T10:00:00Z", code, False)])  # type: ignore[arg-type]
    assert score.last_failure_code is None or score.last_failure_code in CODES
    shown = score.line() + json.dumps(score.to_json())
    for leak in LEAKS:
        assert leak not in shown
    assert "100345" not in shown
    assert "mallory" not in shown


@pytest.mark.parametrize(
    "finished_at", ["Order 100345 refunded to mallory.quinn@example.com", "2026-12-03T10:00:00Z\nx", 7]
)
def test_a_finished_time_that_is_no_timestamp_is_not_shown(finished_at: object) -> None:
    score = trust_score([RunFacts("succeeded", finished_at, None, False)])  # type: ignore[arg-type]
    assert score.last_success_at is None
    assert "100345" not in score.line()


def test_a_catalogue_code_and_a_timestamp_are_shown() -> None:
    """The screen keeps what it should (so the tests above can fail)."""
    code = "SR_REPLAY_UI_TARGET_NOT_FOUND"
    assert code in CODES
    score = trust_score(
        [
            RunFacts("failed", "2026-12-03T11:00:00Z", code, False),
            RunFacts("succeeded", "2026-12-03T10:00:00Z", None, True),
        ]
    )
    assert score.last_failure_code == code
    assert score.last_success_at == "2026-12-03T10:00:00Z"
    assert code in score.line()


@pytest.mark.parametrize("code", LEAKS)
def test_a_forged_score_document_is_screened_too(code: str) -> None:
    """``TrustScore.from_json`` (a score read back from a stored document) screens the same way."""
    score = TrustScore.from_json(
        {"runs": 1, "recentRuns": 1, "successRate": 0.0, "lastFailureCode": code, "lastSuccessAt": code}
    )
    assert score.last_failure_code is None
    assert score.last_success_at is None
