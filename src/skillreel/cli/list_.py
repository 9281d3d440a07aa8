"""`skillreel list`: every skill with its state and revision (summary columns only, fast)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..services.listing import SkillList, list_skills
from ..store import Store
from .output import Render, emit, json_option

if TYPE_CHECKING:
    from rich.console import Console


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
        for column in ("name", "status", "version", "rev", "updated"):
            table.add_column(column, no_wrap=True)
        table.add_column("description", no_wrap=True, overflow="ellipsis", ratio=1)
        for s in result.skills:
            table.add_row(s.name, s.status, s.version or "-", str(s.revision), s.updated_at, s.description)
        console.print(table)
        console.print(f"[dim]{store}[/]")

    return render


@click.command("list")
@json_option
def command(as_json: bool) -> None:
    """List skills with their state and revision."""
    with Store.open() as store:
        result = list_skills(store)
    emit(result.to_json(), as_json=as_json, human=_human(result))
