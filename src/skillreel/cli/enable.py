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
@click.option(
    "--confirm-agent-play",
    "confirm_agent_play",
    is_flag=True,
    help="Also confirm that agents may play this approved revision over MCP without asking you on "
    "the first play (on an enabled skill: confirm only).",
)
@approve_option
@json_option
def command(
    name: str,
    scope: str,
    project_dir: Path | None,
    expected_revision: int | None,
    confirm_agent_play: bool,
    approve: bool,
    as_json: bool,
) -> None:
    """Install a validated skill as an Agent Skills package."""
    if confirm_agent_play and _confirm_only(name, expected_revision, approve, as_json):
        return
    with Store.open() as store:
        result = enable_skill(
            store,
            name,
            "user" if scope == "user" else "project",
            project_dir,
            approve=approve,
            expected_revision=expected_revision,
        )
        if confirm_agent_play:
            from ..services.agent_access import confirm_enabled_skill

            confirm_enabled_skill(store, name, approve=True, expected_revision=result.revision)
    data = {**result.to_json(), **({"agentPlayConfirmed": True} if confirm_agent_play else {})}
    emit(
        data,
        as_json=as_json,
        human=lambda out: _human(out, result, confirm_agent_play),
        warnings=result.warnings,
    )


def _confirm_only(name: str, expected_revision: int | None, approve: bool, as_json: bool) -> bool:
    """``--confirm-agent-play`` on a skill enabled already: confirm it, enable nothing (True)."""
    from ..services.agent_access import confirm_enabled_skill

    with Store.open() as store:
        entry = store.find(name)
        if entry is None or entry.status != "enabled":
            return False
        done = confirm_enabled_skill(store, name, approve=approve, expected_revision=expected_revision)
    human = f"agents may play {done.name} revision {done.revision} without asking first"
    emit(done.to_json(), as_json=as_json, human=human)
    return True


def _human(out: Console, result: EnableResult, confirmed: bool = False) -> None:
    from rich.markup import escape

    out.print(f"enabled {result.name} at revision {result.revision} ({result.package_digest})")
    for path in result.installations:
        out.print(f"  installed {escape(path)}")
    if confirmed:
        out.print("  agents may play this revision without asking first")
