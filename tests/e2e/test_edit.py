"""`skillreel edit` and `skillreel show` on a v2 draft, through the console script: a patch file
good and bad, the $EDITOR round trip, the graph rendering, SKILL.md inputs and outputs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from skillreel.agent_skills.skill_md import render_skill_md
from skillreel.model import lifecycle
from skillreel.model.actions import ClickAction, ExtractAction, NavigateAction, SelectAction, TypeAction
from skillreel.model.draft import Parameter
from skillreel.model.reads import FieldSpec
from skillreel.model.refs import ParameterRef
from skillreel.store import AuditNote, Store
from tests.support import factory
from tests.support.cli import CliResult, cli, run_cli

pytestmark = pytest.mark.slow  # a dozen console-script runs

NAME = "invoice-desk"


def desk_entry() -> Any:
    rows = ExtractAction(
        id="a5",
        output="rows",
        read="list",
        items=factory.element_set(),
        fields=(FieldSpec(name="invoice", target=factory.target(":scope > td:nth-of-type(1)")),),
        limit=50,
    )
    draft = factory.graph_draft(
        [
            NavigateAction(id="a1", url="http://127.0.0.1:8000/app"),
            TypeAction(id="a2", target=factory.bundle("#q"), value=ParameterRef(name="q")),
            SelectAction(
                id="a3", target=factory.bundle("#region", tag="select"), value=ParameterRef(name="region")
            ),
            ClickAction(
                id="a4", target=factory.target("tbody a", tag="a", token=ParameterRef(name="q"), count=20)
            ),
            rows,
            ExtractAction(id="a6", output="total", target=factory.target("#total", tag="b"), type="number"),
        ],
        name=NAME,
        parameters=[Parameter(name="region", type="enum", values=("north", "south"))],
        environment=factory.url_environment(),
    )
    return lifecycle.new_entry(draft, factory.events_log(), factory.T0)


def seeded(home: Path) -> None:
    with Store.open(home) as store:
        store.insert(desk_entry(), AuditNote(kind="record"))


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data))
    return path


def current(home: Path) -> Any:
    with Store.open(home) as store:
        return store.get(NAME)


def refused(result: CliResult, code: str, step: str | None) -> None:
    assert result.exit_code == 2, result.stdout + result.stderr
    error = result.json()["error"]
    assert error["code"] == code
    assert error["actionId"] == step


def test_a_patch_makes_a_new_draft_revision(tmp_path: Path, skillreel_home: Path) -> None:
    seeded(skillreel_home)
    patch = write(
        tmp_path / "p.json",
        {
            "schema": "skillreel.edit/v1",
            "revision": 1,
            "edits": [
                {"op": "set-parameter", "name": "q", "type": "integer", "description": "The invoice number"},
                {"op": "rename-parameter", "name": "q", "to": "invoice"},
                {"op": "set-step", "step": "a4", "intent": "Open the matching invoice"},
                {"op": "add-wait", "after": "a4", "target": "a6"},
                {"op": "set-output", "name": "total", "description": "The invoice total"},
            ],
        },
    )
    checked = cli(skillreel_home, "edit", NAME, "--patch", str(patch), "--check")
    assert checked.exit_code == 0, checked.stderr
    assert (checked.data()["stored"], current(skillreel_home).revision) == (False, 1)
    result = cli(skillreel_home, "edit", NAME, "--patch", str(patch))
    assert result.exit_code == 0, result.stderr
    data = result.data()
    assert (data["revision"], data["previousRevision"], data["status"], data["stored"]) == (
        2,
        1,
        "draft",
        True,
    )
    entry = current(skillreel_home)
    assert entry.draft.draft_digest == data["draftDigest"]
    assert [p.name for p in entry.draft.parameters] == ["invoice", "region"]
    with Store.open(skillreel_home) as store:
        assert [e.kind for e in store.audit_events(NAME)] == ["record", "edit"]
    again = cli(skillreel_home, "edit", NAME, "--patch", str(patch))  # the patch names revision 1
    assert again.exit_code == 1
    assert again.json()["error"]["code"] == "SR_RECORD_REVISION_CONFLICT"

    shown = cli(skillreel_home, "show", NAME)
    assert shown.exit_code == 0
    view = shown.data()
    assert view["inputs"][0] == {
        "name": "invoice",
        "required": True,
        "sensitive": False,
        "schema": {"type": "integer", "description": "The invoice number"},
    }
    assert [o["name"] for o in view["outputs"]] == ["rows", "total"]
    assert view["outputSchema"]["properties"]["total"]["type"] in ("number", ["number", "null"])
    human = cli_human(skillreel_home, "show", NAME)
    assert "${inputs.invoice}" in human
    assert "-> outputs.total (number)" in human
    assert "Open the matching invoice" in human  # the written intent, in place of the generated one

    skill_md = render_skill_md(entry, entry.revision)
    assert "## Outputs" in skill_md
    assert '`{"type":"integer","description":"The invoice number"}`' in skill_md
    assert '`{"type":"string","enum":["north","south"]}`' in skill_md
    assert "| `total` | number | no | The invoice total |" in skill_md
    assert "(the one whose text holds `inputs.invoice`)" in skill_md


def cli_human(home: Path, *args: str) -> str:
    from tests.support.cli import run_cli

    result = run_cli(*args, env={"SKILLREEL_HOME": str(home), "COLUMNS": "300"})
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_the_next_hint_names_the_revision_to_pass(tmp_path: Path, skillreel_home: Path) -> None:
    """Issue 31.7: a check's hint is the same edit stored against the revision it read; a stored
    edit's hint reviews the new revision (both with ``--expected-revision``)."""
    seeded(skillreel_home)
    edits = [{"op": "set-step", "step": "a4", "intent": "Open the matching invoice"}]
    patch = write(tmp_path / "p.json", {"schema": "skillreel.edit/v1", "edits": edits})
    checked = run_cli("edit", NAME, "--patch", str(patch), "--check")
    assert checked.exit_code == 0, checked.stderr
    assert f"next: skillreel edit {NAME} --patch {patch} --expected-revision 1\n" in checked.stdout
    stored = run_cli("edit", NAME, "--patch", str(patch), "--expected-revision", "1")
    assert stored.exit_code == 0, stored.stderr
    assert "--reviewer ID --expected-revision 2 --approve\n" in stored.stdout


def test_bad_patches_change_nothing(tmp_path: Path, skillreel_home: Path) -> None:
    seeded(skillreel_home)
    before = current(skillreel_home)
    cases: list[tuple[Any, str, str | None]] = [
        ({"edits": [{"op": "delete-step", "step": "a42"}]}, "SR_RECORD_EDIT_REFERENCE", "a42"),
        ({"edits": [{"op": "add-wait", "after": "a4", "target": "a1"}]}, "SR_RECORD_EDIT_REFERENCE", "a1"),
        (
            {"edits": [{"op": "wrap-loop", "steps": ["a2"], "over": "a6", "limit": 5}]},
            "SR_RECORD_EDIT_INVALID",
            "a6",
        ),
        (
            {"edits": [{"op": "wrap-loop", "steps": ["a4"], "over": "a5", "limit": 5000}]},
            "SR_RECORD_LOOP_BOUND",
            "a7",
        ),
        ({"edits": [{"op": "add-target", "selector": "#x"}]}, "SR_RECORD_INPUT_MALFORMED", None),
        ({"edits": []}, "SR_RECORD_INPUT_MALFORMED", None),
        ("{not json", "SR_RECORD_INPUT_MALFORMED", None),
    ]
    for n, (document, code, step) in enumerate(cases):
        path = tmp_path / f"bad{n}.json"
        path.write_text(document if isinstance(document, str) else json.dumps(document))
        refused(cli(skillreel_home, "edit", NAME, "--patch", str(path)), code, step)
    assert current(skillreel_home) == before
    refused(
        cli(skillreel_home, "edit", NAME, "--patch", str(tmp_path / "missing.json")),
        "SR_RECORD_INPUT_NOT_REGULAR",
        None,
    )
    unknown = cli(skillreel_home, "edit", "no-such-skill", "--patch", str(tmp_path / "bad0.json"))
    assert unknown.json()["error"]["code"] == "SR_RECORD_NOT_FOUND"


def test_the_editor_round_trip(tmp_path: Path, skillreel_home: Path) -> None:
    seeded(skillreel_home)
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import json, sys\n"
        "path = sys.argv[1]\n"
        "doc = json.load(open(path))\n"
        "doc['parameters'][0]['description'] = 'The invoice number'\n"
        "doc['steps'][3]['optional'] = True\n"
        "doc['steps'] = [s for s in doc['steps'] if s['id'] != 'a5']\n"
        "json.dump(doc, open(path, 'w'))\n"
    )
    result = cli(skillreel_home, "edit", NAME, env={"EDITOR": f"{sys.executable} {editor}"})
    assert result.exit_code == 0, result.stdout + result.stderr
    draft = current(skillreel_home).draft
    assert draft.parameter("q") == Parameter(name="q", description="The invoice number")
    click = draft.action("a4")
    assert isinstance(click, ClickAction)
    assert click.optional
    assert draft.action("a5") is None
    assert [o.name for o in draft.outputs] == ["total"]
    unchanged = cli(skillreel_home, "edit", NAME, env={"EDITOR": "true"})
    assert unchanged.exit_code == 2
    assert unchanged.json()["error"]["code"] == "SR_RECORD_EDIT_INVALID"
