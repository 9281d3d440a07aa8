"""Values between steps, retries and while loops (issue 33): the graph's checks when a skill is
saved (model.graph), URL templates (model.url_template), the edits that author them
(record.flow_edits through record.edits), and the engine's retry and while over the fake driver."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from skillreel.model.actions import (
    Action,
    AssertAction,
    ClickAction,
    ExtractAction,
    NavigateAction,
    Retry,
    TypeAction,
    WhileAction,
)
from skillreel.model.conditions import CompareCondition, PresentCondition
from skillreel.model.draft import Draft, Parameter
from skillreel.model.reads import FieldSpec
from skillreel.model.refs import LiteralValue, OutputRef, ParameterRef
from skillreel.model.url_template import TemplateProblem, check_template, fill
from skillreel.record.edits import EditPatch, EditProblem, apply_edits
from skillreel.user_files import input_error
from tests.support import factory

URL = "http://127.0.0.1:8000/app"


def order_id(step: str = "a2", **changes: Any) -> ExtractAction:
    return ExtractAction(id=step, output="order_id", target=factory.target("#latest", tag="span"), **changes)


def typed(value: Any, step: str = "a3") -> TypeAction:
    return TypeAction(id=step, target=factory.bundle("#q"), value=value)


def refused(actions: list[Action], **kwargs: Any) -> tuple[str, str | None, str]:
    with pytest.raises(ValidationError) as err:
        factory.graph_draft(actions, **kwargs)
    error = input_error(err.value, what="draft")
    return error.code, error.action_id, error.message


# ---- the graph --------------------------------------------------------------------------------------


def test_an_output_types_into_a_later_field() -> None:
    draft = factory.graph_draft(
        [NavigateAction(id="a1", url=URL), order_id(), typed(OutputRef(step="a2", field="order_id"))]
    )
    assert draft.schema_ == "skillreel.draft/v2"
    assert draft.parameters == ()


@pytest.mark.parametrize(
    ("actions", "code", "why"),
    [
        (  # used before it is produced
            [
                NavigateAction(id="a1", url=URL),
                typed(OutputRef(step="a2", field="order_id"), "a3"),
                order_id("a2"),
            ],
            "SR_RECORD_GRAPH_REFERENCE",
            "before it is certainly produced",
        ),
        (  # a boolean into a text field
            [
                NavigateAction(id="a1", url=URL),
                order_id(read="presence"),
                typed(OutputRef(step="a2", field="order_id")),
            ],
            "SR_RECORD_GRAPH_INVALID",
            "is a boolean",
        ),
        (  # a list into a text field
            [
                NavigateAction(id="a1", url=URL),
                ExtractAction(
                    id="a2",
                    output="order_id",
                    read="list",
                    items=factory.element_set(),
                    fields=(FieldSpec(name="n", target=factory.target(":scope > td")),),
                    limit=5,
                ),
                typed(OutputRef(step="a2", field="order_id")),
            ],
            "SR_RECORD_GRAPH_REFERENCE",
            "is a list",
        ),
        (  # an output that only a while body produces
            [
                NavigateAction(id="a1", url=URL),
                WhileAction(
                    id="a4",
                    condition=PresentCondition(target=factory.target("#more", tag="button")),
                    limit=3,
                    body=(order_id(),),
                ),
                typed(OutputRef(step="a2", field="order_id")),
            ],
            "SR_RECORD_GRAPH_REFERENCE",
            "before it is certainly produced",
        ),
    ],
    ids=["before", "boolean", "list", "inside-while"],
)
def test_a_value_that_cannot_flow_is_refused_with_the_step(
    actions: list[Action], code: str, why: str
) -> None:
    got_code, step, message = refused(actions)
    assert (got_code, step) == (code, "a3")
    assert why in message


def test_a_url_template_takes_inputs_and_outputs_never_a_secret() -> None:
    template = NavigateAction(
        id="a3",
        url="http://127.0.0.1:8000/orders/{order_id}?q={q}",
        reason="address-bar",
        parts={"order_id": OutputRef(step="a2", field="order_id"), "q": ParameterRef(name="q")},
    )
    draft = factory.graph_draft([NavigateAction(id="a1", url=URL), order_id(), template])
    assert [p.name for p in draft.parameters] == ["q"]
    code, step, message = refused(
        [NavigateAction(id="a1", url=URL), order_id(), template],
        parameters=[Parameter(name="q", sensitive=True)],
    )
    assert (code, step) == ("SR_RECORD_GRAPH_INVALID", "a3")
    assert "sensitive" in message


@pytest.mark.parametrize(
    ("url", "parts", "reason"),
    [
        ("http://{host}/x", {"host"}, "address-bar"),  # the origin is never a value's
        ("http://127.0.0.1:8000/{a}", {"a", "b"}, "address-bar"),  # a part without a placeholder
        ("http://127.0.0.1:8000/{a}/{b}", {"a"}, "address-bar"),  # a placeholder without a part
        ("http://127.0.0.1:8000/{a}}", {"a"}, "address-bar"),  # a stray brace
        ("http://127.0.0.1:8000/{a}", {"a"}, "start"),  # only an address-bar navigation
    ],
)
def test_a_bad_template_is_refused(url: str, parts: set[str], reason: str) -> None:
    with pytest.raises(ValidationError):
        NavigateAction(id="a2", url=url, reason=reason, parts={p: LiteralValue(value="x") for p in parts})  # type: ignore[arg-type]


def test_fill_encodes_each_value_inside_its_segment() -> None:
    template = "https://shop.test/orders/{id}/lines?note={note}#{frag}"
    check_template(template, frozenset({"id", "note", "frag"}))
    url = fill(template, {"id": "../a b", "note": "x&y=1", "frag": "@evil.test"})
    assert url == "https://shop.test/orders/..%2Fa%20b/lines?note=x%26y%3D1#%40evil.test"
    for climbing in ("..", "."):
        with pytest.raises(TemplateProblem, match="path segment"):
            fill(template, {"id": climbing, "note": "", "frag": ""})


def test_retry_is_bounded_and_only_on_steps_that_change_nothing() -> None:
    AssertAction(id="a2", check="url_matches", expected="/x", retry=Retry(times=5, interval_ms=10_000))
    for bad in ({"times": 6}, {"times": 0}, {"times": 1, "intervalMs": 10_001}):
        with pytest.raises(ValidationError):
            Retry.parse(bad)
    with pytest.raises(ValidationError):
        ClickAction.model_validate(
            {"id": "a2", "kind": "click", "target": factory.bundle("#q").to_json(), "retry": {"times": 1}}
        )


def test_a_while_limit_is_required_and_bounded() -> None:
    body = (ClickAction(id="a3", target=factory.target("#more", tag="button")),)
    condition = CompareCondition(value=ParameterRef(name="q"), op="not_empty")
    for limit in (0, 1001):
        with pytest.raises(ValidationError):
            WhileAction(id="a2", condition=condition, limit=limit, body=body)
    with pytest.raises(ValidationError):
        WhileAction.model_validate(
            {"id": "a2", "kind": "while", "condition": condition.to_json(), "body": []}
        )


# ---- edits ------------------------------------------------------------------------------------------


def desk() -> Draft:
    return factory.graph_draft(
        [
            NavigateAction(id="a1", url=URL),
            order_id(),
            typed(ParameterRef(name="q")),
            NavigateAction(id="a4", url="http://127.0.0.1:8000/orders", reason="address-bar"),
            ClickAction(id="a5", target=factory.target("#more", tag="button")),
        ]
    )


def patch(*edits: dict[str, Any]) -> EditPatch:
    return EditPatch.parse({"schema": "skillreel.edit/v1", "edits": list(edits)})


def test_set_value_takes_an_output_an_input_or_a_literal() -> None:
    draft = desk()
    edited = apply_edits(draft, patch({"op": "set-value", "step": "a3", "from": "output:order_id"}))
    assert edited.dropped == ("q",)
    step = edited.draft.actions[2]
    assert isinstance(step, TypeAction)
    assert step.value == OutputRef(step="a2", field="order_id")
    step = apply_edits(
        draft, patch({"op": "set-value", "step": "a3", "from": "literal:hello"})
    ).draft.actions[2]
    assert isinstance(step, TypeAction)
    assert step.value == LiteralValue(value="hello")
    renamed = apply_edits(draft, patch({"op": "set-value", "step": "a3", "from": "input:order"})).draft
    assert [p.name for p in renamed.parameters] == ["order"]


@pytest.mark.parametrize(
    ("edit", "code"),
    [
        ({"op": "set-value", "step": "a5", "from": "literal:x"}, "SR_RECORD_EDIT_INVALID"),  # a click
        ({"op": "set-value", "step": "a3", "from": "output:nothing"}, "SR_RECORD_EDIT_REFERENCE"),
        ({"op": "set-retry", "step": "a5", "times": 2}, "SR_RECORD_EDIT_INVALID"),  # a click never retries
        (
            {"op": "set-url", "step": "a1", "url": URL + "/{q}", "parts": {"q": "input:q"}},
            "SR_RECORD_EDIT_INVALID",
        ),
    ],
)
def test_flow_edits_that_cannot_apply_name_the_step(edit: dict[str, Any], code: str) -> None:
    with pytest.raises(EditProblem) as err:
        apply_edits(desk(), patch(edit))
    assert err.value.code == code
    assert err.value.step == edit["step"]


def test_set_value_refuses_a_field_that_typed_a_secret() -> None:
    draft = factory.graph_draft(
        [NavigateAction(id="a1", url=URL), order_id(), typed(ParameterRef(name="pw"))],
        parameters=[Parameter(name="pw", sensitive=True)],
    )
    with pytest.raises(EditProblem, match="sensitive"):
        apply_edits(draft, patch({"op": "set-value", "step": "a3", "from": "literal:x"}))


def test_set_url_set_retry_and_wrap_while() -> None:
    edited = apply_edits(
        desk(),
        patch(
            {
                "op": "set-url",
                "step": "a4",
                "url": "http://127.0.0.1:8000/orders/{order_id}",
                "parts": {"order_id": "output:order_id"},
            },
            {"op": "set-retry", "step": "a4", "times": 2, "intervalMs": 500},
            {"op": "set-retry", "step": "a2", "times": 3},
            {
                "op": "wrap-while",
                "steps": ["a5"],
                "condition": {"kind": "present", "target": "a5"},
                "limit": 20,
            },
        ),
    ).draft
    nav = edited.actions[3]
    assert isinstance(nav, NavigateAction)
    assert nav.parts == {"order_id": OutputRef(step="a2", field="order_id")}
    assert nav.retry == Retry(times=2, interval_ms=500)
    assert edited.actions[1].retry == Retry(times=3, interval_ms=1000)  # type: ignore[union-attr]
    loop = edited.actions[4]
    assert isinstance(loop, WhileAction)
    assert (loop.limit, [a.id for a in loop.body]) == (20, ["a5"])
    assert isinstance(loop.condition, PresentCondition)
    cleared = apply_edits(edited, patch({"op": "set-retry", "step": "a4", "times": 0})).draft
    assert cleared.actions[3].retry is None  # type: ignore[union-attr]


# ---- the engine over the fake driver -------------------------------------------------------------


async def test_a_failing_step_with_retry_runs_again_after_its_interval_then_fails() -> None:
    from skillreel.errors import ReplayUIError
    from skillreel.replay.engine import EngineOptions, ReplayEngine
    from skillreel.replay.fake import FakeDriver, FakePage
    from tests.support.clock import Clock

    def engine(clock: Clock) -> ReplayEngine:
        driver = FakeDriver({URL: FakePage(URL, [])}, start_url=URL)
        options = EngineOptions(salt=factory.SALT, timeout_ms=1000, settle_ms=50)
        return ReplayEngine(driver, options, clock=clock, sleep=clock.sleep)

    def start() -> NavigateAction:
        return NavigateAction(id="a1", url=URL)

    check = AssertAction(
        id="a2", check="url_matches", expected="/elsewhere", retry=Retry(times=2, interval_ms=777)
    )
    clock = Clock()
    with pytest.raises(ReplayUIError) as info:
        await engine(clock).run([start(), check], {})
    assert (info.value.code, info.value.action_id) == ("SR_REPLAY_UI_ASSERTION_FAILED", "a2")
    assert clock.sleeps.count(0.777) == 2  # two more runs, each after the interval
    assert clock.now >= 3.0  # each run had its own deadline (timeout 1 s)
    plain = Clock()
    with pytest.raises(ReplayUIError):
        await engine(plain).run([start(), check.model_copy(update={"retry": None})], {})
    assert 0.777 not in plain.sleeps
