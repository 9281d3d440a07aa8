"""`skillreel policy` shows the policy in force; `skillreel policy set FILE --approve` replaces it."""

from __future__ import annotations

from pathlib import Path

import click

from ..services.store_policy import set_policy, show_policy
from ..store import Store
from .output import approve_option, emit, json_option


@click.group("policy", invoke_without_command=True)
@json_option
@click.pass_context
def command(ctx: click.Context, as_json: bool) -> None:
    """Show or set the store policy."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = {"as_json": as_json}  # `policy --json set FILE` means the same as `policy set FILE --json`
        return
    with Store.open() as store:
        view = show_policy(store)
    source = "default policy" if view.default else "policy"
    lines = [f"{key}: {value}" for key, value in view.policy.to_json().items()]
    emit(view.to_json(), as_json=as_json, human="\n".join([source, *lines]))


@command.command("set")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=True, exists=False))
@approve_option
@json_option
@click.pass_context
def set_command(ctx: click.Context, file: Path, approve: bool, as_json: bool) -> None:
    """Replace the policy with FILE (see `skillreel policy-template`)."""
    as_json = as_json or bool((ctx.obj or {}).get("as_json"))
    with Store.open() as store:
        change = set_policy(store, file, approve=approve)
    human = (
        "policy updated: " + ", ".join(f"{k} {a} -> {b}" for k, a, b in change.changes)
        if change.changes
        else "the policy already says that; nothing changed"
    )
    emit(change.to_json(), as_json=as_json, human=human)
