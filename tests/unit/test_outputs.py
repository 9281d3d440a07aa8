"""What a caller gets of a skill's outputs (model.outputs.caller_outputs): every declared output,
masked where it contains a sensitive input, bounded; the MCP short rendering of a play; typed inputs
and outputs as skills_list shows them. No browser: the outputs are given as the engine returns them."""

from __future__ import annotations

from typing import Any

import pytest

from skillreel.errors import SkillreelError
from skillreel.mcp.server import play_summary
from skillreel.model.actions import BranchAction, ExtractAction, LoopAction, NavigateAction, TypeAction
from skillreel.model.conditions import PresentCondition
from skillreel.model.draft import Draft, Parameter
from skillreel.model.outputs import caller_outputs, masked_warnings
from skillreel.model.reads import FieldSpec
from skillreel.model.refs import ParameterRef
from skillreel.model.values import MASK
from skillreel.services.agent_access import skill_summary
from skillreel.services.runs import ReplayOutcome
from skillreel.vault import parameter_listing
from tests.support.factory import bundle, element_set, entry, graph_draft, target


def reading_draft() -> Draft:
    return graph_draft(
        [
            NavigateAction(id="a1", url="https://app.test/"),
            TypeAction(id="a2", target=bundle("#pin"), value=ParameterRef(name="pin")),
            ExtractAction(id="a3", output="title", target=target("h1", tag="h1")),
            BranchAction(
                id="a4",
                condition=PresentCondition(target=target("#paid", tag="p")),
                then=(ExtractAction(id="a5", output="paid_on", target=target("#paid", tag="p")),),
            ),
            LoopAction(
                id="a6",
                items=element_set(),
                limit=10,
                fields=(
                    FieldSpec(name="number", target=target("td.n"), type="integer"),
                    FieldSpec(name="note", target=target("td.note"), optional=True),
                ),
                body=(ExtractAction(id="a7", output="state", target=target("td.s", within="item")),),
                collect="rows",
            ),
        ],
        parameters=[Parameter(name="pin", sensitive=True)],
    )


def test_every_declared_output_is_returned_null_when_not_produced() -> None:
    read = {"title": "Invoice 7", "rows": [{"number": 1, "note": "x"}, {"number": 2}]}
    outputs, masked = caller_outputs(reading_draft(), {"pin": "4711"}, read)
    assert outputs == {
        "title": "Invoice 7",
        "paid_on": None,
        "rows": [{"number": 1, "note": "x", "state": None}, {"number": 2, "note": None, "state": None}],
    }
    assert masked == ()
    assert masked_warnings(masked) == ()


def test_a_value_holding_a_sensitive_input_is_masked_with_a_warning() -> None:
    read = {"title": "Your PIN is 4711", "paid_on": "x", "rows": [{"number": 4711, "note": "pin 4711!"}]}
    outputs, masked = caller_outputs(reading_draft(), {"pin": "4711"}, read)
    warnings = masked_warnings(masked)
    assert masked == ("rows", "title")
    assert outputs == {
        "title": MASK,
        "paid_on": "x",
        "rows": [{"number": None, "note": MASK, "state": None}],
    }
    assert [w.code for w in warnings] == ["SR_REPLAY_OUTPUT_MASKED"]
    assert "4711" not in warnings[0].message


def test_outputs_over_their_total_bound_are_refused() -> None:
    rows = [{"number": i, "note": "n" * 4000} for i in range(300)]
    with pytest.raises(SkillreelError) as info:
        caller_outputs(reading_draft(), {}, {"title": "t", "rows": rows})
    assert info.value.code == "SR_REPLAY_OUTPUT_TOO_LARGE"
    assert "nnnn" not in info.value.message


def outcome(**kw: Any) -> ReplayOutcome:
    return ReplayOutcome(**{"status": "succeeded", "name": "read-orders", "revision": 4, **kw})


def test_the_play_summary_renders_outputs_at_a_glance() -> None:
    long = "x" * 200
    text = play_summary(outcome(outputs={"total": 12.5, "title": long, "rows": [{}, {}, {}]}))
    head, line = text.split("\n")
    assert head == "read-orders: succeeded (revision 4)"
    assert line.startswith('outputs: total = 12.5; title = "xxx')
    assert line.endswith("…; rows: 3 item(s)")
    assert len(line) < 140
    assert play_summary(outcome()) == "read-orders: succeeded (revision 4)"
    failed = SkillreelError("SR_REPLAY_LIST_LIMIT", "step a6: too many", action_id="a6")
    assert play_summary(outcome(status="failed", error=failed)) == (
        "read-orders: failed at step a6: SR_REPLAY_LIST_LIMIT"
    )


def test_typed_inputs_and_outputs_as_an_agent_sees_them() -> None:
    params = [
        Parameter(name="q", type="string", description="Order number"),
        Parameter(name="region", type="enum", values=("eu", "us"), required=False, default="eu"),
        Parameter(name="legacy"),
    ]
    listing = parameter_listing("read-orders", params)
    assert listing == [
        {
            "name": "q",
            "required": True,
            "sensitive": False,
            "schema": {"type": "string", "description": "Order number"},
        },
        {
            "name": "region",
            "required": False,
            "sensitive": False,
            "schema": {"type": "string", "enum": ["eu", "us"], "default": "eu"},
        },
        {"name": "legacy", "required": True, "sensitive": False},  # a v1 parameter: unchanged
    ]
    draft = reading_draft()
    summary = skill_summary(entry("read-orders").model_copy(update={"draft": draft}))
    assert summary["outputs"]["required"] == ["title", "paid_on", "rows"]
    assert summary["outputs"]["properties"]["paid_on"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    v1 = skill_summary(entry("search-invoices"))
    assert "outputs" not in v1
