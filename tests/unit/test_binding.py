"""record/binding.py and the ``bind-target`` edit: a recorded click's target bound to an input
over the elements like it or the rows like its row, derived from its structural path only."""

from __future__ import annotations

from typing import Any

import pytest

from skillreel.errors.codes import CODES
from skillreel.model.actions import ClickAction, NavigateAction, TypeAction
from skillreel.model.draft import Draft, Parameter
from skillreel.model.events import PageEvent
from skillreel.model.locators import LocatorBundle
from skillreel.model.refs import ParameterRef
from skillreel.record.binding import BindProblem, bound_target
from skillreel.record.capture import CaptureLog
from skillreel.record.edits import EditPatch, EditProblem, apply_edits
from tests.support import factory
from tests.support.factory import SALT

H = "0123456789abcdef"


def _bundle(path: str, **fingerprint: Any) -> LocatorBundle:
    return LocatorBundle.parse(
        {
            "candidates": [
                {"strategy": "role-name", "selector": f"role=button name={H}", "matchCount": 1},
                {"strategy": "css", "selector": path, "matchCount": 1},
            ],
            "fingerprint": {
                "tag": "button",
                "role": "button",
                "parentPath": ["td", "tr", "tbody", "table", "body", "html"],
                "textHash": H,
                "nameHash": H,
                "rowHash": H,
                "attributes": {"class": H, "href": H},
                **fingerprint,
            },
        }
    )


PATH = "#users > tbody > tr:nth-of-type(4) > td:nth-of-type(3) > button"


def test_rows_like_this_one_keep_the_row_path_and_the_element_by_role_name_and_place() -> None:
    bound = LocatorBundle.parse(bound_target(_bundle(PATH), "q", "rows"))
    assert bound.row is not None
    assert [c.selector for c in bound.row.candidates] == ["#users > tbody > tr"]
    assert bound.row.fingerprint.tag == "tr"
    assert bound.row.fingerprint.parent_path == ("tbody", "table", "body", "html")
    assert [c.selector for c in bound.candidates] == [
        f"role=button name={H}",
        ":scope > td:nth-of-type(3) > button",
    ]
    assert bound.filter is not None
    assert bound.filter.contains_token.to_json() == {"ref": "parameter", "name": "q"}
    fp = bound.fingerprint
    assert (fp.text_hash, fp.row_hash, fp.name_hash) == (None, None, H)
    assert "href" not in fp.attributes


def test_elements_like_this_one_drop_positions_but_a_cells_column_and_every_text_hash() -> None:
    bound = LocatorBundle.parse(bound_target(_bundle(PATH), "q", "elements"))
    assert [c.selector for c in bound.candidates] == ["#users > tbody > tr > td:nth-of-type(3) > button"]
    assert bound.row is None
    assert bound.fingerprint.name_hash is None
    assert bound.fingerprint.attributes == {}


@pytest.mark.parametrize(
    ("path", "over", "why"),
    [
        ("#save", "rows", "no row"),
        ("div > button", "rows", "no row"),
        ("main button.x", "elements", "no structural path"),
    ],
)
def test_a_target_without_a_path_or_a_row_is_refused(path: str, over: Any, why: str) -> None:
    with pytest.raises(BindProblem, match=why):
        bound_target(_bundle(path), "q", over)


def test_a_target_already_chosen_by_an_input_is_refused() -> None:
    bound = LocatorBundle.parse(bound_target(_bundle(PATH), "q", "rows"))
    with pytest.raises(BindProblem, match="already chosen"):
        bound_target(bound, "q", "rows")


def _users() -> Draft:
    """navigate, type q, type a password, click a row's button (a plain recorded target)."""
    return factory.graph_draft(
        [
            NavigateAction(id="a1", url="http://127.0.0.1:8000/app"),
            TypeAction(id="a2", target=factory.bundle("#q"), value=ParameterRef(name="q")),
            TypeAction(id="a3", target=factory.bundle("#pw"), value=ParameterRef(name="pw")),
            ClickAction(id="a4", target=_bundle(PATH)),
        ],
        parameters=[Parameter(name="pw", sensitive=True)],
    )


def _bind(**edit: Any) -> EditPatch:
    return EditPatch.parse({"schema": "skillreel.edit/v1", "edits": [{"op": "bind-target", **edit}]})


def test_the_bind_target_edit_makes_a_click_the_one_of_the_row_showing_the_input() -> None:
    edited = apply_edits(_users(), _bind(step="a4", by="q")).draft  # over rows unless told
    click = edited.actions[3]
    assert isinstance(click, ClickAction)
    assert click.target.row is not None
    assert click.target.filter is not None
    by_elements = apply_edits(_users(), _bind(step="a4", by="q", over="elements")).draft.actions[3]
    assert isinstance(by_elements, ClickAction)
    assert by_elements.target.row is None
    assert by_elements.target.filter is not None


@pytest.mark.parametrize(
    ("edit", "code"),
    [
        ({"step": "a2", "by": "q"}, "SR_RECORD_EDIT_INVALID"),  # a type step, not a click
        ({"step": "a4", "by": "nope"}, "SR_RECORD_EDIT_REFERENCE"),  # no such input
        ({"step": "a4", "by": "pw"}, "SR_RECORD_EDIT_SENSITIVE"),  # a secret never chooses
        ({"step": "a9", "by": "q"}, "SR_RECORD_EDIT_REFERENCE"),  # no such step
    ],
)
def test_a_bind_target_edit_is_refused_with_a_clear_code(edit: dict[str, Any], code: str) -> None:
    draft = _users()
    with pytest.raises(EditProblem) as caught:
        apply_edits(draft, _bind(**edit))
    assert caught.value.code == code
    assert code in CODES


def _page_click() -> PageEvent:
    return PageEvent.parse({"v": 1, "type": "click", "target": _bundle(PATH).to_json()})


def _log_with_fields() -> CaptureLog:
    log = CaptureLog(salt=SALT)
    log.start("http://127.0.0.1:8000/app")
    for hint, control, value in (("q", "search", "Smith"), ("pw", "password", None)):
        field = {"control": control, "paramHint": hint, "sensitive": control == "password"}
        edit: dict[str, Any] = {
            "v": 1,
            "type": "input",
            "target": _bundle("#" + hint).to_json(),
            "field": field,
        }
        if value is not None:
            edit["value"] = value
        log.accept(0, PageEvent.parse(edit), "http://127.0.0.1:8000/app")
    return log


def test_the_automation_binding_chooses_the_click_by_the_last_edit_of_that_input() -> None:
    log = _log_with_fields()
    log.bind_next_click("q", "rows")
    assert log.bind_problem == "no click was recorded"
    log.accept(0, _page_click(), "http://127.0.0.1:8000/app")
    assert log.bind_problem is None
    click = log.events[-1]
    assert click.chosen_by == 1  # the seq of the edit of q
    assert click.target is not None
    assert click.target.row is not None
    log.accept(0, _page_click(), "http://127.0.0.1:8000/app")  # the binding was for one click only
    assert log.events[-1].chosen_by is None


@pytest.mark.parametrize(
    ("by", "why"), [("pw", "sensitive"), ("nobody", "no field typed into before it makes input")]
)
def test_the_automation_binding_refuses_a_sensitive_or_unknown_input(by: str, why: str) -> None:
    log = _log_with_fields()
    log.bind_next_click(by, "rows")
    log.accept(0, _page_click(), "http://127.0.0.1:8000/app")
    assert log.bind_problem is not None
    assert why in log.bind_problem
    assert log.events[-1].chosen_by is None


def test_a_row_target_the_page_sends_without_its_input_is_a_persons_step() -> None:
    log = _log_with_fields()
    rowed = LocatorBundle.parse(bound_target(_bundle(PATH), "q", "rows")).model_copy(update={"filter": None})
    log.accept(0, PageEvent.parse({"v": 1, "type": "click", "target": rowed.to_json()}), "http://x.test/")
    assert log.events[-1].type == "human"
