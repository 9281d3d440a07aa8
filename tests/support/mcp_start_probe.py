"""Run in a fresh interpreter (``python -m tests.support.mcp_start_probe``) by
tests/integration/mcp/test_start.py: start the MCP server as ``skillreel mcp`` builds it (its tools
and its lifespan), answer ``initialize`` and then ``skills_list`` over the SDK's in-memory transport,
and print, as one JSON document, which of skillreel's heavy parts each point had imported.

A fresh interpreter, because the test's own process has imported everything already; what is not
imported cannot have started (Chromium is launched only through ``skillreel.sandbox``)."""

from __future__ import annotations

import asyncio
import json
import sys

# Each: a module that, once imported, means start-up paid for the part it names.
WATCHED = (
    "playwright",  # Playwright's client (and so, potentially, its process and Chromium)
    "skillreel.sandbox.chromium",  # the only launcher of a Chromium
    "skillreel.sandbox.warm",  # the MCP server's warm Chromium
    "skillreel.replay.engine",  # the replay engine
    "skillreel.replay.driver",  # its Playwright driver
    "skillreel.record",  # the recorder
    "skillreel.services.replaying",  # the replay use case
    "skillreel.store",  # the SQLite store
)


def imported() -> list[str]:
    return [name for name in WATCHED if name in sys.modules]


async def probe() -> dict[str, list[str]]:
    from mcp import Client

    from skillreel.mcp.server import build_server

    seen: dict[str, list[str]] = {"built": imported()}
    async with Client(build_server(browser_idle_s=600), mode="legacy") as client:
        seen["initialized"] = imported()
        await client.call_tool("skills_list", {})
        seen["listed"] = imported()
    return seen


if __name__ == "__main__":
    sys.stdout.write(json.dumps(asyncio.run(probe())) + "\n")
