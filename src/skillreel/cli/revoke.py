"""`skillreel revoke NAME --approve`: remove an enabled skill's packages, transactionally."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..model.limits import MAX_OPTION_NUMBER
from ..services.packaging import RevokeResult, revoke_skill
from ..store import Store
from .completion import complete_skill_name
from .output import approve_option, emit, json_option

if TYPE_CHECKING:
    from rich.console import Console


@click.command("revoke")
@click.argument("name", shell_complete=complete_skill_name)
@click.option(
    "--project-dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Also look for a project install under this directory, as well as where it was installed "
    "(for a project that moved).",
)
@click.option(
    "--expected-revision",
    type=click.IntRange(1, MAX_OPTION_NUMBER),
    help="The revision you read (what `show` printed); required with --approve: revoke only "
    "if the skill is still at it.",
)
@approve_option
@json_option
def command(
    name: str, project_dir: Path | None, expected_revision: int | None, approve: bool, as_json: bool
) -> None:
    """Remove an enabled skill's packages, transactionally."""
    with Store.open() as store:
        result = revoke_skill(store, name, project_dir, approve=approve, expected_revision=expected_revision)
    emit(result.to_json(), as_json=as_json, human=lambda out: _human(out, result), warnings=result.warnings)


def _human(out: Console, result: RevokeResult) -> None:
    from rich.markup import escape

    out.print(f"revoked {result.name} at revision {result.revision}")
    for path in result.removed:
        out.print(f"  removed {escape(path)}")
    for path in result.absent:
        out.print(f"  already absent {escape(path)}")
    for path in result.leftovers:
        out.print(f"  [yellow]could not delete[/] {escape(path)} (remove it by hand)")
