"""Schema v2: the step graph, typed parameters and outputs (model.actions, model.graph, model.draft).

Every v1 document keeps its bytes and digest; a graph that breaks a rule cannot be built or parsed,
and the refusal names the step with its own code.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from skillreel.errors import InputError
from skillreel.model.actions import (
    Action,
    AssertAction,
    BranchAction,
    ClickAction,
    DialogAction,
    ExtractAction,
    LoopAction,
    NavigateAction,
    ScrollAction,
    TypeAction,
    WaitAction,
    capability_manifest,
    parameter_refs,
    walk,
)
from skillreel.model.canonical import tagged_digest
from skillreel.model.conditions import CompareCondition, PresentCondition
from skillreel.model.draft import Draft, Parameter
from skillreel.model.entry import StoreEntry
from skillreel.model.reads import FieldSpec
from skillreel.model.refs import ItemRef, LiteralValue, OutputRef, ParameterRef
from skillreel.model.values import OutputSpec, outputs_schema
from skillreel.user_files import input_error, parse_document
from tests.support import factory
from tests.support.factory import element_set, graph_draft, target
from tests.support.narrow import target_of

START = NavigateAction(id="a1", url="https://fixture.skillreel.invalid/")


def total(step: str = "a2", **changes: Any) -> ExtractAction:
    fields: dict[str, Any] = {"target": target("#total", tag="span"), "type": "number", **changes}
    return ExtractAction(id=step, output="total", **fields)


def redigest(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a draft's JSON) with a digest recomputed under its schema's tag, as a forger would."""
    data = {k: v for k, v in data.items() if k != "draftDigest"}
    return {**data, "draftDigest": tagged_digest(data["schema"], data)}


def _refused(build: Callable[[], list[Action]], **kwargs: Any) -> InputError:
    """The refusal of a graph (while its steps or its draft are built) as the input-file boundary
    reports it: its code, the step it names."""
    with pytest.raises(ValidationError) as err:
        graph_draft(build(), **kwargs)
    return input_error(err.value, what="draft")


# ---- v1 stays v1 --------------------------------------------------------------------------------


def test_a_v1_draft_is_written_as_v1_with_its_golden_digest() -> None:
    draft = factory.draft()
    assert draft.schema_ == "skillreel.draft/v1"
    assert not draft.uses_v2()
    payload = draft.to_json()
    assert "outputs" not in payload
    assert set(payload["parameters"][0]) == {"name", "required", "sensitive"}
    assert set(payload["actions"][1]) == {"id", "kind", "target", "value"}
    assert set(payload["actions"][1]["target"]) == {"candidates", "fingerprint"}
    del payload["draftDigest"]
    assert draft.draft_digest == tagged_digest("skillreel.draft/v1", payload)


def test_a_v1_document_is_read_as_a_graph_without_blocks() -> None:
    draft = Draft.parse(factory.draft().to_json())
    assert [a.kind for a in draft.walk()] == ["navigate", "type", "press", "click"]
    assert draft.outputs == ()
    assert all(p.type is None for p in draft.parameters)


def test_any_v2_feature_makes_a_v2_document_under_its_own_tag() -> None:
    v1 = factory.draft()
    flagged = v1.evolve(
        actions=(*v1.actions[:3], ClickAction(id="a4", target=target_of(v1.actions[3]), optional=True))
    )
    typed = v1.evolve(parameters=(Parameter(name="query", type="string", description="What to search"),))
    for draft in (flagged, typed, graph_draft([START, total()])):
        assert draft.schema_ == "skillreel.draft/v2"
        payload = draft.to_json()
        del payload["draftDigest"]
        assert draft.draft_digest == tagged_digest("skillreel.draft/v2", payload)
        assert Draft.parse(draft.to_json()) == draft
    # and back: an edit that removes the last v2 feature writes v1 again, with the v1 digest
    assert typed.evolve(parameters=v1.parameters).draft_digest == v1.draft_digest


def test_a_v1_document_cannot_hold_a_v2_feature() -> None:
    v2 = graph_draft([START, total()])
    data = v2.to_json()
    data["schema"] = "skillreel.draft/v1"
    with pytest.raises(ValidationError, match="cannot hold"):
        Draft.parse(redigest(data))


def test_a_v2_digest_never_passes_for_v1() -> None:
    v2 = graph_draft([START, total()])
    data = v2.to_json()
    data["schema"] = "skillreel.draft/v1"  # same content, digest left under the v2 tag
    with pytest.raises(ValidationError):
        Draft.parse(data)


# ---- the graph ----------------------------------------------------------------------------------


def _loop(body: tuple[Action, ...], **changes: Any) -> LoopAction:
    fields: dict[str, Any] = {
        "id": "l1",
        "items": element_set(),
        "limit": 20,
        "fields": (FieldSpec(name="status", target=target("td.status")),),
        **changes,
    }
    return LoopAction(body=body, **fields)


def test_blocks_nest_and_every_step_is_walked() -> None:
    click = ClickAction(id="c1", target=target("button.open", tag="button", within="item"))
    branch = BranchAction(
        id="b1",
        condition=CompareCondition(
            value=ItemRef(field="status"), op="equals", expected=LiteralValue(value="new")
        ),
        then=(click,),
        otherwise=(AssertAction(id="s1", check="url_matches", expected="/invoices", on_fail="skip"),),
    )
    draft = graph_draft([START, _loop((branch,), collect="rows")])
    assert [a.id for a in draft.walk()] == ["a1", "l1", "b1", "c1", "s1"]
    assert draft.action("c1") == click
    assert draft.capabilities == ("net.navigate", "ui.interact", "ui.observe")
    data = draft.to_json()
    assert data["actions"][1]["body"][0]["else"][0]["onFail"] == "skip"
    assert Draft.parse(data) == draft


def test_capabilities_of_the_new_kinds() -> None:
    observe: list[Action] = [
        total(),
        WaitAction(id="w1", until="appears", target=target("#done")),
        ScrollAction(id="s1", target=target("ul.lazy", tag="ul"), to="end"),
    ]
    assert capability_manifest(observe) == ("ui.observe",)
    click = ClickAction(id="c1", target=target("#delete", tag="button"))
    assert capability_manifest([click, DialogAction(id="d1", accept=True)]) == ("ui.interact",)


def test_ids_are_unique_in_the_whole_graph() -> None:
    inner = ClickAction(id="a1", target=target("button", tag="button", within="item"))
    error = _refused(lambda: [START, _loop((inner,))])
    assert (error.code, error.action_id) == ("SR_RECORD_GRAPH_INVALID", "a1")


def test_depth_and_total_steps_are_bounded() -> None:
    step: Action = ClickAction(id="x0", target=target("button", tag="button", within="item"))
    for depth in range(1, 5):
        step = _loop((step,), id=f"l{depth}")
    error = _refused(lambda: [START, step])
    assert error.code == "SR_RECORD_GRAPH_INVALID"
    assert "nest" in error.message
    many = [ClickAction(id=f"c{i}", target=target("button", tag="button", within="item")) for i in range(256)]
    error = _refused(lambda: [START, _loop(tuple(many))])
    assert error.code == "SR_RECORD_GRAPH_INVALID"
    assert "258 steps" in error.message


@pytest.mark.parametrize("limit", [1001, 10**6])
def test_a_loop_bound_over_1000_is_refused_naming_the_step(limit: int) -> None:
    click = ClickAction(id="c1", target=target("button", tag="button", within="item"))
    error = _refused(lambda: [START, _loop((click,), limit=limit)])
    assert (error.code, error.action_id) == ("SR_RECORD_LOOP_BOUND", "l1")
    assert "1,000" in error.message
    error = _refused(
        lambda: [
            START,
            ExtractAction(
                id="x1",
                output="rows",
                read="list",
                items=element_set(),
                fields=(FieldSpec(name="n"),),
                limit=limit,
            ),
        ]
    )
    assert (error.code, error.action_id) == ("SR_RECORD_LOOP_BOUND", "x1")


def test_a_loop_limit_input_is_an_integer_parameter() -> None:
    click = ClickAction(id="c1", target=target("button", tag="button", within="item"))
    loop = _loop((click,), limit=ParameterRef(name="n"))
    draft = graph_draft([START, loop], parameters=[Parameter(name="n", type="integer")])
    assert parameter_refs(draft.actions) == ["n"]
    error = _refused(lambda: [START, loop])  # untyped parameter
    assert (error.code, error.action_id) == ("SR_RECORD_GRAPH_REFERENCE", "l1")


def test_a_condition_on_an_unknown_output_is_refused_naming_the_step() -> None:
    branch = BranchAction(
        id="b1",
        condition=CompareCondition(value=OutputRef(step="a2", field="nope"), op="not_empty"),
        then=(AssertAction(id="s1", check="url_matches", expected="/x"),),
    )
    error = _refused(lambda: [START, total(), branch])
    assert (error.code, error.action_id) == ("SR_RECORD_GRAPH_REFERENCE", "b1")
    assert "'nope'" in error.message


def test_an_output_referenced_before_it_is_produced_is_refused() -> None:
    use = TypeAction(
        id="t1",
        target=target("#amount", tag="input", type_="text"),
        value=OutputRef(step="a2", field="total"),
    )
    assert graph_draft([START, total(), use]).schema_ == "skillreel.draft/v2"
    error = _refused(lambda: [START, use, total()])
    assert (error.code, error.action_id) == ("SR_RECORD_GRAPH_REFERENCE", "t1")
    assert "before it is certainly produced" in error.message
    # produced inside a block that has ended
    inside = BranchAction(
        id="b1",
        condition=PresentCondition(target=target("#panel", tag="div")),
        then=(total("a2"),),
    )
    assert _refused(lambda: [START, inside, use]).action_id == "t1"
    # produced by an optional step
    assert _refused(lambda: [START, total(optional=True), use]).action_id == "t1"


def test_a_list_output_is_not_a_value() -> None:
    listing = ExtractAction(
        id="x1", output="rows", read="list", items=element_set(), fields=(FieldSpec(name="n"),), limit=5
    )
    use = TypeAction(
        id="t1", target=target("#q", tag="input", type_="text"), value=OutputRef(step="x1", field="rows")
    )
    error = _refused(lambda: [START, listing, use])
    assert (error.code, error.action_id) == ("SR_RECORD_GRAPH_REFERENCE", "t1")


def test_item_references_and_item_targets_belong_inside_a_loop() -> None:
    outside = TypeAction(
        id="t1", target=target("#q", tag="input", type_="text"), value=ItemRef(field="status")
    )
    assert _refused(lambda: [START, outside]).code == "SR_RECORD_GRAPH_REFERENCE"
    wrong_field = TypeAction(
        id="t1", target=target("input", tag="input", type_="text", within="item"), value=ItemRef(field="nope")
    )
    assert _refused(lambda: [START, _loop((wrong_field,))]).action_id == "t1"
    scoped = ClickAction(id="c1", target=target("button", tag="button", within="item"))
    error = _refused(lambda: [START, scoped])
    assert (error.code, error.action_id) == ("SR_RECORD_GRAPH_INVALID", "c1")


def test_a_dialog_follows_the_step_that_opens_it() -> None:
    click = ClickAction(id="c1", target=target("#delete", tag="button"))
    graph_draft([START, click, DialogAction(id="d1", accept=True)])
    error = _refused(lambda: [START, total(), DialogAction(id="d1", accept=False)])
    assert (error.code, error.action_id) == ("SR_RECORD_GRAPH_INVALID", "d1")
    with pytest.raises(ValidationError):
        DialogAction(id="d1", accept=False, text=ParameterRef(name="reason"))


def test_parameters_are_typed() -> None:
    Parameter(name="region", type="enum", values=("eu", "us"), required=False, default="eu")
    for bad in (
        {"type": "enum"},
        {"type": "string", "values": ["a"]},
        {"type": "enum", "values": ["a", "a"]},
        {"sensitive": True, "required": False, "default": "x"},
        {"required": True, "default": "x"},
        {"type": "integer", "required": False, "default": "ten"},
        {"type": "enum", "values": ["a"], "required": False, "default": "b"},
    ):
        with pytest.raises(ValidationError):
            Parameter.model_validate({"name": "p", **bad})


# ---- outputs ------------------------------------------------------------------------------------


def test_outputs_are_derived_from_the_steps() -> None:
    listing = ExtractAction(
        id="x1",
        output="invoices",
        read="list",
        items=element_set(),
        fields=(
            FieldSpec(name="number"),
            FieldSpec(name="amount", target=target("td.a"), type="number", optional=True),
        ),
        limit=50,
    )
    note = ExtractAction(id="x2", output="note", target=target("td.note", within="item"))
    loop = _loop(
        (
            AssertAction(id="s1", check="visible", target=target("td", within="item"), on_fail="skip"),
            note,
        ),
        collect="rows",
    )
    skip = AssertAction(id="s2", check="url_matches", expected="/done", on_fail="skip")
    count = ExtractAction(id="x3", output="pending", read="count", items=element_set("tr.pending"))
    draft = graph_draft([START, total(), listing, loop, skip, count])
    shapes = {o.name: o for o in draft.outputs}
    assert [o.name for o in draft.outputs] == ["total", "invoices", "rows", "pending"]
    assert (shapes["total"].type, shapes["total"].nullable) == ("number", False)
    assert [(f.name, f.type, f.nullable) for f in shapes["invoices"].fields] == [
        ("number", "string", False),
        ("amount", "number", True),
    ]
    assert [(f.name, f.nullable) for f in shapes["rows"].fields] == [("status", False), ("note", True)]
    assert (shapes["pending"].type, shapes["pending"].nullable) == ("integer", True)  # after a skip
    schema = outputs_schema(draft.outputs)
    assert schema["required"] == ["total", "invoices", "rows", "pending"]
    assert schema["properties"]["pending"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert schema["properties"]["invoices"]["items"]["properties"]["amount"] == {
        "anyOf": [{"type": "number"}, {"type": "null"}]
    }


def test_declared_outputs_keep_their_descriptions_and_must_match() -> None:
    described = OutputSpec(name="total", type="number", description="The invoice total")
    draft = graph_draft([START, total()], outputs=[described])
    assert draft.outputs == (described,)
    data = draft.to_json()
    data["outputs"][0]["type"] = "string"
    with pytest.raises(ValidationError) as err:
        Draft.parse(redigest(data))
    assert "declared outputs differ" in str(err.value)


def test_output_names_are_unique() -> None:
    error = _refused(lambda: [START, total("a2"), total("a3")])
    assert (error.code, error.action_id) == ("SR_RECORD_GRAPH_INVALID", "a3")


def test_a_collecting_loop_inside_a_loop_is_refused() -> None:
    inner = _loop((total("x1", target=target("#t", tag="span", within="item")),), id="l2", collect="inner")
    error = _refused(lambda: [START, _loop((inner,))])
    assert (error.code, error.action_id) == ("SR_RECORD_GRAPH_INVALID", "l2")


def test_a_graph_problem_through_the_file_boundary_names_the_step() -> None:
    use = TypeAction(
        id="t1", target=target("#q", tag="input", type_="text"), value=OutputRef(step="a2", field="total")
    )
    good = graph_draft([START, total(), use])
    data = good.to_json()
    data["actions"] = [data["actions"][0], data["actions"][2], data["actions"][1]]  # use before produce
    entry = factory.entry().to_json()
    entry["draft"] = redigest(data)
    with pytest.raises(InputError) as err:
        parse_document(StoreEntry, json.dumps(entry), what="import file")
    assert (err.value.code, err.value.action_id) == ("SR_RECORD_GRAPH_REFERENCE", "t1")
    assert "step t1" in err.value.message


def test_every_step_and_reference_survives_a_round_trip() -> None:
    actions: list[Action] = [
        START,
        TypeAction(id="t1", target=target("#q", tag="input", type_="text"), value=ParameterRef(name="q")),
        WaitAction(
            id="w1",
            until="text",
            target=target("#status", tag="p"),
            value=ParameterRef(name="q"),
            timeout_ms=5000,
        ),
        ClickAction(id="c1", target=target("a.order", tag="a", token=ParameterRef(name="q"), count=20)),
        WaitAction(id="w2", until="url", expected="/orders/*"),
        total("x1"),
        ScrollAction(id="s1", target=target("ul.lazy", tag="ul"), to="end", max_rounds=30),
        ClickAction(id="c2", target=target("#approve", tag="button"), optional=True),
        DialogAction(id="d1", accept=True, expects="prompt", text=ParameterRef(name="reason")),
    ]
    draft = graph_draft(actions)
    assert [p.name for p in draft.parameters] == ["q", "reason"]
    assert Draft.parse(json.loads(json.dumps(draft.to_json()))) == draft
    assert len(list(walk(draft.actions))) == len(actions)
