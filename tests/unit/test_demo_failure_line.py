"""The demo's failure line for an MCP play names the code, the failing step and the message."""

from __future__ import annotations

from skillreel.demo.journey import play_failure


def test_a_failed_play_names_its_code_step_and_message() -> None:
    envelope = {
        "ok": False,
        "error": {
            "code": "SR_REPLAY_UI_TIMEOUT",
            "message": "the step did not finish in time",
            "fix": "...",
            "actionId": "a8",
            "details": {},
        },
    }
    assert play_failure(envelope) == "SR_REPLAY_UI_TIMEOUT at step a8: the step did not finish in time"


def test_a_failure_before_any_step_has_no_step() -> None:
    envelope = {
        "ok": False,
        "error": {"code": "SR_RECORD_POLICY_DENIED", "message": "refused", "actionId": None},
    }
    assert play_failure(envelope) == "SR_RECORD_POLICY_DENIED: refused"


def test_an_envelope_without_an_error_says_nothing() -> None:
    assert play_failure({"ok": True, "data": {"status": "succeeded"}}) is None
    assert play_failure({"ok": False, "error": None}) is None
