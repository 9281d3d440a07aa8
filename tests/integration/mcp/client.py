"""Drive `python -m skillreel mcp` as a real subprocess with the official SDK's own stdio client."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from skillreel.model.envelope import Envelope
from tests.support.cli import cli_command

Elicitation = Callable[[types.ElicitRequestParams], Awaitable[types.ElicitResult]]


@dataclass
class Session:
    client: Client
    stray: list[Exception] = field(default_factory=list)  # stdout lines that were not protocol
    elicited: list[types.ElicitRequestParams] = field(default_factory=list)

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any] | None = None,
        progress: list[tuple[float, float | None, str | None]] | None = None,
    ) -> types.CallToolResult:
        seen = progress

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            if seen is not None:
                seen.append((progress, total, message))

        return await self.client.call_tool(tool, arguments or {}, progress_callback=on_progress)


def envelope(result: types.CallToolResult) -> dict[str, Any]:
    """The structured result: a valid result envelope, equal to the text block the server also sends,
    flagged as an error exactly when it is not ok."""
    assert result.structured_content is not None
    block = result.content[-1]  # skills_play puts a short rendering first
    assert isinstance(block, types.TextContent)
    structured: dict[str, Any] = result.structured_content
    assert json.loads(block.text) == structured
    assert len(result.content) == (2 if structured["command"] == "skills_play" else 1)
    Envelope.parse(structured)
    assert result.is_error is not structured["ok"]
    return structured


def data(result: types.CallToolResult) -> dict[str, Any]:
    """The envelope's ``data`` (the tool's result document; on a failed play, what is known)."""
    body: dict[str, Any] = envelope(result)["data"]
    return body


def error(result: types.CallToolResult) -> dict[str, Any]:
    """The envelope's ``error`` (code, message, fix, actionId, details); the result must be one."""
    body: dict[str, Any] | None = envelope(result)["error"]
    assert body is not None, result.structured_content
    return body


def server_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {"SKILLREEL_HOME": str(home), "PYTHONUNBUFFERED": "1"}
    for key in ("SKILLREEL_CHROMIUM", "PLAYWRIGHT_BROWSERS_PATH", "LANG", "TMPDIR", "PYTHON_KEYRING_BACKEND"):
        if key in os.environ:
            env[key] = os.environ[key]
    return env | (extra or {})


@asynccontextmanager
async def mcp_session(
    home: Path,
    stderr_path: Path,
    *,
    env: dict[str, str] | None = None,
    answer: Callable[[types.ElicitRequestParams], types.ElicitResult] | None = None,
    mode: str = "auto",
) -> AsyncIterator[Session]:
    """A connected session to a new server process (``skillreel mcp``: a fork of the pre-imported
    interpreter, ``tests.support.cli.cli_command``); it is stopped when the block ends."""
    command = cli_command("mcp")
    params = StdioServerParameters(
        command=command[0],
        args=command[1:],
        env=server_env(home, env),
        cwd=str(home.parent),
    )
    holder: list[Session] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            holder[0].stray.append(message)

    async def on_elicit(_ctx: Any, request: types.ElicitRequestParams) -> types.ElicitResult:
        holder[0].elicited.append(request)
        assert answer is not None
        return answer(request)

    with stderr_path.open("a") as errlog:
        kwargs: dict[str, Any] = {"message_handler": on_message, "mode": mode}
        if answer is not None:
            kwargs["elicitation_callback"] = on_elicit
        # The stdio transport itself (so the server's stderr goes to a file the test reads).
        async with Client(stdio_client(params, errlog=errlog), **kwargs) as client:
            holder.append(Session(client))
            yield holder[0]
