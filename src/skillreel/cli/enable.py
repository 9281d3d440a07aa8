"""`skillreel enable NAME --approve`: install a validated skill as an Agent Skills package."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..model.limits import MAX_OPTION_NUMBER
from ..services.packaging import EnableResult, enable_skill
from ..store import Store
from .completion import complete_skill_name
from .output import approve_option, emit, json_option

if TYPE_CHECKING:
    from rich.console import Console


@click.command("enable")
@click.argument("name", shell_complete=complete_skill_name)
@click.option(
    "--scope",
    type=click.Choice(["project", "user"]),
    default="project",
    show_default=True,
    help="project: DIR/.agents/skills and DIR/.claude/skills; user: the same under your home "
    "(only when the policy allows global install).",
)
@click.option(
    "--project-dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The project to install into (default: the current directory).",
)
@click.option(
    "--expected-revision",
    type=click.IntRange(1, MAX_OPTION_NUMBER),
    help="The revision you read (what `show` printed); required with --approve: enable only "
    "if the skill is still at it.",
)
@approve_option
@json_option
def command(
    name: str,
    scope: str,
    project_dir: Path | None,
    expected_revision: int | None,
    approve: bool,
    as_json: bool,
) -> None:
    """Install a validated skill as an Agent Skills package."""
    with Store.open() as store:
        result = enable_skill(
            store,
            name,
            "user" if scope == "user" else "project",
            project_dir,
            approve=approve,
            expected_revision=expected_revision,
        )
    emit(result.to_json(), as_json=as_json, human=lambda out: _human(out, result), warnings=result.warnings)


def _human(out: Console, result: EnableResult) -> None:
    from rich.markup import escape

    out.print(f"enabled {result.name} at revision {result.revision} ({result.package_digest})")
    for path in result.installations:
        out.print(f"  installed {escape(path)}")
