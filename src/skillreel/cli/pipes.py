"""A reader that goes away is not an error of the work: `skillreel replay NAME | head -1`.

Python ignores SIGPIPE, so a write to a pipe whose reader closed raises ``BrokenPipeError``. Where
the verb reports progress or its result, that must never turn the work into an internal error: a
replay goes on to its end (its outcome recorded in the store as it is) and exits with its own
status. The stream whose reader left is pointed at the null device, so later writes and the
interpreter's final flush succeed quietly (what Python's documentation advises for SIGPIPE).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TextIO


def write_line(stream: TextIO, text: str) -> None:
    """Write and flush ``text``; a closed reader silences ``stream`` instead of raising."""
    with reader_gone(stream):
        stream.write(text)
        stream.flush()


@contextlib.contextmanager
def reader_gone(*streams: TextIO) -> Iterator[None]:
    """Run the block; when a write in it finds its reader gone, silence ``streams`` (by default
    stdout and stderr) and carry on after the block."""
    try:
        yield
    except BrokenPipeError:
        pass
    except SystemExit as ended:
        # rich's Console ends the process with status 1 on a broken pipe (``Console.on_broken_pipe``
        # raises it while handling the BrokenPipeError): the work's own status stands instead
        if not isinstance(ended.__context__, BrokenPipeError):
            raise
    else:
        return
    for stream in streams or (sys.stdout, sys.stderr):
        silence(stream)


def silence(stream: TextIO) -> None:
    """Point ``stream``'s descriptor at the null device (a stream without one is left as it is)."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)
