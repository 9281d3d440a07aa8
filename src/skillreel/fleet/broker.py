"""The broker a fleet batch runs on: submit a row, collect results, read claims, count workers.

:class:`CeleryBroker` (Celery on Redis) is the real implementation of the small ``Broker`` protocol
the coordinator (``services/fleet_batching.py``) runs on; tests give the coordinator a fake.
Every broker failure becomes ``SR_REPLAY_FLEET_BROKER_UNREACHABLE`` here, once.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from typing import Any, Final

from ..errors import ReplayError
from . import claims
from .app import QUEUE, TASK_NAME, check_broker_url, fleet_app, shown_url

POLL_S: Final = 0.05
PING_TIMEOUT_S: Final = 3.0


def unreachable(url: str, exc: BaseException) -> ReplayError:
    return ReplayError(
        "SR_REPLAY_FLEET_BROKER_UNREACHABLE",
        f"the broker {shown_url(url)} did not answer ({type(exc).__name__})",
    )


class CeleryBroker:
    """Celery on Redis (see :mod:`skillreel.fleet.app` for the settings)."""

    def __init__(self, url: str) -> None:
        import redis

        self.url = check_broker_url(url)
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        self._redis = claims.client(url)
        try:
            self._redis.ping()
        except self._errors as exc:
            raise unreachable(url, exc) from exc
        self._app = fleet_app(url)
        from kombu.exceptions import OperationalError

        self._errors = (*self._errors, OperationalError)

    @contextlib.contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except self._errors as exc:
            raise unreachable(self.url, exc) from exc

    def workers(self) -> int:
        with self._translated():
            return len(self._app.control.ping(timeout=PING_TIMEOUT_S, limit=1) or [])

    def submit(self, run_id: str, bundle: str, row: Mapping[str, Any], envelope: Mapping[str, Any]) -> None:
        with self._translated():
            self._app.send_task(
                TASK_NAME, args=[bundle, dict(row), dict(envelope)], task_id=run_id, queue=QUEUE, retry=False
            )

    def results(self, run_ids: list[str], wait_s: float) -> Iterator[tuple[str, Mapping[str, Any]]]:
        deadline = time.monotonic() + wait_s
        with self._translated():
            while True:  # one read of every key, then a short pause, until one is ready or time is up
                got = list(
                    self._app.backend.get_many(run_ids, interval=POLL_S, max_iterations=1, no_ack=True)
                )
                if got or time.monotonic() >= deadline:
                    break
        for run_id, meta in got:
            yield str(run_id), meta

    def claims(self, run_ids: list[str]) -> Mapping[str, tuple[bool, bool]]:
        with self._translated():
            return claims.claimed(self._redis, run_ids)

    def give_up(self, run_id: str) -> bool:
        with self._translated():
            return claims.give_up(self._redis, run_id)

    def forget(self, run_id: str) -> None:
        with self._translated():
            self._app.backend.forget(run_id)

    def close(self) -> None:
        with contextlib.suppress(*self._errors):
            self._redis.close()
        with contextlib.suppress(Exception):
            self._app.close()
