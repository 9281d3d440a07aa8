"""`skillreel show NAME [--revision N]`: the full projection a reviewer reads before approving."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from ..model.coverage import FINAL_CHECK_MISSING
from ..model.exposure import EXPOSED_READS
from ..model.limits import MAX_OPTION_NUMBER
from ..model.trust import TrustScore
from ..services.showing import show_skill
from ..store import Store
from .completion import complete_skill_name
from .graph_view import io_lines, step_lines
from .output import Render, emit, json_option

if TYPE_CHECKING:
    from rich.console import Console


def _human(view: dict[str, Any]) -> Render:
    def render(console: Console) -> None:
        from rich.markup import escape

        current = "" if view["current"] else "  [yellow](not the current revision)[/]"
        version = view["version"] or (
            f"draft after {view['lastVersion']}" if view["lastVersion"] else "draft"
        )
        console.print(
            f"[bold]{view['name']}[/] {version}, revision {view['revision']} - {view['status']}{current}"
        )
        console.print(escape(view["description"]))
        if view["origin"]:
            origin = view["origin"]
            restored = f" ({origin['version']})" if origin["version"] else ""
            console.print(f"[yellow]this draft is a rollback to revision {origin['revision']}{restored}[/]")
        env = view["environment"]
        console.print(f"environment: {env['kind']}, allowed origins {', '.join(env['allowedOrigins'])}")
        _sign_in_and_query(console, env)
        approved = (view["approval"] or {}).get("approvedEnvironments", [])
        for named in env["environments"]:
            mark = "approved" if named["name"] in approved else "not approved"
            login = f", login {named['session']}" if named.get("session") else ""
            console.print(
                f"  --env {named['name']}: {escape(named['origin'])} ({mark}), allowed origins "
                f"{escape(', '.join(named['allowedOrigins']))}{login}"
            )
        console.print(f"capabilities: {', '.join(view['capabilities'])}")
        io_lines(console, view)
        console.print(f"steps ({len(view['actions'])}):")
        step_lines(console, view["actions"])
        for cond in view["failureConditions"]:
            console.print(f"fails when: {escape(cond)}")
        if view["extractsAfterSecret"]:
            console.print(f"[yellow]{', '.join(view['extractsAfterSecret'])}: {EXPOSED_READS}[/]")
        if view.get("uncheckedSideEffect"):
            step = view["uncheckedSideEffect"]
            console.print(f"[yellow]{step}: the skill's last side effect; {FINAL_CHECK_MISSING}[/]")
        heal = view["healProposal"]
        if heal:
            console.print(f"[yellow]pending heal proposal[/] (from replay report {heal['reportDigest']}):")
            step_lines(console, heal["actions"])
            console.print(f"  see it step by step: skillreel diff {view['name']}")
            if len(view["healProposals"]) > 1:
                console.print(f"  ({len(view['healProposals']) - 1} older pending proposal(s) of this draft)")
        for record in view["provenance"]:
            console.print(
                f"version {record['version']} ({record['bump']}, {record['source']}) by {record['reviewer']}"
            )
        for key, digest in view["digests"].items():
            if digest:
                console.print(f"[dim]{key} digest {digest}[/]")
        revs = ", ".join(f"{r['revision']}:{r['status']}" for r in view["revisions"])
        console.print(f"revisions: {revs}")
        for run in view["lastRuns"]:
            code = f" {run['code']}" if run["code"] else ""
            when = f"run #{run['number']} {run['startedAt']} r{run['revision']}"
            console.print(f"{when} {run['actor']} {run['outcome']}{code}")
        if view.get("trust", {}).get("runs"):
            console.print(f"track record: {TrustScore.from_json(view['trust']).line()}")
        if view["runCount"] > len(view["lastRuns"]):
            console.print(f"[dim]{view['runCount']} runs in all: `skillreel runs {view['name']}`[/]")
        if view["store"]:
            console.print(store_line(view["store"]))
        console.print(f"next: {', '.join(view['next'])}")

    return render


def _sign_in_and_query(console: Console, env: dict[str, Any]) -> None:
    from rich.markup import escape

    if env.get("session"):
        console.print(f"signs in with vault login {env['session']}")
    elif env.get("storageStateDigest"):
        console.print(f"signs in with the storage-state file of digest {env['storageStateDigest']}")
    query = env.get("query")
    if env["kind"] != "url":
        return
    if query is None:
        console.print("query keys: the first rule (every token-like key name stripped)")
        return
    for label, key in (("kept", "keep"), ("stripped", "strip")):
        if query[key]:
            console.print(f"query keys {label} by the reviewer: {escape(', '.join(query[key]))}")
    if query["stripped"]:
        console.print(f"query keys stripped from the recorded URL: {escape(', '.join(query['stripped']))}")


def store_line(size: dict[str, int]) -> str:
    """``store: 1.2 MiB of 32.0 MiB (4%)``."""
    used, limit = size["bytes"], size["limitBytes"]
    return f"store: {used / 2**20:.1f} MiB of {limit / 2**20:.1f} MiB ({100 * used // max(limit, 1)}%)"


@click.command("show")
@click.argument("name", shell_complete=complete_skill_name)
@click.option(
    "--revision",
    type=click.IntRange(1, MAX_OPTION_NUMBER),
    help="Show this kept revision, not the current one.",
)
@json_option
def command(name: str, revision: int | None, as_json: bool) -> None:
    """Show one skill: actions, parameters, digests, installation."""
    with Store.open() as store:
        view = show_skill(store, name, revision).to_json()
    emit(view, as_json=as_json, human=_human(view))
