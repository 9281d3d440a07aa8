"""`skillreel login set NAME FILE | list | delete NAME --approve`: signed-in browser states in the
vault, which skills sign in with by name (the body is never printed, stored or exported).
`skillreel session` is its old name, an alias kept for one version (``cli.main.ALIASES``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..services.logins import delete_login, list_logins, set_login
from ..store import Store
from .output import approve_option, emit, json_option


def _as_json(ctx: click.Context, as_json: bool) -> bool:
    return as_json or bool((ctx.obj or {}).get("as_json"))


def _line(s: dict[str, Any]) -> str:
    expires = f", expires {s['expiresAt']}" if s["expiresAt"] else ""
    skills = f"; skills: {', '.join(s['skills'])}" if s["skills"] else ""
    return (
        f"{s['name']}: {s['cookies']} cookie(s), {s['origins']} origin(s) in the {s['backend']}, "
        f"set {s['setAt']}{expires}{skills}"
    )


@click.group("login")
@json_option
@click.pass_context
def command(ctx: click.Context, as_json: bool) -> None:
    """Keep signed-in browser states (logins) in the vault."""
    ctx.obj = {"as_json": as_json}


@command.command("set")
@click.argument("name")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=True, exists=False))
@json_option
@click.pass_context
def set_command(ctx: click.Context, name: str, file: Path, as_json: bool) -> None:
    """Store the Playwright storage state FILE as login NAME (replacing it)."""
    with Store.open() as store:
        result = set_login(store, name, file)
    data = result.to_json()
    verb = "replaced" if result.replaced else "stored"
    emit(data, as_json=_as_json(ctx, as_json), human=f"{verb} login {_line(data)}")


@command.command("list")
@json_option
@click.pass_context
def list_command(ctx: click.Context, as_json: bool) -> None:
    """List the logins in the vault (names and counts, never their content)."""
    with Store.open() as store:
        data = list_logins(store).to_json()
    human = "\n".join(_line(s) for s in data["sessions"]) or "no logins"
    emit(data, as_json=_as_json(ctx, as_json), human=human)


@command.command("delete")
@click.argument("name")
@approve_option
@json_option
@click.pass_context
def delete_command(ctx: click.Context, name: str, approve: bool, as_json: bool) -> None:
    """Delete login NAME from the vault."""
    with Store.open() as store:
        result = delete_login(store, name, approve=approve)
    emit(result.to_json(), as_json=_as_json(ctx, as_json), human=f"deleted login {name}")
