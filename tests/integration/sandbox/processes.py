"""The processes a test watches: a session's Chromium tree and the wait until pids are gone (/proc)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from skillreel.sandbox.context import BrowserSession

WAIT_S = 20.0


def proc_table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, state) for every process we can see."""
    table: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            table[int(entry.name)] = (int(fields[1]), fields[0])
    return table


def chromium_tree(session: BrowserSession) -> set[int]:
    """The session's Chromium process and all its descendants (found by its proxy switch)."""
    marker = f"--proxy-server={session.proxy.server_url}".encode()
    roots = set()
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and marker in (entry / "cmdline").read_bytes().split(b"\0"):
                roots.add(int(entry.name))
    table = proc_table()
    tree = set(roots)
    grew = True
    while grew:
        children = {pid for pid, (ppid, _) in table.items() if ppid in tree} - tree
        tree |= children
        grew = bool(children)
    return tree


async def wait_until_gone(pids: set[int]) -> set[int]:
    """The pids still alive (not zombies) once they are gone or the wait is over."""

    def alive() -> set[int]:
        table = proc_table()
        return {pid for pid in pids if pid in table and table[pid][1] != "Z"}

    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while alive() and loop.time() < deadline:
        await asyncio.sleep(0.05)
    return alive()
