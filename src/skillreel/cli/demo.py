"""``skillreel demo``: the whole journey on the bundled invoice desk."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..model.limits import ANY_FREE_PORT, PORT_RANGE
from .output import console, emit, json_option

if TYPE_CHECKING:
    from rich.console import Console


@click.command("demo")
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    help="Use this SKILLREEL_HOME instead of a temporary one.",
)
@click.option("--keep", is_flag=True, help="Keep the temporary directory (home, project, logs).")
@click.option(
    "--port",
    type=click.IntRange(*PORT_RANGE),
    default=ANY_FREE_PORT,
    show_default=True,
    help="Port for the demo app on 127.0.0.1 (0: any free port).",
)
@click.option("--fast", is_flag=True, help="Shorter settle time between steps (used by the test suite).")
@json_option
def command(home: Path | None, keep: bool, port: int, fast: bool, as_json: bool) -> None:
    """Record, review, replay, heal, refuse, enable, serve over MCP, upload and download, revoke, audit."""
    from ..demo.journey import StageResult, run

    started = time.monotonic()
    out = None if as_json else console()

    def starting(number: int, total: int, stage: str) -> None:
        if out is not None:
            out.print(f"[dim]\\[{number}/{total}] {stage} ...[/]")

    def show(result: StageResult) -> None:
        if out is not None:
            from rich.markup import escape

            out.print(
                f"[green]✓[/] [bold]{result.stage:<7}[/] {escape(result.summary)} "
                f"[dim]({result.seconds:.1f} s)[/]"
            )

    if out is not None:
        out.print("[bold]skillreel demo[/]: the invoice desk, from one demonstration to an MCP tool")
    demo = run(
        home=home, keep=keep, port=port, settle_ms=50 if fast else 150, on_stage=show, on_start=starting
    )
    total = time.monotonic() - started
    data: dict[str, Any] = {
        "seconds": round(total, 1),
        "home": str(demo.home),
        "keptDirectory": str(demo.workdir) if demo.workdir else None,
        "stages": [r.to_json() for r in demo.results],
    }

    def human(c: Console) -> None:
        c.print(f"[bold green]{len(demo.results)} stages passed[/] in {total:.1f} s")
        if demo.workdir:
            c.print(f"files kept in {demo.workdir} (home: {demo.home})", markup=False)

    emit(data, as_json=as_json, human=human)
