"""A fleet on this machine for tests: a private ``redis-server`` and ``skillreel worker`` processes.

    with redis_server(tmp_path) as broker:            # redis://127.0.0.1:PORT/0, its own dir, no disk
        with fleet_worker(broker, trust=[pub], home=worker_home) as worker:   # ready: answers pings
            ...
            worker.kill()                               # kill -9 of its whole process group

Both wait on what the process says (redis's "Ready to accept connections", the worker's "ready"
line), never on the clock; each bound is a guard against a hung process, not a guess at timing.
``make test`` installs redis-server (scripts/ensure-redis.sh); without it these tests skip.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.integration.runs.counting import PAGE
from tests.support.server import LocalServer

READY_WAIT_S = 120.0  # a bound on a loaded machine, never a timing assumption


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Lines:
    """A process's output, read line by line on a thread; ``wait_for(text)`` blocks until a line holds it."""

    stream: object
    lines: list[str] = field(default_factory=list)
    _changed: threading.Condition = field(default_factory=threading.Condition)
    _closed: bool = False
    _thread: threading.Thread | None = None

    def start(self) -> Lines:
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """After the process ended: the reader reaches the end of its output, then the pipe closes."""
        if self._thread is not None:
            self._thread.join(timeout=READY_WAIT_S)
        self.stream.close()  # type: ignore[attr-defined]

    def _read(self) -> None:
        for line in self.stream:  # type: ignore[attr-defined]
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def wait_for(self, text: str, timeout: float = READY_WAIT_S) -> bool:
        with self._changed:
            return self._changed.wait_for(
                lambda: self._closed or any(text in line for line in self.lines), timeout
            ) and any(text in line for line in self.lines)

    def text(self) -> str:
        with self._changed:
            return "".join(self.lines)


@contextlib.contextmanager
def redis_server(directory: Path, *, password: str | None = None) -> Iterator[str]:
    """A redis-server on a free 127.0.0.1 port, nothing written to disk; yields its broker URL
    (``redis://:PASSWORD@...`` with ``password``, which the server then requires)."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server; make test installs it)")
    directory.mkdir(parents=True, exist_ok=True)
    port = free_port()
    proc = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(directory),
            "--save",
            "",
            "--appendonly",
            "no",
            "--protected-mode",
            "yes",
            "--loglevel",
            "notice",
            *(["--requirepass", password] if password else []),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    output = Lines(proc.stdout).start()
    try:
        if not output.wait_for("Ready to accept connections"):
            raise RuntimeError("redis-server did not start:\n" + output.text())
        yield f"redis://{f':{password}@' if password else ''}127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        output.close()


@dataclass
class Worker:
    proc: subprocess.Popen[str]
    output: Lines

    def kill(self) -> None:
        """kill -9 of the worker and everything it started (pool processes, Chromium)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        """A warm shutdown (SIGTERM: rows running finish), then the process group goes."""
        if self.proc.poll() is None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=60)
        self.kill()


def worker_command(broker: str | None, trust: list[Path], *, concurrency: int = 1) -> list[str]:
    """``skillreel worker``; ``broker=None``: the URL comes from the environment (SKILLREEL_BROKER_URL)."""
    args = [sys.executable, "-m", "skillreel", "worker", "--concurrency", str(concurrency)]
    if broker is not None:
        args += ["--broker", broker]
    for key in trust:
        args += ["--trust", str(key)]
    return args


@contextlib.contextmanager
def fleet_worker(
    broker: str | None,
    *,
    trust: list[Path],
    home: Path,
    concurrency: int = 1,
    env: dict[str, str] | None = None,
) -> Iterator[Worker]:
    """A ``skillreel worker`` process (its own process group and SKILLREEL_HOME), once it is ready.
    (A row's liveness timeout is the coordinator's: ``replay ... --heartbeat S``.)"""
    proc = subprocess.Popen(
        worker_command(broker, trust, concurrency=concurrency),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "SKILLREEL_HOME": str(home), **(env or {})},
        start_new_session=True,
    )
    worker = Worker(proc, Lines(proc.stderr).start())
    try:
        if not worker.output.wait_for(": ready"):
            raise RuntimeError("the worker did not start:\n" + worker.output.text())
        yield worker
    finally:
        worker.stop()
        worker.output.close()


# The counting page, except that it reads its order's response. A fetch whose body the page never
# reads gets no "requestfinished" from Chromium, so replay's settling waits out its network cap
# after the click (see the notes of i14-fleet); reading it keeps these tests about the fleet.
READING_PAGE = PAGE.replace("response.ok ?", "(await response.text(), response.ok) ?")


def serve_reading_page(server: LocalServer) -> None:
    """Serve :data:`READING_PAGE` where the counting skill was described (the same elements)."""
    assert READING_PAGE != PAGE
    server.set_page("/orders", READING_PAGE)
