"""`skillreel list`: every skill with its state and revision (summary columns only, fast)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..services.listing import SkillList, list_skills
from ..store import Store
from .output import Render, emit, json_option

if TYPE_CHECKING:
    from rich.console import Console

    from ..model.trust import TrustScore


def _human(result: SkillList) -> Render:
    def render(console: Console) -> None:
        size = result.store_size
        store = f"store: {size.used_bytes / 2**20:.1f} MiB of {size.limit_bytes / 2**20:.1f} MiB"
        if not result.skills:
            console.print("No skills yet. Record one with `skillreel record NAME ...`.")
            console.print(f"[dim]{store}[/]")
            return
        from rich.table import Table

        table = Table(box=None, expand=True)
        for column in ("name", "status", "version", "rev", "updated", "runs"):
            table.add_column(column, no_wrap=True)
        table.add_column("description", no_wrap=True, overflow="ellipsis", ratio=1)
        for s in result.skills:
            runs = _runs_cell(result.trust_of(s.name))
            table.add_row(
                s.name, s.status, s.version or "-", str(s.revision), s.updated_at, runs, s.description
            )
        console.print(table)
        console.print(f"[dim]{store}[/]")

    return render


def _runs_cell(trust: TrustScore) -> str:
    """``12 95%`` (runs of the current draft, success over the last 20), or ``-``."""
    rate = trust.success_rate
    return "-" if rate is None else f"{trust.runs} {round(rate * 100)}%"


@click.command("list")
@json_option
def command(as_json: bool) -> None:
    """List skills with their state and revision."""
    with Store.open() as store:
        result = list_skills(store)
    emit(result.to_json(), as_json=as_json, human=_human(result))
