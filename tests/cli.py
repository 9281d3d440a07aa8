"""The real console script in a subprocess, as a user runs it, and the checks of its ``--json``
contract that every end-to-end verb test makes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillreel.model.envelope import Envelope
from tests.readback import assert_owner_only


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
) -> CliResult:
    """Run the real console entry point in a subprocess (as a user would)."""
    proc = subprocess.run(
        [sys.executable, "-m", "skillreel", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        input=input,
        timeout=timeout,
        check=False,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


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
