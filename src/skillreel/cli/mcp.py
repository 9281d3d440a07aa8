"""`skillreel mcp`: serve the enabled skills over MCP on stdio (list and play; never record)."""

from __future__ import annotations

import click

from ..model.limits import BROWSER_IDLE_S_RANGE, DEFAULT_BROWSER_IDLE_S
from .output import json_option


@click.command("mcp")
@click.option(
    "--browser-idle",
    "browser_idle_s",
    type=click.IntRange(*BROWSER_IDLE_S_RANGE),
    default=DEFAULT_BROWSER_IDLE_S,
    show_default=True,
    help="Seconds the warm Chromium outlives the last play (0: a new Chromium for every play).",
)
@json_option
def command(browser_idle_s: int, as_json: bool) -> None:
    """Serve enabled skills over MCP (stdio).

    Register it with an agent, e.g. `claude mcp add skillreel -- skillreel mcp`. stdout carries only
    the protocol; logs go to stderr. `--json` only changes how a startup error is printed. One
    Chromium is kept between plays; every play gets a fresh isolated context and its own proxy.
    """
    from ..mcp.server import serve

    serve(browser_idle_s=float(browser_idle_s))
