"""`skillreel delete NAME --approve`: delete a skill that is not enabled, with its history."""

from __future__ import annotations

import click

from ..model.limits import MAX_OPTION_NUMBER
from ..services.deleting import delete_skill
from ..store import Store
from .completion import complete_skill_name
from .output import approve_option, emit, json_option


@click.command("delete")
@click.argument("name", shell_complete=complete_skill_name)
@click.option(
    "--expected-revision",
    type=click.IntRange(1, MAX_OPTION_NUMBER),
    help="The revision you read (what `show` printed); required with --approve: delete only "
    "if the skill is still at it.",
)
@approve_option
@json_option
def command(name: str, expected_revision: int | None, approve: bool, as_json: bool) -> None:
    """Delete a skill that is not enabled."""
    with Store.open() as store:
        result = delete_skill(store, name, approve=approve, expected_revision=expected_revision)
    emit(
        result.to_json(),
        as_json=as_json,
        human=f"deleted {result.name} (was revision {result.revision})",
        warnings=result.warnings,
    )
