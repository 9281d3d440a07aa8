"""`skillreel show-trace DIR|FILE`: a replay's trace in Playwright's trace viewer."""

from __future__ import annotations

from pathlib import Path

import click

from ..services.trace_viewing import show_trace
from .output import json_option


@click.command("show-trace")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=None,
    help="Serve the viewer on 127.0.0.1:PORT (0: any free port) and open it in a browser tab, "
    "instead of Playwright's own window.",
)
@json_option
def command(path: Path, port: int | None, as_json: bool) -> None:
    """Open a replay's trace (the DIR of `replay --artifacts DIR`, or a trace.zip) in Playwright's
    trace viewer: each step is a group titled with its id and intent, the failed one marked with its
    code. The trace holds page content: keep it private. With --json a refusal is one envelope; a
    viewer that opens prints nothing (it runs until closed)."""
    show_trace(path, port=port)
