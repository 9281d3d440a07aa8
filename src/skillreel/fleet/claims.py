"""At most once, whatever the broker does: every row is claimed once, in Redis, before a browser.

Celery acknowledges a fleet task early (before it runs, ``task_acks_late`` off), so the broker does
not hand a started row to another worker when its worker dies. Early acknowledgement still leaves
windows: a prefork worker acknowledges when its child reports the task accepted (the child may
already run), and a message a dead worker had received but not yet acknowledged comes back after
the Redis ``visibility_timeout``. So the rule that counts is this one:

- a worker claims a row (``SET skillreel:fleet:claim:RUN NX``) before it opens the bundle's browser;
  a row already claimed (run, or running, or given up by the coordinator) is never run again;
- while it runs the row, the worker keeps ``skillreel:fleet:alive:RUN`` fresh (a key with a short
  time to live, refreshed by a heartbeat thread): the coordinator reads a claimed row without a
  result whose liveness key expired as ``interrupted`` (its worker is gone; it may have acted);
- the coordinator gives up a row nobody claimed yet by claiming it itself (``cancelled``), so a
  late delivery of it is refused too.

Claims expire after a week (what a batch may take at most); liveness keys after ``ttl_s``. A task
envelope's nonce (``fleet/envelope.py``) is kept (``skillreel:fleet:nonce:NONCE``) as long as the
envelope lives: a task whose nonce is there was delivered before.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any, Final

import redis

CLAIM_PREFIX: Final = "skillreel:fleet:claim:"
NONCE_PREFIX: Final = "skillreel:fleet:nonce:"
ALIVE_PREFIX: Final = "skillreel:fleet:alive:"
CLAIM_TTL_S: Final = 7 * 24 * 3600
COORDINATOR: Final = "coordinator"

# Claim and mark alive in one step, so a claimed row is never seen without its liveness key.
_CLAIM = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2]) then
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
  return 1
end
return 0
"""


def client(url: str, *, timeout_s: float = 5.0) -> redis.Redis:
    return redis.Redis.from_url(url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)


def claim(conn: redis.Redis, run_id: str, holder: str, *, alive_ttl_s: float) -> bool:
    """Claim ``run_id`` for ``holder`` (and mark it alive); False when it was claimed before."""
    keys = (CLAIM_PREFIX + run_id, ALIVE_PREFIX + run_id)
    got = conn.eval(_CLAIM, 2, *keys, holder, CLAIM_TTL_S, int(alive_ttl_s * 1000))
    return bool(got)


def use_nonce(conn: redis.Redis, nonce: str, lifetime_s: float) -> bool:
    """Mark a task envelope's nonce used until the envelope expires; False when it was used before."""
    ttl_ms = max(1000, int(lifetime_s * 1000))
    return bool(conn.set(NONCE_PREFIX + nonce, b"1", nx=True, px=ttl_ms))


def give_up(conn: redis.Redis, run_id: str) -> bool:
    """The coordinator takes a row nobody claimed yet, so no worker ever runs it; False when a worker
    claimed it first."""
    return bool(conn.set(CLAIM_PREFIX + run_id, COORDINATOR, nx=True, ex=CLAIM_TTL_S))


def claimed(conn: redis.Redis, run_ids: list[str]) -> dict[str, tuple[bool, bool]]:
    """For each run id: (claimed by a worker, its liveness key present)."""
    if not run_ids:
        return {}
    pipe = conn.pipeline(transaction=False)
    for run_id in run_ids:
        pipe.get(CLAIM_PREFIX + run_id)
        pipe.exists(ALIVE_PREFIX + run_id)
    answers: list[Any] = pipe.execute()
    found = {}
    for i, run_id in enumerate(run_ids):
        holder, alive = answers[2 * i], answers[2 * i + 1]
        by_worker = holder is not None and holder != COORDINATOR.encode()
        found[run_id] = (by_worker, bool(alive))
    return found


@contextlib.contextmanager
def heartbeat(conn: redis.Redis, run_id: str, holder: str, *, ttl_s: float) -> Iterator[None]:
    """Keep the liveness key of ``run_id`` fresh while the body runs (a daemon thread refreshing it
    five times per ``ttl_s``). On exit the key is left to expire: the result is stored by then."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(ttl_s / 5):
            with contextlib.suppress(redis.RedisError):
                conn.set(ALIVE_PREFIX + run_id, holder, px=int(ttl_s * 1000))

    thread = threading.Thread(target=beat, name=f"skillreel-heartbeat-{run_id[:8]}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
