"""Open a replay's trace with Playwright's own trace viewer (``skillreel show-trace``; issue 31.5).

The viewer is run as ``python -m playwright show-trace`` from skillreel's own interpreter, so it
works after any install (a pipx venv puts no ``playwright`` on PATH). The path is a ``trace.zip`` or
the directory ``replay --artifacts DIR`` wrote it into; anything else is refused before the viewer
starts. With a port the viewer serves the trace on 127.0.0.1 only (the trace holds page content)
and opens it in a browser tab, for a machine without Chrome for Playwright's own window.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from ..errors import RecordError

TRACE_FILE: Final = "trace.zip"
HOST: Final = "127.0.0.1"

Runner = Callable[[Sequence[str]], int]


def trace_file(path: Path) -> Path:
    """The trace to open: ``path`` itself (a file) or ``path/trace.zip`` (a directory)."""
    if path.is_dir():
        inside = path / TRACE_FILE
        if not inside.is_file():
            raise RecordError(
                "SR_RECORD_TRACE_MISSING",
                f"{path} holds no {TRACE_FILE} (a replay writes one with --artifacts when it fails, "
                "or always with --artifacts-on always; a withheld trace is named in its warning)",
            )
        return inside
    if not path.is_file():
        raise RecordError("SR_RECORD_TRACE_MISSING", f"{path} does not exist")
    return path


def viewer_command(trace: Path, *, port: int | None = None) -> list[str]:
    """Playwright's viewer on ``trace``, from this interpreter (served on loopback with a port)."""
    served = ["--host", HOST, "--port", str(port)] if port is not None else []
    return [sys.executable, "-m", "playwright", "show-trace", *served, str(trace)]


def _run(command: Sequence[str]) -> int:
    try:
        return subprocess.run(command, check=False).returncode
    except KeyboardInterrupt:  # the person closed the viewer with Ctrl-C: nothing failed
        return 0


def show_trace(path: Path, *, port: int | None = None, run: Runner = _run) -> Path:
    """Open the trace at ``path`` in the viewer until it is closed; the trace opened."""
    trace = trace_file(path)
    status = run(viewer_command(trace.resolve(), port=port))
    if status != 0:
        raise RecordError(
            "SR_RECORD_TRACE_VIEWER_FAILED", f"Playwright's trace viewer ended with status {status}"
        )
    return trace
