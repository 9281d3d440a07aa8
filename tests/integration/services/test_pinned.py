"""Every change names the revision its caller read (issue 33, point 6): without it the change is
refused with SR_RECORD_REVISION_UNPINNED, naming that revision and the exact command, and nothing
changes; a check that stores nothing needs none."""

from __future__ import annotations

from pathlib import Path

from skillreel.record.edits import EditPatch
from skillreel.services.editing import edit_skill
from skillreel.services.packaging import enable_skill
from skillreel.store import Store
from tests.integration.services.store_checks import refused
from tests.support.factory import seed

NAME = "search-invoices"


def test_an_edit_names_its_revision_by_option_or_in_its_patch(store: Store, skillreel_home: Path) -> None:
    seed(store, NAME, "validated")
    revision = store.get(NAME).revision
    edits = {
        "schema": "skillreel.edit/v1",
        "edits": [{"op": "set-skill", "description": "Find one invoice."}],
    }
    patch = EditPatch.parse(edits)
    assert edit_skill(store, NAME, patch, check=True).stored is False  # a check stores nothing
    error = refused(
        skillreel_home,
        "SR_RECORD_REVISION_UNPINNED",
        lambda: edit_skill(store, NAME, patch, command=f"skillreel edit {NAME} --patch p.json"),
        2,
    )
    assert error.details == {
        "revision": revision,
        "command": f"skillreel edit {NAME} --patch p.json --expected-revision {revision}",
    }
    assert edit_skill(store, NAME, patch, expected_revision=revision).stored
    again = {"op": "set-skill", "failureConditions": ["Nothing found."]}
    own = EditPatch.parse({**edits, "revision": revision + 1, "edits": [again]})  # the patch names it
    edited = edit_skill(store, NAME, own)
    assert (edited.entry.revision, edited.entry.draft.failure_conditions) == (
        revision + 2,
        ("Nothing found.",),
    )


def test_an_enable_refusal_names_the_command_as_given(
    store: Store, skillreel_home: Path, project_dir: Path
) -> None:
    seed(store, NAME, "validated")
    error = refused(
        skillreel_home,
        "SR_RECORD_REVISION_UNPINNED",
        lambda: enable_skill(store, NAME, "project", project_dir, approve=True),
        2,
    )
    revision = store.get(NAME).revision
    assert error.details["command"] == (
        f"skillreel enable {NAME} --project-dir {project_dir} --expected-revision {revision} --approve"
    )
    assert not (project_dir / ".agents").exists()
