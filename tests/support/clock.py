"""Injected time for the replay engine's tests: a clock that only moves when the engine sleeps."""

from __future__ import annotations


class Clock:
    """``clock()`` reads the time; ``await clock.sleep(s)`` moves it on at once and keeps ``s``."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
