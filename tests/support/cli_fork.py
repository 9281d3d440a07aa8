"""A fork server for the tests' ``skillreel`` subprocesses: one pre-imported interpreter per pytest
process that forks a fresh child for every :func:`tests.support.cli.run_cli` call.

The suite runs the real console script hundreds of times (every end-to-end verb, every refusal).
Each of those processes spent most of its CPU importing the package (pydantic models, click, rich,
Playwright's client): about half a CPU-second per call on this 2-core machine, minutes over the
suite. Here the imports happen once, in a server started with a clean environment; each call is a
``fork()`` of it that then becomes exactly what ``python -m skillreel ARGS`` is after its imports:
the caller's environment (``os.environ`` replaced, so ``putenv`` reaches every grandchild: the
Playwright Node.js process, Chromium), working directory, ``sys.argv``, stdin/stdout/stderr (the caller's
file descriptors, passed over a Unix socket), default signal handlers, and at the end the
interpreter's own shutdown steps (non-daemon threads joined, ``atexit`` handlers, streams flushed)
before the exit status goes back to the caller.

Where something other than the test spawns the process (the MCP SDK's stdio client starts its
server from a command line), ``python tests/support/cli_fork.py --exec SOCKET ARGS`` is a bare interpreter
that stands in for the fork (:func:`stand_in`): it hands its own streams, environment and
directory to a child of the server, passes signals on, and exits with the child's status.

What a fork cannot be, and where the suite keeps a real ``subprocess`` (``run_cli(fresh=True)``, or
``SKILLREEL_TEST_FRESH_CLI=1`` for the whole run): the process's start-up itself (``/proc/PID/
environ`` shows the server's environment, the cold start is ``bench/cli_cold_start.py``'s and
``make install-check``'s subject), and a process whose group a test signals or kills (a fork is
in the server's process group, not the stand-in's).
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import runpy
import signal
import socket
import struct
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

_INT = struct.Struct("!i")
_READY = b"ready\n"


def _preload() -> None:
    """Import, in the server, everything a verb imports, so no child pays for it: every module of
    the package (the verbs import most of theirs when they run, to keep ``skillreel --help`` fast)
    but ``__main__`` and the fleet (Celery is imported by the few calls that use it), and the parts
    of rich the verbs import when they print."""
    import pkgutil

    import skillreel

    for info in pkgutil.walk_packages(skillreel.__path__, "skillreel."):
        if info.name.endswith(".__main__") or info.name.startswith("skillreel.fleet"):
            continue
        with contextlib.suppress(ImportError):  # an optional extra that is not installed
            importlib.import_module(info.name)
    for module in ("rich.console", "rich.markup", "rich.progress", "rich.table"):
        importlib.import_module(module)


def _receive(connection: socket.socket) -> tuple[dict[str, Any], list[int]]:
    head, fds, _, _ = socket.recv_fds(connection, _INT.size, 3)
    (length,) = _INT.unpack(head)
    body = b""
    while len(body) < length:
        chunk = connection.recv(length - len(body))
        if not chunk:
            raise EOFError("the caller went away")
        body += chunk
    return json.loads(body), list(fds)


def _child(connection: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
    """Become ``python -m skillreel ARGS`` (after its imports) and never return."""
    code = 1
    try:
        for target, fd in zip((0, 1, 2), fds, strict=True):
            os.dup2(fd, target)
            os.close(fd)
        for number in (signal.SIGCHLD, signal.SIGPIPE, signal.SIGTERM):
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        connection.sendall(_INT.pack(os.getpid()))
        module = request.get("module", "skillreel")
        sys.argv = [module, *request["args"]]
        try:
            if module == "skillreel":  # its __main__ ends the process itself (cli.main.leave)
                from skillreel.cli.main import main

                main()
            else:
                runpy.run_module(module, run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as ended:
            from skillreel.cli.main import exit_status

            code = exit_status(ended.code)
        except BaseException:  # what the interpreter prints for an uncaught exception
            traceback.print_exc()
            code = 1
        threading._shutdown()  # type: ignore[attr-defined]  # join non-daemon threads, as at exit
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        connection.sendall(_INT.pack(code & 0xFF))
    finally:
        os._exit(code & 0xFF)


def serve(path: str) -> None:
    """The server: import once, then fork one child per connection, forever."""
    _preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    sys.stdout.buffer.write(_READY)
    sys.stdout.flush()
    while True:
        connection, _ = listener.accept()
        try:
            request, fds = _receive(connection)
        except (OSError, EOFError, ValueError):
            connection.close()
            continue
        if os.fork() == 0:
            listener.close()
            _child(connection, request, fds)
        for fd in fds:
            os.close(fd)
        connection.close()


class ForkServer:
    """The caller's side: start the server on first use, then one connection per run."""

    def __init__(self, directory: Path) -> None:
        self.path = str(directory / "skillreel-fork.sock")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SKILLREEL_", "PYTEST_"))}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.cli_fork", self.path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            env=env,
            cwd=Path(__file__).resolve().parents[2],
        )
        assert self.process.stdout is not None
        if self.process.stdout.readline() != _READY:
            raise RuntimeError("the skillreel fork server did not start")
        atexit.register(self.close)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def run(
        self,
        args: list[str],
        *,
        env: dict[str, str],
        cwd: str,
        stdin: int,
        stdout: int,
        stderr: int,
        timeout: float,
        module: str = "skillreel",
    ) -> int:
        return call(
            self.path, args, env=env, cwd=cwd, fds=[stdin, stdout, stderr], timeout=timeout, module=module
        )


def call(
    path: str,
    args: list[str],
    *,
    env: dict[str, str],
    cwd: str,
    fds: list[int],
    timeout: float | None = None,
    started: Callable[[int], None] | None = None,
    module: str = "skillreel",
) -> int:
    """One child of the server at ``path``: ``python -m MODULE ARGS`` (``skillreel`` by default) on the
    streams ``fds`` (stdin, stdout, stderr); its exit status (``-SIGKILL`` when it died without
    saying). ``started`` gets its pid."""
    body = json.dumps({"args": args, "env": env, "cwd": cwd, "module": module}).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(path)
        socket.send_fds(connection, [_INT.pack(len(body))], fds)
        connection.sendall(body)
        connection.settimeout(timeout)
        pid = _read_int(connection)
        if started is not None:
            started(pid)
        try:
            return _read_int(connection)
        except TimeoutError:
            os.kill(pid, signal.SIGKILL)
            raise
        except EOFError:  # the child died without saying how it ended (killed by a signal)
            return -signal.SIGKILL


def stand_in(path: str, args: list[str]) -> int:
    """``python tests/support/cli_fork.py --exec SOCKET ARGS``: a process that stands in for ``python -m
    skillreel ARGS`` where a test needs a command line, not a function call (the MCP SDK's stdio
    client spawns its server itself). It costs a bare interpreter's start: the child is a fork of the
    server at ``path`` on this process's streams, environment and directory; SIGTERM, SIGINT and
    SIGHUP are passed on to it, and its exit status is this process's."""
    child: list[int] = []

    def forward(number: int, _frame: object) -> None:
        if child:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child[0], number)

    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, forward)

    def handed_over(pid: int) -> None:
        child.append(pid)
        # the child has the streams now: an end of file reaches the reader when the child ends
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1):
            os.dup2(devnull, fd)
        os.close(devnull)

    code = call(path, args, env=dict(os.environ), cwd=os.getcwd(), fds=[0, 1, 2], started=handed_over)
    return 128 + signal.SIGKILL if code < 0 else code


def _read_int(connection: socket.socket) -> int:
    data = b""
    while len(data) < _INT.size:
        chunk = connection.recv(_INT.size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    (value,) = _INT.unpack(data)
    return int(value)


if __name__ == "__main__":
    if sys.argv[1] == "--exec":
        sys.exit(stand_in(sys.argv[2], sys.argv[3:]))
    serve(sys.argv[1])
