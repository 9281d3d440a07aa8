"""stdout of `skillreel mcp` carries protocol messages and nothing else, byte for byte."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillreel.store import Store
from tests.integration.mcp.client import server_env
from tests.integration.mcp.live_skill import live_skill
from tests.support import factory
from tests.support.factory import store_entry
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser  # the live skill's page is described in Chromium


class RawServer:
    """The server process spoken to by hand: one JSON-RPC message per line each way."""

    def __init__(self, home: Path, stderr: Path) -> None:
        self.err = stderr.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "skillreel", "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
            env=server_env(home),
            cwd=home.parent,
        )
        self.lines: list[bytes] = []  # every line the server wrote on stdout
        self._next = 0
        self.guard = threading.Timer(120, self.proc.kill)  # a hang guard, not an assertion
        self.guard.start()

    def send(self, method: str, params: dict[str, Any] | None = None, *, notify: bool = False) -> int:
        self._next += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if not notify:
            message["id"] = self._next
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        return self._next

    def response(self, request_id: int) -> dict[str, Any]:
        """Read lines until the response to ``request_id``; every line must be a JSON-RPC message."""
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed stdout before answering"
            self.lines.append(line)
            message: dict[str, Any] = json.loads(line)
            assert message["jsonrpc"] == "2.0"
            if message.get("id") == request_id and ("result" in message or "error" in message):
                return message

    def close(self) -> bytes:
        """Close stdin (the end of the session) and return whatever else reached stdout."""
        rest, _ = self.proc.communicate(timeout=120)
        self.guard.cancel()
        self.err.close()
        return rest


@pytest.fixture
def raw(skillreel_home: Path, project_dir: Path, tmp_path: Path, server: LocalServer) -> Iterator[RawServer]:
    asyncio.run(live_skill(server, "find-invoices", project_dir))
    with Store.open() as store:
        store_entry(store, factory.entry("not-enabled-yet"))
    spoken = RawServer(skillreel_home, tmp_path / "stderr.log")
    try:
        yield spoken
    finally:
        if spoken.proc.poll() is None:
            spoken.proc.kill()
            spoken.close()


def test_every_stdout_line_is_a_protocol_message(raw: RawServer) -> None:
    init = raw.send(
        "initialize",
        {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "1"},
        },
    )
    assert raw.response(init)["result"]["serverInfo"]["name"] == "skillreel"
    raw.send("notifications/initialized", notify=True)
    tools = raw.response(raw.send("tools/list"))["result"]["tools"]
    assert sorted(t["name"] for t in tools) == ["skills_list", "skills_play"]
    listed = raw.response(raw.send("tools/call", {"name": "skills_list", "arguments": {}}))
    assert [s["name"] for s in listed["result"]["structuredContent"]["data"]["skills"]] == ["find-invoices"]
    played = raw.response(
        raw.send(
            "tools/call",
            {
                "name": "skills_play",
                "_meta": {"progressToken": "p1"},
                "arguments": {"name": "find-invoices", "inputs": {"customer": "ACME"}},
            },
        )
    )
    assert played["result"]["structuredContent"]["data"]["status"] == "succeeded"
    progress = [json.loads(line) for line in raw.lines if b'"notifications/progress"' in line]
    assert [p["params"]["progress"] for p in progress] == [1, 2, 3, 4]
    assert all(p["params"]["progressToken"] == "p1" for p in progress)
    refused = raw.response(
        raw.send("tools/call", {"name": "skills_play", "arguments": {"name": "not-enabled-yet"}})
    )
    assert refused["result"]["isError"] is True
    assert refused["result"]["structuredContent"]["error"]["code"] == "SR_RECORD_STATE_INVALID"
    rest = raw.close()
    assert raw.proc.returncode == 0
    for line in rest.splitlines():
        assert json.loads(line)["jsonrpc"] == "2.0"
    assert all(line.endswith(b"\n") for line in raw.lines)
