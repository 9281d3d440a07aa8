"""`skillreel runs NAME`: a skill's replay runs, newest first, a page at a time."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..model.limits import MAX_OPTION_NUMBER
from ..services.run_history import DEFAULT_PAGE, MAX_PAGE, RunPage, list_runs
from ..store import Store
from .completion import complete_skill_name
from .output import Render, emit, json_option

if TYPE_CHECKING:
    from rich.console import Console


def _human(page: RunPage) -> Render:
    def render(console: Console) -> None:
        if not page.runs:
            console.print(f"{page.name} has no runs yet.")
            return
        for view in page.runs:
            r = view.to_json()
            effects = " side effects" if r["sideEffects"] else ""
            healed = f" healed {','.join(r['healedSteps'])}" if r["healedSteps"] else ""
            code = f" {r['code']}" if r["code"] else ""
            console.print(
                f"#{r['number']:<6} {r['startedAt']} r{r['revision']} {r['actor']:<14} {r['outcome']:<11}"
                f"{code} {r['stepsRun']}/{r['stepsTotal']} steps{effects}{healed}"
            )
        more = page.to_json()["next"]
        tail = f"; older: --before {more['before']}" if more else ""
        console.print(f"[dim]{len(page.runs)} shown of {page.total} runs{tail}[/]")

    return render


@click.command("runs")
@click.argument("name", shell_complete=complete_skill_name)
@click.option(
    "--limit",
    type=click.IntRange(1, MAX_PAGE),
    default=DEFAULT_PAGE,
    show_default=True,
    help="Show at most this many runs (the newest first).",
)
@click.option(
    "--before",
    type=click.IntRange(1, MAX_OPTION_NUMBER),
    help="Only runs numbered below this (the next page).",
)
@json_option
def command(name: str, limit: int, before: int | None, as_json: bool) -> None:
    """List a skill's replay runs, newest first."""
    with Store.open() as store:
        page = list_runs(store, name, limit=limit, before=before)
    emit(page.to_json(), as_json=as_json, human=_human(page))
