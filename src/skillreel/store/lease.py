"""Run leases: which process holds a started run, and whether that process is still there.

A run is reserved with the :class:`~skillreel.model.runs.Lease` of the process that runs it: its pid,
the machine's boot id (``/proc/sys/kernel/random/boot_id``) and the process's start time in clock
ticks since boot (field 22 of ``/proc/PID/stat``). The lease is gone when the machine rebooted, the
pid no longer exists or has exited (a zombie), or the pid now belongs to a process that started at
another time (pid reuse). Where ``/proc`` is missing (not Linux), only the pid is checked. A pid
owned by another user that exists counts as alive: a run is never called interrupted while its
process may still be acting.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from ..model.runs import Lease

_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


@cache
def boot_id() -> str | None:
    """This boot of the machine (None where the system does not say)."""
    try:
        value = _BOOT_ID.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return value if value and len(value) <= 64 and all(c.isalnum() or c == "-" for c in value) else None


def _stat(pid: int) -> tuple[str, int] | None:
    """The state letter and start time (clock ticks since boot) of process ``pid``, or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()  # the command name may hold spaces and parentheses
    try:
        return fields[0], int(fields[19])  # fields 3 and 22 of the line
    except (IndexError, ValueError):
        return None


def process_start(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot), or None when unknown or gone."""
    found = _stat(pid)
    return found[1] if found else None


def current_lease() -> Lease:
    """The lease of this process."""
    pid = os.getpid()
    return Lease(pid=pid, boot_id=boot_id(), process_start=process_start(pid))


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process with that pid exists
    except OSError:
        return True  # cannot tell: never call a run interrupted on a guess
    return True


def lease_alive(lease: Lease) -> bool:
    """Whether the process that holds ``lease`` may still be running."""
    here = boot_id()
    if lease.boot_id is not None and here is not None and lease.boot_id != here:
        return False
    if not _pid_exists(lease.pid):
        return False
    found = _stat(lease.pid)
    if found is None:
        return True  # no /proc: the pid exists, which is all that can be told
    state, started = found
    if state in ("Z", "X"):
        return False  # exited, not yet reaped by its parent
    return lease.process_start is None or started == lease.process_start
