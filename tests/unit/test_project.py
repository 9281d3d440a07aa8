"""record.project: the pure events -> Draft projection."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillreel.errors import InputError, RecordError
from skillreel.model.actions import HumanAction, NavigateAction
from skillreel.model.draft import Draft
from skillreel.model.events import Control, EventsLog, FieldInfo, RecordedEvent
from skillreel.record.project import ProjectionOptions, plan, project
from tests.support.factory import SALT, bundle, html_environment, legacy_value_digest
from tests.support.narrow import narrow

URL = "https://fixture.skillreel.invalid/"


def ev(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


def log(*events: dict[str, Any]) -> EventsLog:
    built = [RecordedEvent.model_validate({"seq": i, **e}) for i, e in enumerate(events)]
    return EventsLog.build(salt=SALT, events=tuple(built))


def start() -> dict[str, Any]:
    return ev("navigate", url=URL, reason="start")


def edit(
    selector: str,
    hint: str,
    value: str | None = "v",
    *,
    control: Control = "text",
    sensitive: bool = False,
    kind: str = "input",
) -> dict[str, Any]:
    info = FieldInfo(control=control, param_hint=hint, sensitive=sensitive)
    return ev(
        kind,
        target=bundle(selector),
        field=info,
        value_digest=legacy_value_digest(SALT, value) if value is not None else None,
    )


def options(**kw: Any) -> ProjectionOptions:
    return ProjectionOptions(
        **{"name": "fill-form", "description": "Fill the form.", "environment": html_environment(), **kw}
    )


def kinds(draft: Draft) -> list[str]:
    return [a.kind for a in draft.actions]


def test_same_log_always_gives_the_same_draft() -> None:
    events = log(
        start(),
        edit("#q", "query", "x"),
        ev("press", key="Enter", target=bundle("#q")),
        ev("click", target=bundle("#go", tag="button", type_="submit")),
    )
    first = project(events, options())
    again = project(EventsLog.parse(events.model_dump_json(by_alias=True)), options())
    assert first.draft_digest == again.draft_digest
    assert first.events_digest == events.events_digest
    assert first.fingerprint_salt == events.salt
    assert Draft.parse(first.to_json()) == first


def test_each_event_kind_becomes_its_action() -> None:
    events = log(
        start(),
        ev("click", target=bundle("#b", tag="button")),
        edit("#q", "query"),
        edit("#c", "country", kind="select", control="select"),
        ev("press", key="Tab"),
        ev("human", reason="iframe"),
        ev("navigate", url=URL + "next", reason="address-bar"),
        ev("navigate", url=URL + "next", reason="reload"),
        ev("observe", target=bundle("#r", tag="div")),
        ev("assert", check="text_contains", target=bundle("#r", tag="div"), expected="done"),
        ev("assert", check="url_matches", expected="/next"),
    )
    draft = project(events, options())
    assert kinds(draft) == [
        "navigate",
        "click",
        "type",
        "select",
        "press",
        "human",
        "navigate",
        "navigate",
        "observe",
        "assert",
        "assert",
    ]
    assert [a.id for a in draft.actions] == [f"a{i}" for i in range(1, 12)]
    assert [p.name for p in draft.parameters] == ["query", "country"]
    assert draft.capabilities == ("net.navigate", "ui.interact", "ui.observe")
    assert narrow(NavigateAction, draft.actions[6]).reason == "address-bar"
    assert narrow(NavigateAction, draft.actions[7]).reason == "reload"


def test_one_action_per_field_edit_and_unique_parameter_names() -> None:
    events = log(
        start(),
        edit("#q", "query", "a"),
        edit("#q", "query", "ab"),
        ev("press", key="Enter"),
        edit("#q", "query", "abc"),
        edit("#r", "query", "z"),
    )
    result = plan(events.events)
    assert [a.kind for a in result.actions] == ["navigate", "type", "press", "type", "type"]
    assert [p.name for p in result.parameters] == ["query", "query_2", "query_3"]
    assert result.sources["query"] == (1, 2)


def test_passwords_and_named_fields_are_sensitive_and_otp_is_human() -> None:
    events = log(
        start(),
        edit("#u", "user", "bob"),
        edit("#p", "password", None, control="password", sensitive=True),
        edit("#o", "code", None, control="otp", sensitive=True),
    )
    draft = project(events, options(sensitive=frozenset({"user"})))
    assert kinds(draft) == ["navigate", "type", "type", "human"]
    assert narrow(HumanAction, draft.actions[3]).reason == "otp"
    assert {p.name: p.sensitive for p in draft.parameters} == {"user": True, "password": True}


def test_consecutive_human_steps_of_one_reason_are_one_step() -> None:
    events = log(
        start(),
        ev("human", reason="rich-text", target=bundle("#ed", tag="div")),
        ev("human", reason="rich-text", target=bundle("#ed", tag="div")),
        ev("human", reason="otp"),
        ev("human", reason="otp"),
        ev("click", target=bundle("#b")),
    )
    assert kinds(project(events, options())) == ["navigate", "human", "human", "click"]


def test_events_on_a_popup_follow_a_page_step_and_an_older_popup_is_a_persons() -> None:
    events = log(
        start(),
        ev("click", target=bundle("#open")),
        ev("click", page=1, target=bundle("#b")),
        ev("click", target=bundle("#c")),
        ev("click", page=2, target=bundle("#d")),
        ev("close", page=2),
        ev("click", page=1, target=bundle("#e")),  # back to the older popup: replay follows the newest
    )
    draft = project(events, options())
    assert [a.to_json().get("to", a.kind) for a in draft.actions] == [
        "navigate",
        "click",
        "popup",
        "click",
        "main",
        "click",
        "popup",
        "click",
        "main",
        "human",
    ]
    assert draft.actions[8].to_json() == {"id": "a9", "kind": "page", "to": "main", "close": True}
    assert narrow(HumanAction, draft.actions[9]).reason == "other"
    assert "ui.interact" in draft.capabilities


def test_a_download_event_is_a_download_step_needing_net_download() -> None:
    draft = project(log(start(), ev("download", target=bundle("#r"), output="receipt")), options())
    assert draft.actions[1].to_json()["kind"] == "download"
    assert draft.actions[1].to_json()["output"] == "receipt"
    outputs = [o.to_json() for o in draft.outputs]
    assert outputs == [{"name": "receipt", "type": "download", "nullable": False}]
    assert draft.capabilities == ("net.download", "net.navigate")


def test_nothing_but_the_start_is_nothing_captured() -> None:
    with pytest.raises(RecordError) as info:
        project(log(start()), options())
    assert info.value.code == "SR_RECORD_NOTHING_CAPTURED"


def test_more_than_256_actions_is_refused() -> None:
    clicks = [ev("click", target=bundle(f"#b{i}")) if i % 2 else ev("press", key="Tab") for i in range(300)]
    with pytest.raises(RecordError) as info:
        project(log(start(), *clicks), options())
    assert info.value.code == "SR_RECORD_ACTIONS_LIMIT"


def test_unknown_sensitive_name_is_refused_with_the_known_names() -> None:
    with pytest.raises(InputError) as info:
        project(log(start(), edit("#q", "query")), options(sensitive=frozenset({"card"})))
    assert info.value.code == "SR_RECORD_PARAMETER_UNKNOWN"
    assert "query" in info.value.message
    assert info.value.exit_status == 2


_kinds = st.sampled_from(["click", "input", "select", "press", "human", "navigate"])


def _random_event(kind: str, n: int) -> dict[str, Any]:
    if kind == "click":
        return ev("click", target=bundle(f"#b{n % 3}"))
    if kind in ("input", "select"):
        return edit(f"#f{n % 2}", f"f{n % 2}", str(n), kind=kind)
    if kind == "press":
        return ev("press", key=("Enter", "Tab", "Escape")[n % 3])
    if kind == "human":
        return ev("human", reason=("iframe", "drag", "otp")[n % 3])
    return ev("navigate", url=f"{URL}{n}", reason="address-bar")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_kinds, st.integers(0, 5)), min_size=1, max_size=30))
def test_projection_is_deterministic_and_valid(spec: list[tuple[str, int]]) -> None:
    events = log(start(), *(_random_event(k, n) for k, n in spec))
    first = project(events, options())
    assert project(events, options()).draft_digest == first.draft_digest
    assert Draft.parse(first.to_json()).draft_digest == first.draft_digest
    assert len({p.name for p in first.parameters}) == len(first.parameters)
