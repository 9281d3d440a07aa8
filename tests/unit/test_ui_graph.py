"""The review page's step graph for a schema v2 skill: loops and branches nested, each step with its
intent and output, typed inputs and outputs; selectors escaped (a page chooses them)."""

from __future__ import annotations

from skillreel.model.actions import Action, ClickAction, ExtractAction, LoopAction, NavigateAction, TypeAction
from skillreel.model.draft import Parameter
from skillreel.model.refs import ParameterRef
from skillreel.services.showing import inputs_and_outputs, project_actions
from skillreel.ui.app import templates
from tests.support import factory


def rendered(actions: list[Action], parameters: tuple[Parameter, ...] = ()) -> str:
    draft = factory.graph_draft(actions, parameters=parameters)
    skill = {
        "name": draft.name,
        "version": None,
        "lastVersion": None,
        "description": draft.description,
        "revision": 1,
        "status": "draft",
        "capabilities": list(draft.capabilities),
        "environment": {"allowedOrigins": ["http://127.0.0.1:1"]},
        "healProposal": None,
        "origin": None,
        "actions": project_actions(draft),
        "provenance": [],
        **inputs_and_outputs(draft),
    }
    html = (
        templates().get_template("skill.html").render(skill=skill, healed_last={"a4"}, adopted={}, chart=None)
    )
    return html[html.index("<h2>Steps") : html.index("<h2>Runs")]


def test_a_loop_nests_its_steps_with_intents_outputs_and_typed_inputs() -> None:
    row = factory.target(':scope td.status[data-x="<script>"]', within="item")
    body: tuple[Action, ...] = (
        ExtractAction(id="a4", output="status", target=row),
        ClickAction(id="a5", target=factory.target(":scope button", tag="button", within="item")),
    )
    html = rendered(
        [
            NavigateAction(id="a0", url="https://shop.example/"),  # a step without a target
            TypeAction(id="a1", target=factory.bundle("#q"), value=ParameterRef(name="q")),
            LoopAction(id="a3", items=factory.element_set(), limit=10, body=body, collect="rows"),
        ],
        (Parameter(name="q", type="enum", values=("north", "south")),),
    )
    loop = html[html.index('id="step-a3"') :]
    nested = loop[loop.index('<ol class="graph nested">') :]
    assert 'id="step-a4"' in nested
    assert 'id="step-a5"' in nested
    assert "for each of the items `tbody tr` (at most 10)" in loop
    assert "in the current item into output `status`" in nested
    assert "healed in the last replay" in nested
    assert "<code>q</code> string of north, south" in html
    assert "<code>rows</code> list of <code>status</code> string" in html
    assert 'id="step-a0"' in html
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
