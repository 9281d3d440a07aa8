"""Ctrl-C during a verb that drives a browser (a replay, a batch): the first press cancels the work,
which then ends as it does (the runs that started are recorded as cancelled, a fleet's rows no
worker took are given up) and reports what ran; further presses are ignored until that report is
printed, so a second press does not throw away the result (a batch's runset id, which ``--resume``
needs) halfway through its cancellation. ``SIGTERM`` (a service manager, ``kill``) and ``SIGHUP``
(the terminal closed, an SSH session dropped) cancel the same way: killed outright instead, a
batch left its runs started and a fleet's queued rows to run after it, unrecorded."""

from __future__ import annotations

import signal
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

NOTICE = "skillreel: cancelling; what ran is being recorded (Ctrl-C is ignored until it is)\n"
STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def run_cancellable(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` where only the first Ctrl-C counts (see the module docstring)."""
    import asyncio  # here, not at the top: a verb's --help does not need it

    return asyncio.run(_first_press_cancels(main))


async def _first_press_cancels(main: Coroutine[Any, Any, T]) -> T:
    import asyncio

    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    pressed = 0

    def on_sigint() -> None:
        nonlocal pressed
        pressed += 1
        if pressed == 1 and task is not None:
            task.cancel()
        elif pressed == 2:
            sys.stderr.write(NOTICE)

    try:
        for signum in STOPPING:
            loop.add_signal_handler(signum, on_sigint)
    except (NotImplementedError, RuntimeError, ValueError):  # no signals here (not the main thread)
        return await main
    try:
        return await main
    finally:
        for signum in STOPPING:
            loop.remove_signal_handler(signum)
        if pressed:  # the outcome is decided: let it be printed whole
            for signum in STOPPING:
                signal.signal(signum, signal.SIG_IGN)
