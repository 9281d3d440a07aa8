"""`skillreel edit NAME [--patch FILE]`: a new draft revision from structured, reviewed edits.

With ``--patch`` the edits come from a ``skillreel.edit/v1`` file; without it the draft opens in
``$EDITOR`` as a readable JSON document (parameters, outputs, steps) and the changes saved become
the edits. Either way the result is validated and stored as a draft that needs review again.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import click

from ..errors import InputError
from ..model.limits import MAX_OPTION_NUMBER
from ..services.editing import EditResult, edit_skill, editable, patch_from_editable, read_patch
from ..store import Store
from .completion import complete_skill_name
from .output import emit, json_option


def _from_editor(store: Store, name: str) -> tuple[object, dict[str, object]]:
    before = editable(store, name)
    text = click.edit(json.dumps(before, indent=2, ensure_ascii=False) + "\n", extension=".json")
    if text is None:
        raise InputError("SR_RECORD_EDIT_INVALID", "the editor saved no change; nothing was stored")
    try:
        return json.loads(text), before
    except ValueError:
        raise InputError("SR_RECORD_EDIT_INVALID", "the edited document is not valid JSON") from None


def _human(result: EditResult, command: str) -> str:
    data = result.to_json()
    verb = "edited" if data["stored"] else "checked (nothing stored):"
    dropped = f"; parameters no step uses any more were dropped: {', '.join(data['droppedParameters'])}"
    # a check stored nothing: its next step is the same edit, stored against the revision it read
    after = (
        f"skillreel show {data['name']}, then skillreel review {data['name']} --reviewer ID "
        f"--expected-revision {data['revision']} --approve"
        if data["stored"]
        else f"{command} --expected-revision {data['previousRevision']}"
    )
    return (
        f"{verb} {data['name']} revision {data['revision']} (draft, {data['schema']}) {data['draftDigest']}"
        + (dropped if data["droppedParameters"] else "")
        + f"\nnext: {after}"
    )


@click.command("edit")
@click.argument("name", shell_complete=complete_skill_name)
@click.option(
    "--patch", "patch_path", type=click.Path(path_type=Path), help="A skillreel.edit/v1 patch file."
)
@click.option(
    "--expected-revision",
    type=click.IntRange(1, MAX_OPTION_NUMBER),
    help="The revision the edits were written against (what `show` printed); storing needs it or the "
    "patch's revision.",
)
@click.option("--check", is_flag=True, help="Validate the edits and show the result; store nothing.")
@json_option
def command(
    name: str, patch_path: Path | None, expected_revision: int | None, check: bool, as_json: bool
) -> None:
    """Make a new draft revision from structured, reviewed edits."""
    with Store.open() as store:
        if patch_path is not None:
            patch = read_patch(patch_path)
        else:
            after, before = _from_editor(store, name)
            patch = patch_from_editable(before, after)
        words = ["skillreel", "edit", name, *(["--patch", str(patch_path)] if patch_path is not None else [])]
        result = edit_skill(
            store, name, patch, expected_revision=expected_revision, check=check, command=shlex.join(words)
        )
    emit(result.to_json(), as_json=as_json, human=_human(result, shlex.join(words)))
