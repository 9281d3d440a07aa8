"""Root fixtures: every test gets its own SKILLREEL_HOME and project directory."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from skillreel.model.envelope import Envelope
from tests.server import LocalServer

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def skillreel_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("SKILLREEL_HOME", str(home))
    for key in list(os.environ):
        if key.startswith("SKILLREEL_SECRET_"):
            monkeypatch.delenv(key)
    return home


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


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


@pytest.fixture
def cli() -> Any:
    return run_cli


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def xvfb_display() -> Iterator[str]:
    """A private X server for headed Chromium (``make test`` installs xvfb). Xvfb picks a free
    display number itself (-displayfd), so parallel runs never race for one."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    read_end, write_end = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_end)
    try:
        with os.fdopen(read_end) as numbers:
            number = numbers.readline().strip()
        if not number.isdigit():
            raise RuntimeError("Xvfb did not start")
        yield f":{number}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def second_server() -> Iterator[LocalServer]:
    """Another loopback origin, for network tests (it must see zero requests when off the allowlist)."""
    with LocalServer() as srv:
        yield srv
