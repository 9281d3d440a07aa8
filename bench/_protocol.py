"""Counting the protocol traffic of Playwright clients, step by step (``bench/replay_profile.py
--protocol``).

Two counts, both exact, per *segment* of the work (a step; the set-up before the first, the end
after the last):

- **Playwright calls**: every message the Python client sends to Playwright's process (the one
  place they all go through, ``Connection.send_message_to_server`` of Playwright's
  ``_impl/connection.py``; ``__waitInfo__`` notes, which get no reply, are left out);
- **CDP commands**: every Chromium DevTools Protocol command that Playwright's process sends to the
  browser, read from its own log (``DEBUG=pw:protocol``: one ``SEND ►`` line a command, written
  synchronously to its standard error). While counting, file descriptor 2 of this process (which
  Playwright's process inherits when it starts) points at a temporary file, and the start of each
  segment is written into the same file, so commands fall in the segment whose call made them: the
  reply to a call comes after the commands it needed were sent (a command Playwright's process
  sends on its own, after a navigation, say, falls in the segment during which it was sent).

The log holds what the pages were sent (typed values included): it lives in a temporary folder that
is removed when counting ends, and only method names are kept.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

MARK = "@@segment "
SEND = re.compile(r'pw:protocol SEND \u25ba \{"id":\d+,"method":"([^"]+)"')
SETUP = "set-up"


class ProtocolCount:
    """Playwright calls and CDP commands per segment, for the Playwright processes started while
    :meth:`counting` is open (the ones started before keep their own log and standard error)."""

    def __init__(self) -> None:
        self.segment = SETUP
        self.segments: list[str] = [SETUP]
        self.calls: Counter[str] = Counter()
        self.commands: Counter[str] = Counter()
        self.methods: Counter[str] = Counter()  # CDP methods over every segment but the set-up

    def mark(self, segment: str) -> None:
        """The work from here on belongs to ``segment`` (until the next mark)."""
        self.segment = segment
        if segment not in self.segments:
            self.segments.append(segment)
        os.write(2, f"\n{MARK}{segment}\n".encode())

    @contextmanager
    def counting(self) -> Iterator[ProtocolCount]:
        connection = _connection_class()
        send = connection.send_message_to_server
        count = self

        def counted(self: Any, obj: Any, method: str, params: Any, options: Any) -> Any:
            if method != "__waitInfo__":
                count.calls[count.segment] += 1
            return send(self, obj, method, params, options)

        saved_debug = os.environ.get("DEBUG")
        saved_stderr = os.dup(2)
        with tempfile.TemporaryDirectory() as folder:
            log = Path(folder) / "protocol.log"
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.dup2(fd, 2)
            os.close(fd)
            os.environ["DEBUG"] = "pw:protocol"
            connection.send_message_to_server = counted
            try:
                yield self
            finally:
                connection.send_message_to_server = send
                os.dup2(saved_stderr, 2)
                os.close(saved_stderr)
                if saved_debug is None:
                    os.environ.pop("DEBUG", None)
                else:
                    os.environ["DEBUG"] = saved_debug
                self._read(log)

    def _read(self, log: Path) -> None:
        segment = SETUP
        with log.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if line.startswith(MARK):
                    segment = line[len(MARK) :].strip()
                    continue
                found = SEND.search(line)
                if found:
                    self.commands[segment] += 1
                    if segment != SETUP:
                        self.methods[found.group(1)] += 1


def _connection_class() -> Any:
    """Playwright's ``Connection`` (``_impl/connection.py``; ``_impl/_connection.py`` in older releases)."""
    try:
        from playwright._impl.connection import Connection
    except ImportError:
        from playwright._impl._connection import Connection  # type: ignore[no-redef]
    return Connection
