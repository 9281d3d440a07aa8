"""`skillreel rollback NAME --to N --approve`: a new draft from an older revision's draft."""

from __future__ import annotations

import click

from ..model.limits import MAX_OPTION_NUMBER
from ..services.rolling_back import rollback_skill
from ..store import Store
from .completion import complete_skill_name
from .output import approve_option, emit, json_option


@click.command("rollback")
@click.argument("name", shell_complete=complete_skill_name)
@click.option(
    "--to",
    "to",
    type=click.IntRange(1, MAX_OPTION_NUMBER),
    required=True,
    help="The kept revision to go back to.",
)
@click.option(
    "--expected-revision",
    type=click.IntRange(1, MAX_OPTION_NUMBER),
    help="The revision you read (what `show` printed); required with --approve: roll back only "
    "if the skill is still at it.",
)
@approve_option
@json_option
def command(name: str, to: int, expected_revision: int | None, approve: bool, as_json: bool) -> None:
    """Make a new draft from an older revision (it needs a new review)."""
    with Store.open() as store:
        result = rollback_skill(store, name, to, approve=approve, expected_revision=expected_revision)
    restored = f" (version {result.version})" if result.version else ""
    emit(
        result.to_json(),
        as_json=as_json,
        human=f"{result.name} revision {result.revision} is a draft holding revision {result.rolled_back_to}"
        f"{restored}; review it: skillreel review {result.name} --reviewer ID --expected-revision "
        f"{result.revision} --approve",
    )
