"""The real console script in a subprocess, as a user runs it, and the checks of its ``--json``
contract that every end-to-end verb test makes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from skillreel.model.envelope import Envelope
from tests.support import cli_fork
from tests.support.cli_fork import ForkServer
from tests.support.readback import assert_owner_only


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """The one document on stdout, checked to be a valid result envelope (docs/guide.md)."""
        document = json.loads(self.stdout)
        Envelope.parse(document)
        return document

    def data(self) -> Any:
        """The envelope's ``data`` (the verb's result document)."""
        return self.json()["data"]


def run_cli(
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    input: str | None = None,
    timeout: float = 180,
    fresh: bool = False,
    module: str = "skillreel",
) -> CliResult:
    """Run the real console entry point in a child process (as a user would).

    The child is a fork of a pre-imported interpreter (tests/support/cli_fork.py: the same entry point,
    environment, working directory and standard streams, without paying the imports again);
    ``fresh=True`` (or ``SKILLREEL_TEST_FRESH_CLI=1``) starts a new interpreter instead, for a test
    whose subject is the process's own start-up. ``module`` runs ``python -m MODULE ARGS`` instead
    of the console script (a test's helper, such as ``tests.support.killer``)."""
    environment = {**os.environ, **(env or {})}
    if fresh or os.environ.get(FRESH_CLI) == "1":
        proc = subprocess.run(
            [sys.executable, "-m", module, *args],
            capture_output=True,
            text=True,
            env=environment,
            cwd=cwd,
            input=input,
            timeout=timeout,
            check=False,
        )
        return CliResult(proc.returncode, proc.stdout, proc.stderr)
    with (
        tempfile.TemporaryFile() as stdin,
        tempfile.TemporaryFile() as stdout,
        tempfile.TemporaryFile() as stderr,
    ):
        stdin.write((input or "").encode())
        stdin.seek(0)
        try:
            code = _fork_server().run(
                list(args),
                env=environment,
                cwd=str(cwd or Path.cwd()),
                stdin=stdin.fileno(),
                stdout=stdout.fileno(),
                stderr=stderr.fileno(),
                timeout=timeout,
                module=module,
            )
        except TimeoutError:
            raise subprocess.TimeoutExpired([module, *args], timeout) from None
        return CliResult(code, _text(stdout), _text(stderr))


def cli_command(*args: str, fresh: bool = False) -> list[str]:
    """A command line that runs ``skillreel ARGS``, for a test that must hand one to something that
    spawns the process itself (the MCP SDK's stdio client, asyncio's subprocesses): a stand-in that
    runs a fork of the pre-imported interpreter (``tests/support/cli_fork.py`` ``stand_in``), or, with
    ``fresh=True`` or ``SKILLREEL_TEST_FRESH_CLI=1``, ``python -m skillreel ARGS`` itself."""
    if fresh or os.environ.get(FRESH_CLI) == "1":
        return [sys.executable, "-m", "skillreel", *args]
    return [sys.executable, str(Path(cli_fork.__file__).resolve()), "--exec", _fork_server().path, *args]


FRESH_CLI = "SKILLREEL_TEST_FRESH_CLI"
_server: ForkServer | None = None
_server_lock = threading.Lock()


def _fork_server() -> ForkServer:
    global _server
    with _server_lock:
        if _server is None or _server.process.poll() is not None:
            _server = ForkServer(Path(tempfile.mkdtemp(prefix="sr-fork-")))
        return _server


def _text(stream: IO[bytes]) -> str:
    """What ``subprocess.run(text=True)`` gives: decoded, universal newlines."""
    stream.seek(0)
    return stream.read().decode().replace("\r\n", "\n").replace("\r", "\n")


def cli(home: Path, *args: str, env: dict[str, str] | None = None) -> CliResult:
    """Run a verb with --json; check the one-document contract, no traceback, owner-only files."""
    result = run_cli(*args, "--json", env=env)
    assert "Traceback" not in result.stderr, result.stderr
    result.json()  # exactly one JSON document on stdout: a valid result envelope
    assert_owner_only(home)
    return result


def ok(home: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    result = cli(home, *args, env=env)
    assert result.exit_code == 0, result.stdout + result.stderr
    return result.data()


def refused(
    home: Path, *args: str, code: str, exit_code: int = 1, env: dict[str, str] | None = None
) -> dict[str, Any]:
    result = cli(home, *args, env=env)
    error: dict[str, Any] = result.json()["error"]
    assert (result.exit_code, error["code"]) == (exit_code, code), result.stdout
    return error
