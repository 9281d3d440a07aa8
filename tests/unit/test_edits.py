"""record.edits: structured edits of a draft (pure), good and bad, and the $EDITOR round trip."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from skillreel.errors import InputError
from skillreel.model.actions import (
    BranchAction,
    ClickAction,
    ExtractAction,
    HumanAction,
    LoopAction,
    NavigateAction,
    TypeAction,
    WaitAction,
)
from skillreel.model.draft import V1, V2, Draft, Parameter
from skillreel.model.reads import FieldSpec
from skillreel.model.refs import ItemRef, ParameterRef
from skillreel.record.edits import EditPatch, EditProblem, apply_edits
from skillreel.services.editing import patch_from_editable
from skillreel.user_files import input_error
from tests.support import factory


def desk() -> Draft:
    """navigate, type q, click a result chosen by q, extract the list of rows, extract the total."""
    rows = ExtractAction(
        id="a4",
        output="rows",
        read="list",
        items=factory.element_set(),
        fields=(FieldSpec(name="invoice", target=factory.target(":scope > td:nth-of-type(1)")),),
        limit=50,
    )
    return factory.graph_draft(
        [
            NavigateAction(id="a1", url="http://127.0.0.1:8000/app"),
            TypeAction(id="a2", target=factory.bundle("#q"), value=ParameterRef(name="q")),
            ClickAction(
                id="a3", target=factory.target("tbody a", tag="a", token=ParameterRef(name="q"), count=20)
            ),
            rows,
            ExtractAction(id="a5", output="total", target=factory.target("#total", tag="b"), type="number"),
        ]
    )


def patch(*edits: dict[str, Any]) -> EditPatch:
    return EditPatch.parse({"schema": "skillreel.edit/v1", "edits": list(edits)})


def test_parameter_edits_type_describe_default_and_rename() -> None:
    draft = desk()
    edited = apply_edits(
        draft,
        patch(
            {"op": "set-parameter", "name": "q", "type": "integer", "description": "The invoice number"},
            {"op": "set-parameter", "name": "q", "default": 1003},
            {"op": "rename-parameter", "name": "q", "to": "invoice"},
        ),
    ).draft
    (param,) = edited.parameters
    assert param.to_json() == {
        "name": "invoice",
        "required": False,
        "sensitive": False,
        "type": "integer",
        "description": "The invoice number",
        "default": 1003,
    }
    typed, chosen = edited.actions[1], edited.actions[2]
    assert isinstance(typed, TypeAction)
    assert typed.value == ParameterRef(name="invoice")
    assert isinstance(chosen, ClickAction)
    assert chosen.target.filter is not None
    assert chosen.target.filter.contains_token == ParameterRef(name="invoice")
    assert edited.draft_digest != draft.draft_digest


def test_step_flags_delete_move_wait_assert_and_human() -> None:
    edited = apply_edits(
        desk(),
        patch(
            {"op": "set-step", "step": "a3", "optional": True, "intent": "Open the matching invoice"},
            {"op": "add-wait", "after": "a3", "target": "a5", "timeoutMs": 5000},
            {"op": "add-assert", "before": "a5", "check": "visible", "target": "a5", "onFail": "skip"},
            {"op": "insert-human", "after": "a1", "intent": "Sign in with the hardware key"},
            {"op": "move-step", "step": "a4", "after": "a5"},
        ),
    ).draft
    assert [(a.id, a.kind) for a in edited.actions] == [
        ("a1", "navigate"),
        ("a8", "human"),
        ("a2", "type"),
        ("a3", "click"),
        ("a6", "wait"),
        ("a7", "assert"),
        ("a5", "extract"),
        ("a4", "extract"),
    ]
    click, wait, human = edited.action("a3"), edited.action("a6"), edited.action("a8")
    assert isinstance(click, ClickAction)
    assert (click.optional, click.intent) == (True, "Open the matching invoice")
    assert isinstance(wait, WaitAction)
    total = edited.action("a5")
    assert isinstance(total, ExtractAction)
    assert wait.target == total.target  # the recorded target, reused: no new target
    assert isinstance(human, HumanAction)
    assert [o.name for o in edited.outputs] == ["total", "rows"]


def test_deleting_the_only_user_of_a_parameter_drops_it() -> None:
    edited = apply_edits(
        desk(), patch({"op": "delete-step", "step": "a2"}, {"op": "delete-step", "step": "a3"})
    )
    assert edited.dropped == ("q",)
    assert edited.draft.parameters == ()


def test_wrap_in_a_loop_over_a_recorded_list_binding_the_input_to_an_item_field() -> None:
    edited = apply_edits(
        desk(),
        patch(
            {"op": "move-step", "step": "a4", "before": "a2"},
            {
                "op": "wrap-loop",
                "steps": ["a2", "a3"],
                "over": "a4",
                "limit": 50,
                "bind": {"q": "invoice"},
                "collect": "opened",
            },
        ),
    )
    loop = edited.draft.actions[2]
    assert isinstance(loop, LoopAction)
    assert [a.id for a in loop.body] == ["a2", "a3"]
    assert [f.name for f in loop.fields] == ["invoice"]
    typed = loop.body[0]
    assert isinstance(typed, TypeAction)
    assert typed.value == ItemRef(field="invoice")
    assert edited.dropped == ("q",)
    assert edited.draft.schema_ == V2


def test_wrap_in_a_branch_on_a_recorded_target() -> None:
    edited = apply_edits(
        desk(),
        patch({"op": "wrap-branch", "steps": ["a3"], "condition": {"kind": "present", "target": "a5"}}),
    ).draft
    branch = edited.actions[2]
    assert isinstance(branch, BranchAction)
    assert [a.id for a in branch.then] == ["a3"]


def test_a_v1_draft_stays_v1_under_v1_edits() -> None:
    draft = factory.draft()
    assert draft.schema_ == V1
    first = draft.actions[-1].id
    edited = apply_edits(draft, patch({"op": "delete-step", "step": first})).draft
    assert edited.schema_ == V1


@pytest.mark.parametrize(
    ("edit", "code", "step"),
    [
        ({"op": "delete-step", "step": "a99"}, "SR_RECORD_EDIT_REFERENCE", "a99"),
        ({"op": "set-parameter", "name": "nope", "type": "string"}, "SR_RECORD_EDIT_REFERENCE", None),
        ({"op": "rename-parameter", "name": "q", "to": "q"}, "SR_RECORD_EDIT_INVALID", None),
        ({"op": "add-wait", "after": "a3", "target": "a1"}, "SR_RECORD_EDIT_REFERENCE", "a1"),
        (
            {"op": "add-assert", "after": "a3", "check": "visible", "target": "a42"},
            "SR_RECORD_EDIT_REFERENCE",
            "a42",
        ),
        (
            {"op": "wrap-loop", "steps": ["a2", "a3"], "over": "a5", "limit": 5},
            "SR_RECORD_EDIT_INVALID",
            "a5",
        ),
        (
            {"op": "wrap-loop", "steps": ["a2", "a5"], "over": "a4", "limit": 5},
            "SR_RECORD_EDIT_INVALID",
            "a5",
        ),
        (
            {"op": "wrap-loop", "steps": ["a2"], "over": "a4", "limit": 5, "bind": {"q": "nope"}},
            "SR_RECORD_EDIT_REFERENCE",
            "a4",
        ),
        ({"op": "set-output", "name": "nope", "description": "x"}, "SR_RECORD_EDIT_REFERENCE", None),
    ],
)
def test_a_bad_edit_names_its_problem(edit: dict[str, Any], code: str, step: str | None) -> None:
    with pytest.raises(EditProblem) as info:
        apply_edits(desk(), patch(edit))
    assert (info.value.code, info.value.step, info.value.number) == (code, step, 1)


@pytest.mark.parametrize(
    ("edits", "code", "step"),
    [
        (
            [{"op": "delete-step", "step": "a4"}, {"op": "move-step", "step": "a5", "before": "a3"}],
            None,
            None,
        ),
        ([{"op": "move-step", "step": "a5", "before": "a2"}], None, None),
        ([{"op": "wrap-loop", "steps": ["a3"], "over": "a4", "limit": 5000}], "SR_RECORD_LOOP_BOUND", "a6"),
        ([{"op": "set-step", "step": "a4", "optional": True}], "SR_RECORD_GRAPH_INVALID", "a4"),
    ],
)
def test_graph_rules_hold_for_the_edited_draft(
    edits: list[dict[str, Any]], code: str | None, step: str | None
) -> None:
    if code is None:  # these are fine: the graph holds
        apply_edits(desk(), patch(*edits))
        return
    with pytest.raises(ValidationError) as info:
        apply_edits(desk(), patch(*edits))
    error = input_error(info.value, what="edited draft")
    assert (error.code, error.action_id) == (code, step)


def test_a_patch_with_an_unknown_key_or_op_is_refused() -> None:
    for bad in ({"op": "delete-step", "step": "a1", "extra": 1}, {"op": "add-target", "selector": "#x"}):
        with pytest.raises(ValidationError):
            patch(bad)


def test_a_bad_edit_is_the_one_problem_named_not_also_an_empty_list_of_edits() -> None:
    """pydantic counts a tuple's length after dropping its items that failed: the one bad edit
    also read as "at least 1 item ..., not 0"; an empty list of edits still says so."""
    with pytest.raises(ValidationError) as info:
        patch({"op": "delete-step", "step": "a1", "zzz": 1})
    assert input_error(info.value, what="edit file").message == (
        "the edit file is not valid: edits.0.<key>: an unknown key is not permitted"
    )
    with pytest.raises(ValidationError) as empty:
        EditPatch.parse({"schema": "skillreel.edit/v1", "edits": []})
    assert "at least 1 item" in input_error(empty.value, what="edit file").message


def test_an_intent_is_one_line_of_at_most_200_characters() -> None:
    """A reviewer's intent replaces the generated line in ``show``: it must stay one line."""
    for bad in ("", "two\nlines", "tab\there", "x" * 201):
        with pytest.raises(ValidationError):
            patch({"op": "set-step", "step": "a3", "intent": bad})
    edited = apply_edits(desk(), patch({"op": "set-step", "step": "a3", "intent": "x" * 200})).draft
    assert next(a for a in edited.walk() if a.id == "a3").intent == "x" * 200


def test_the_editor_round_trip_turns_changes_into_edits() -> None:
    draft = desk()
    before: dict[str, Any] = {
        "revision": 3,
        "parameters": [p.to_json() for p in draft.parameters],
        "outputs": [{"name": o.name, "description": None} for o in draft.outputs],
        "steps": [{"id": a.id, "kind": a.kind} for a in draft.actions],
    }
    after = {
        **before,
        "parameters": [{**before["parameters"][0], "type": "integer"}],
        "outputs": [{"name": "rows", "description": None}, {"name": "total", "description": "The total"}],
        "steps": [
            before["steps"][0],
            before["steps"][1],
            {**before["steps"][2], "optional": True},
            before["steps"][4],
            before["steps"][3],
        ],
    }
    made = patch_from_editable(before, after)
    assert made.revision == 3
    edited = apply_edits(draft, made).draft
    assert [a.id for a in edited.actions] == ["a1", "a2", "a3", "a5", "a4"]
    assert edited.parameter("q") == Parameter(name="q", type="integer")
    assert edited.output("total") is not None
    with pytest.raises(InputError) as info:
        patch_from_editable(before, {**before, "steps": [{"id": "a1", "kind": "click"}]})
    assert info.value.code == "SR_RECORD_EDIT_INVALID"


def test_set_skill_changes_the_description_and_the_failure_conditions() -> None:
    # issue 33 (6): both were fixed at recording
    draft = desk()
    edited = apply_edits(
        draft,
        patch(
            {
                "op": "set-skill",
                "description": "Find an invoice and read its total.",
                "failureConditions": ["The page says Nothing found."],
            }
        ),
    ).draft
    assert (edited.description, edited.failure_conditions) == (
        "Find an invoice and read its total.",
        ("The page says Nothing found.",),
    )
    assert edited.actions == draft.actions
    assert edited.draft_digest != draft.draft_digest
    cleared = apply_edits(edited, patch({"op": "set-skill", "failureConditions": []})).draft
    assert (cleared.description, cleared.failure_conditions) == (edited.description, ())
    with pytest.raises(EditProblem, match="set-skill sets the description"):
        apply_edits(draft, patch({"op": "set-skill"}))
    for bad in ({"op": "set-skill", "description": ""}, {"op": "set-skill", "failureConditions": [""]}):
        with pytest.raises(ValidationError):
            patch(bad)


def test_waits_until_a_url_or_a_text_and_scrolls_are_added_by_edits() -> None:
    # issue 33 (2): the engine ran them; no edit could add them
    draft = desk()
    edited = apply_edits(
        draft,
        patch(
            {"op": "add-wait", "after": "a3", "until": "url", "expected": "/invoices/"},
            {
                "op": "add-wait",
                "before": "a5",
                "until": "text",
                "target": "a5",
                "value": {"ref": "literal", "value": "EUR"},
            },
            {"op": "add-scroll", "before": "a4", "target": "a3", "to": "end", "maxRounds": 5},
        ),
    ).draft
    kinds = {a.id: a.to_json() for a in edited.actions if a.kind in ("wait", "scroll")}
    assert sorted((s["kind"], s.get("until"), s.get("to")) for s in kinds.values()) == [
        ("scroll", None, "end"),
        ("wait", "text", None),
        ("wait", "url", None),
    ]
    url_wait = next(s for s in kinds.values() if s.get("until") == "url")
    assert "target" not in url_wait
    assert url_wait["expected"] == "/invoices/"


def test_a_wait_never_compares_a_sensitive_input() -> None:
    draft = factory.graph_draft(
        [
            NavigateAction(id="a1", url="http://127.0.0.1:8000/app"),
            TypeAction(id="a2", target=factory.bundle("#pw"), value=ParameterRef(name="pw")),
        ],
        parameters=[Parameter(name="pw", sensitive=True)],
    )
    wait = {
        "op": "add-wait",
        "after": "a2",
        "until": "text",
        "target": "a2",
        "value": {"ref": "parameter", "name": "pw"},
    }
    with pytest.raises(EditProblem) as info:
        apply_edits(draft, patch(wait))
    assert info.value.code == "SR_RECORD_EDIT_SENSITIVE"
