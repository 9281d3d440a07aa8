"""``record.live.LiveSteps``: what the terminal prints while a person records (issue 31.2): each new
step once, by id and generated intent, never a value; a sensitive field reads as the vault's."""

from __future__ import annotations

from typing import Any

from skillreel.model.events import FieldInfo, RecordedEvent
from skillreel.record.live import LiveSteps
from tests.support.factory import SALT, bundle, legacy_value_digest

URL = "https://fixture.skillreel.invalid/"


def ev(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


def start() -> dict[str, Any]:
    return ev("navigate", url=URL, reason="start")


def edit(selector: str, hint: str, value: str = "v", *, sensitive: bool = False) -> dict[str, Any]:
    info = FieldInfo(control="text", param_hint=hint, sensitive=sensitive)
    digest = legacy_value_digest(SALT, value)
    return ev("input", target=bundle(selector), field=info, value_digest=digest)


def _feed(live: LiveSteps, *events: dict[str, Any]) -> None:
    for n, event in enumerate(events):
        live(RecordedEvent.model_validate({"seq": n, **event}))


def test_each_new_step_is_told_once_with_what_it_does() -> None:
    heard: list[tuple[str, str]] = []
    live = LiveSteps(lambda action_id, intent: heard.append((action_id, intent)))
    _feed(
        live,
        start(),
        edit("#q", "query", "CanaryTyped1"),
        ev("press", target=edit("#q", "query")["target"], key="Enter"),
    )
    # the words are model.intents' (the readable-steps work rewords them): what each step does
    assert [action_id for action_id, _ in heard] == ["a1", "a2", "a3"]
    assert heard[0][1] == "open the start page on " + URL.rstrip("/")
    assert heard[1][1].startswith("type ")
    assert "query" in heard[1][1]
    assert heard[2][1].startswith("press Enter in ")
    assert "CanaryTyped1" not in repr(heard)


def test_a_sensitive_field_reads_as_the_secret_input_from_the_vault() -> None:
    heard: list[str] = []
    live = LiveSteps(lambda _id, intent: heard.append(intent), sensitive=("pin",))
    _feed(live, start(), edit("#pw", "password", "hunter2", sensitive=True), edit("#pin", "pin", "1234"))
    assert len(heard) == 3
    for intent, name in zip(heard[1:], ("password", "pin"), strict=True):
        assert intent.startswith("type ")
        assert "secret" in intent
        assert name in intent
        assert "(from the vault)" in intent


def test_a_button_that_keeps_a_display_name_is_named_in_clear() -> None:
    """The line is the one ``show`` prints (issue 31.1): the element's screened display name."""
    heard: list[str] = []
    live = LiveSteps(lambda _id, intent: heard.append(intent))
    target = bundle("#signin").model_copy(update={"display_name": "Sign in"})
    _feed(live, start(), ev("click", target=target))
    assert heard[1].startswith("click the ")  # the factory's element is a field
    assert heard[1].endswith(' "Sign in"')
