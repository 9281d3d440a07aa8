"""`skillreel mcp`: serve the enabled skills over MCP on stdio (list and play; never record)."""

from __future__ import annotations

import click

from .output import json_option


@click.command("mcp")
@json_option
def command(as_json: bool) -> None:
    """Serve enabled skills over MCP (stdio).

    Register it with an agent, e.g. `claude mcp add skillreel -- skillreel mcp`. stdout carries only
    the protocol; logs go to stderr. `--json` only changes how a startup error is printed.
    """
    from ..mcp.server import serve

    serve()
