"""`skillreel env list|set|remove|strip-query SKILL ...`: the named environments a skill may replay
on (another origin of the same app), and the query keys its URLs keep. Every change is a new draft
revision that needs a review."""

from __future__ import annotations

from typing import Any

import click

from ..model.limits import MAX_OPTION_NUMBER
from ..services.declaring import list_environments, remove_environment, set_environment, strip_query
from ..store import Store
from .output import emit, json_option

_REVISION = click.option(
    "--expected-revision",
    type=click.IntRange(1, MAX_OPTION_NUMBER),
    help="The revision you read (what `show` printed); required for a change: change the skill only "
    "if it is still at it.",
)


def _as_json(ctx: click.Context, as_json: bool) -> bool:
    return as_json or bool((ctx.obj or {}).get("as_json"))


def _lines(data: dict[str, Any]) -> str:
    lines = []
    for env in data["environments"]:
        login = f", login {env['session']}" if env.get("session") else ""
        mark = "approved" if env["approved"] else "not approved"
        lines.append(
            f"  {env['name']}: {env['origin']} ({mark}), allowed origins "
            f"{', '.join(env['allowedOrigins'])}{login}"
        )
    return "\n".join(lines) or "  no environments declared"


@click.group("env")
@json_option
@click.pass_context
def command(ctx: click.Context, as_json: bool) -> None:
    """Declare the other origins a skill may replay on."""
    ctx.obj = {"as_json": as_json}


@command.command("list")
@click.argument("skill")
@json_option
@click.pass_context
def list_command(ctx: click.Context, skill: str, as_json: bool) -> None:
    """List the environments SKILL declares, and which the approval covers."""
    with Store.open() as store:
        data = list_environments(store, skill).to_json()
    emit(
        data,
        as_json=_as_json(ctx, as_json),
        human=f"{data['name']} revision {data['revision']}\n" + _lines(data),
    )


@command.command("set")
@click.argument("skill")
@click.argument("environment")
@click.argument("origin")
@click.option(
    "--allowed-origin",
    "allowed_origins",
    multiple=True,
    help="Another exact origin this environment may use (repeat; default: the recorded ones, rebased).",
)
@click.option(
    "--login",
    "--session",
    "login",
    help="The vault login this environment signs in with (--session: its old name).",
)
@_REVISION
@json_option
@click.pass_context
def set_command(
    ctx: click.Context,
    skill: str,
    environment: str,
    origin: str,
    allowed_origins: tuple[str, ...],
    login: str | None,
    expected_revision: int | None,
    as_json: bool,
) -> None:
    """Declare (or change) ENVIRONMENT of SKILL on ORIGIN: a new draft revision."""
    with Store.open() as store:
        change = set_environment(
            store, skill, environment, origin, allowed_origins, login, expected_revision=expected_revision
        )
    data = change.to_json()
    head = (
        f"{data['name']} revision {data['revision']} (draft): review it before replaying"
        if change.changed
        else f"{data['name']} already declares that; nothing changed"
    )
    emit(data, as_json=_as_json(ctx, as_json), human=head + "\n" + _lines(data), warnings=change.warnings)


@command.command("remove")
@click.argument("skill")
@click.argument("environment")
@_REVISION
@json_option
@click.pass_context
def remove_command(
    ctx: click.Context, skill: str, environment: str, expected_revision: int | None, as_json: bool
) -> None:
    """Remove ENVIRONMENT from SKILL: a new draft revision."""
    with Store.open() as store:
        change = remove_environment(store, skill, environment, expected_revision=expected_revision)
    data = change.to_json()
    emit(
        data,
        as_json=_as_json(ctx, as_json),
        human=f"{data['name']} revision {data['revision']} (draft): review it before replaying\n"
        + _lines(data),
    )


@command.command("strip-query")
@click.argument("skill")
@click.argument("keys", metavar="KEY...", nargs=-1, required=True)
@_REVISION
@json_option
@click.pass_context
def strip_query_command(
    ctx: click.Context, skill: str, keys: tuple[str, ...], expected_revision: int | None, as_json: bool
) -> None:
    """Strip query KEYs from SKILL's URLs and from the page URLs it compares: a new draft revision."""
    with Store.open() as store:
        change = strip_query(store, skill, keys, expected_revision=expected_revision)
    data = change.to_json()
    query = data["query"] or {}
    head = (
        f"{data['name']} revision {data['revision']} (draft): review it before replaying"
        if change.changed
        else f"{data['name']} already strips them; nothing changed"
    )
    lines = [head, "stripped by the reviewer: " + ", ".join(query.get("strip", []))]
    if query.get("keep"):
        lines.append("kept by the reviewer: " + ", ".join(query["keep"]))
    from rich.markup import escape

    emit(data, as_json=_as_json(ctx, as_json), human=escape("\n".join(lines)))
