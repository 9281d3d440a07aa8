"""The terminal side of an interactive recording: lines typed while the headed window records.

* an empty line (Enter) or the end of input finishes the recording;
* ``mark NAME [TYPE]`` arms a mark: the next click in the window is swallowed (the page never
  receives it) and the element becomes an ``extract`` step into output ``NAME`` (``TYPE``: string,
  integer, number or boolean; default string);
* ``mark all NAME [TYPE]`` does the same for every element like the clicked one (a list output);
* ``absent [TEXT]`` arms a mark the same way: the clicked element becomes an ``absent`` assertion
  at this point of the skill (replay fails when an element like it is there, or with ``TEXT``,
  when one holds that text: "Already refunded");
* while a mark is armed, any line cancels it.

Only what is typed here arms a mark (the page cannot), and nothing read from the page is printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any

import click

from ..errors import InputError

if TYPE_CHECKING:
    from ..record.marking import Marking
    from ..record.recorder import Marked

HELP = (
    "recording in the browser window: press Enter here to finish, Ctrl-C to discard; "
    "type `mark NAME [TYPE]` (or `mark all NAME [TYPE]`) then click an element to extract it, "
    "`absent [TEXT]` then click one to check it is gone (or does not show TEXT)"
)
USAGE = "  usage: mark NAME [TYPE] | mark all NAME [TYPE] | absent [TEXT] | Enter to finish"
MAX_ABSENT_TEXT = 1024  # an assertion's expected text (model.actions.ExpectedText)
TYPES = ("string", "integer", "number", "boolean")


class Lines:
    """Lines from stdin as they arrive, without blocking the event loop (None: end of input)."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._buffer = b""
        self._fd: int | None = None

    def start(self) -> None:
        if sys.stdin is None or sys.stdin.closed:
            self._queue.put_nowait(None)
            return
        fd = sys.stdin.fileno()
        try:
            asyncio.get_running_loop().add_reader(fd, self._readable, fd)
            self._fd = fd
        except (OSError, NotImplementedError, ValueError):  # a regular file: readable at once
            for line in sys.stdin.read().splitlines():
                self._queue.put_nowait(line)
            self._queue.put_nowait(None)

    def stop(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError, ValueError):
                asyncio.get_running_loop().remove_reader(self._fd)
            self._fd = None

    def _readable(self, fd: int) -> None:
        data = os.read(fd, 4096)
        if not data:
            self.stop()
            self._queue.put_nowait(None)
            return
        self._buffer += data
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            self._queue.put_nowait(line.decode("utf-8", "replace"))

    async def next(self) -> str | None:
        return await self._queue.get()

    def end(self) -> None:
        self._queue.put_nowait(None)


def _parse(words: list[str]) -> tuple[bool, str, str | None] | None:
    all_items = len(words) > 1 and words[1] in ("all", "*")
    rest = words[2:] if all_items else words[1:]
    if not 1 <= len(rest) <= 2 or (len(rest) == 2 and rest[1] not in TYPES):
        return None
    return all_items, rest[0], rest[1] if len(rest) == 2 else None


async def run(marking: Marking) -> None:
    """Read the terminal until the person finishes, arming marks as asked."""
    click.echo(HELP, err=True)
    lines = Lines()
    lines.start()
    try:
        while True:
            line = await lines.next()
            if line is None or not line.strip():
                return
            words = line.split()
            if words[0] == "absent":
                text = line.strip()[len("absent") :].strip() or None
                if text is not None and len(text) > MAX_ABSENT_TEXT:
                    click.echo(f"  the text is longer than {MAX_ABSENT_TEXT} characters", err=True)
                    continue
                await _absent(marking, lines, text)
                continue
            parsed = _parse(words) if words[0] in ("mark", "m") else None
            if parsed is None:
                click.echo(USAGE, err=True)
                continue
            await _mark(marking, lines, *parsed)
    finally:
        lines.stop()


async def _mark(marking: Marking, lines: Lines, all_items: bool, name: str, value_type: str | None) -> None:
    try:
        marking.check_name(name)
    except InputError as exc:
        click.echo(f"  {exc.message}", err=True)
        return
    what = "every element like the one you click" if all_items else "the element you click"
    marked = await _clicked(marking, lines, all_items, f"click {what} in the browser to extract it as {name}")
    if marked is None:
        return
    if marking.record(name, marked, value_type):  # type: ignore[arg-type]  # one of TYPES
        click.echo(f"  marked {name}", err=True)
    else:
        click.echo("  that click fell on nothing that can be extracted; mark again", err=True)


async def _absent(marking: Marking, lines: Lines, text: str | None) -> None:
    what = "is gone" if text is None else "does not show the text you typed"
    marked = await _clicked(
        marking, lines, False, f"click the element in the browser to check it {what} here"
    )
    if marked is None:
        return
    if marking.record_absent(marked, text):
        click.echo("  marked an absent check", err=True)
    else:
        click.echo("  that click fell on nothing that can be described; try again", err=True)


async def _clicked(marking: Marking, lines: Lines, all_items: bool, prompt: str) -> Marked | None:
    """Arm a mark, say ``prompt``, and wait for the click that completes it (None: a line here
    cancelled it, or the input ended, which still finishes the recording)."""
    marked = await marking.arm(all_items=all_items)
    click.echo(f"  {prompt} (a line here cancels)", err=True)
    line = asyncio.ensure_future(lines.next())
    waiting: set[asyncio.Future[Any]] = {marked, line}
    done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    if marked in done and not marked.cancelled():
        line.cancel()
        return marked.result()
    marking.cancel()
    click.echo("  mark cancelled", err=True)
    if line.done() and line.result() is None:
        lines.end()  # the end of input still finishes the recording
    return None
