"""The network ledger: every refused request of a browser session, by origin only.

Both enforcement layers (context routing and the enforcing proxy) report here, on the session's
event loop. The replay engine takes a :meth:`NetworkLedger.mark` before a step and asks
:meth:`NetworkLedger.since` after it: any refusal during the step fails the replay.

Memory is bounded: the ledger keeps a count and, per distinct origin, the position of its latest
refusal; past :data:`MAX_DISTINCT_ORIGINS` further new origins are folded into
:data:`OVERFLOW_ORIGIN`.
"""

from __future__ import annotations

from typing import Final

MAX_DISTINCT_ORIGINS: Final = 256
OVERFLOW_ORIGIN: Final = "(more origins)"
UNKNOWN_ORIGIN: Final = "(unparsable)"


class NetworkLedger:
    """Counts refused requests and remembers the refused origins (strings, never URLs)."""

    def __init__(self) -> None:
        self._count = 0
        self._latest: dict[str, int] = {}

    def refuse(self, origin: str | None) -> None:
        """Record one refused request under ``origin`` (``None`` when it had no parsable origin)."""
        name = origin or UNKNOWN_ORIGIN
        if name not in self._latest and len(self._latest) >= MAX_DISTINCT_ORIGINS:
            name = OVERFLOW_ORIGIN
        self._count += 1
        self._latest[name] = self._count

    @property
    def denied_count(self) -> int:
        return self._count

    @property
    def denied_origins(self) -> tuple[str, ...]:
        return tuple(sorted(self._latest))

    def mark(self) -> int:
        """A position to measure one step's refusals from."""
        return self._count

    def since(self, mark: int) -> int:
        """How many requests were refused after ``mark``."""
        return self._count - mark

    def origins_since(self, mark: int) -> tuple[str, ...]:
        """The origins refused after ``mark``, sorted."""
        return tuple(sorted(o for o, position in self._latest.items() if position > mark))
