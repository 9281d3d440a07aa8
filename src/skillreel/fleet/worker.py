"""A fleet worker (``skillreel worker``): a Celery worker that replays rows of signed skill bundles.

It holds no store. For each task ``(bundle, row, envelope)``, before any browser starts:

1. the arguments are read (:func:`skillreel.fleet.envelope.task_arguments`: any arguments are
   accepted by the task and refused here, never a Celery failure), then the row
   (:class:`~skillreel.model.fleet.FleetRow`; its run id is the task's id);
2. the envelope is opened (:func:`skillreel.fleet.envelope.open_envelope`): signed by a key this
   worker trusts in the fleet task's domain, not expired;
3. the bundle is opened (:func:`skillreel.fleet.bundle.open_bundle`): parsed with every digest
   recomputed, signed by a key this worker trusts (``--trust``) in the bundle's domain, the
   signature verified, the skill validated or enabled, on a URL target; and the envelope vouches
   for this bundle, run, inputs, environment and options (``check_binding``);
4. the replay's pre-flight runs on the bundle's entry (approval, capabilities, inputs, environment)
   with sensitive values and vault logins from **this machine's** vault;
5. the envelope's nonce is used (seen before: the task is dropped, ``SR_REPLAY_FLEET_TASK_REPLAYED``
   in the log, the first delivery's result left as it is), then the row is claimed in Redis
   (:mod:`skillreel.fleet.claims`): a row claimed before (a redelivery, or a row the coordinator
   gave up) is dropped without a result.

Then the replay runs with the same network boundary as a local one (``sandbox.context``: the
allowlist in the context routes and the enforcing proxy), its liveness key kept fresh, and the task
returns a :class:`~skillreel.model.fleet.FleetResult`: a refusal (with its ``SR_*`` code, nothing
run) or the outcome with the steps that ran and, for a success, the content-free report.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from pydantic import ValidationError

from ..errors import ReplayError, SkillreelError
from ..model.entry import StoreEntry
from ..model.fleet import MAX_MESSAGE_CHARS, FleetResult, FleetRow, FleetStep
from ..model.policy import Policy
from ..sandbox.warm import WarmBrowser
from ..services.preflight import run_preflight
from ..services.replaying import Preflight, ReplayRequest, SessionFactory, play_checked
from ..services.runs import Played
from ..store import utc_now
from ..store.db import store_home
from ..store.signing import load_trusted_keys
from ..vault import EnvKeyringSecrets, SecretSource
from ..vault.logins import LoginSource, LoginVault
from . import claims
from .app import TASK_NAME, check_broker_url, fleet_app, shown_url
from .bundle import open_bundle
from .envelope import check_binding, open_envelope, task_arguments


@dataclass(frozen=True)
class WorkerConfig:
    """What every task of this worker uses: the broker (for claims), the keys it trusts, its name.
    (A row's liveness timeout is the coordinator's, in the task's envelope.)"""

    broker: str
    trusted: Mapping[str, Ed25519PublicKey]
    name: str


class Duplicate(Exception):
    """The row was claimed, or its envelope used, before: drop the task without a result (Celery's
    ``Ignore``), so the first delivery's result stands. ``note`` is the worker's log line."""

    def __init__(self, run_id: str, note: str = "claimed before, dropped") -> None:
        super().__init__(run_id)
        self.run_id = run_id
        self.note = note


def worker_name() -> str:
    return f"skillreel-{os.getpid()}@{socket.gethostname()}"


def run_task(
    config: WorkerConfig, task_id: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> FleetResult:
    """A task with whatever arguments it was sent: malformed ones are a refusal, never a failure."""
    try:
        bundle, row, envelope = task_arguments(args, kwargs)
    except SkillreelError as exc:
        _say(f"row {task_id[:12]}: refused {exc.code}")
        return refusal(task_id, exc, worker=config.name, signer=None)
    return run_row(config, task_id, bundle, row, envelope)


def run_row(
    config: WorkerConfig,
    task_id: str,
    bundle: str,
    row: Mapping[str, Any],
    envelope: Mapping[str, Any],
    *,
    now: datetime | None = None,
    secrets: SecretSource | None = None,
    logins: LoginSource | None = None,
    session_factory: SessionFactory | None = None,
) -> FleetResult:
    """One task (module docstring). Raises :class:`Duplicate` for a row claimed or an envelope used
    before."""
    signer: str | None = None
    try:
        parsed = read_row(row, task_id)
        sealed, left = open_envelope(envelope, config.trusted, now or datetime.now(UTC))
        document, signer = open_bundle(bundle, config.trusted)
        check_binding(sealed, parsed, document.export_digest)
        checked = _preflight(
            document.entry, parsed, secrets or EnvKeyringSecrets(), logins or LoginVault(store_home())
        )
    except SkillreelError as exc:
        _say(f"row {task_id[:12]}: refused {exc.code}")
        return refusal(task_id, exc, worker=config.name, signer=signer)
    conn = claims.client(config.broker)
    if not claims.use_nonce(conn, sealed.nonce, left.total_seconds()):
        raise Duplicate(parsed.run_id, "refused SR_REPLAY_FLEET_TASK_REPLAYED (its envelope was used before)")
    alive_ttl_s = sealed.heartbeat_ms / 1000
    if not claims.claim(conn, parsed.run_id, config.name, alive_ttl_s=alive_ttl_s):
        raise Duplicate(parsed.run_id)
    with claims.heartbeat(conn, parsed.run_id, config.name, ttl_s=alive_ttl_s):
        played = _browsers.play(checked, session_factory)
    _say(f"row {parsed.run_id[:12]}: {played.status}" + (f" {played.error.code}" if played.error else ""))
    return result_of(parsed.run_id, played, worker=config.name, signer=signer)


def read_row(row: Mapping[str, Any], task_id: str) -> FleetRow:
    try:
        parsed = FleetRow.parse(row)
    except (ValidationError, ValueError, TypeError) as exc:
        raise ReplayError("SR_REPLAY_FLEET_BUNDLE_INVALID", "the task's row is not a skillreel row") from exc
    if parsed.run_id != task_id:
        raise ReplayError("SR_REPLAY_FLEET_BUNDLE_INVALID", "the task's row names another run")
    return parsed


def _preflight(entry: StoreEntry, row: FleetRow, secrets: SecretSource, logins: LoginSource) -> Preflight:
    request = ReplayRequest(
        name=entry.name,
        inputs=row.inputs,
        environment=row.environment,
        heal=row.heal,
        timeout_ms=row.timeout_ms,
        settle_ms=row.settle_ms,
    )
    checked = run_preflight(entry, Policy.default(), request, secrets, logins)
    checked.require_secrets("worker")
    return checked


def refusal(task_id: str, error: SkillreelError, *, worker: str, signer: str | None) -> FleetResult:
    return FleetResult(
        run_id=task_id if _is_run_id(task_id) else "0" * 32,
        status="failed",
        refused=True,
        code=error.code,
        message=error.message[:MAX_MESSAGE_CHARS],
        worker=worker,
        signer=signer,
    )


def result_of(run_id: str, played: Played, *, worker: str, signer: str | None) -> FleetResult:
    error = played.error
    return FleetResult(
        run_id=run_id,
        status=played.status,
        code=error.code if error is not None else None,
        message=error.message[:MAX_MESSAGE_CHARS] if error is not None else None,
        action_id=error.action_id if error is not None else None,
        steps=tuple(FleetStep.parse(s.to_json()) for s in played.steps),
        steps_run=played.tally.steps_run,
        steps_acted=played.tally.steps_acted,
        healed_steps=played.tally.healed_steps,
        report=played.report,
        outputs=played.outputs,
        masked=played.masked_outputs,
        worker=worker,
        signer=signer,
    )


def _is_run_id(value: str) -> bool:
    return len(value) == 32 and all(c in "0123456789abcdef" for c in value)


class _Browsers:
    """One warm Chromium per pool process (``sandbox.warm.WarmBrowser``: a fresh isolated context
    behind its own enforcing proxy for every row, the same boundary as a local replay), on one event
    loop that lives as long as the process. Created on the process's first row, after the fork."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._warm: WarmBrowser | None = None

    def play(self, checked: Preflight, session_factory: SessionFactory | None) -> Played:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        if session_factory is None:
            if self._warm is None:
                self._warm = WarmBrowser(idle_s=WARM_IDLE_S)
            session_factory = self._warm.session
        return self._loop.run_until_complete(play_checked(checked, utc_now, session_factory=session_factory))

    def close(self) -> None:
        loop, warm = self._loop, self._warm
        self._loop = self._warm = None
        if loop is not None:
            if warm is not None:
                loop.run_until_complete(warm.close())
            loop.close()


_browsers = _Browsers()
WARM_IDLE_S = 3600.0  # the loop runs only during a row; the browser goes with its process


# --- the Celery side ---------------------------------------------------------------------------------

_CONFIG: WorkerConfig | None = None  # set before the pool's processes fork; read by every task


def register(app: Any) -> Any:
    """Register the replay task on ``app`` (the worker's side); returns the task."""
    from celery.exceptions import Ignore

    @app.task(name=TASK_NAME, bind=True, acks_late=False, ignore_result=False)  # type: ignore[untyped-decorator]
    def replay_task(task: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if _CONFIG is None:
            raise RuntimeError("the fleet worker is not configured")
        try:
            return run_task(_CONFIG, str(task.request.id), args, kwargs).to_wire()
        except Duplicate as duplicate:
            _say(f"row {str(task.request.id)[:12]}: {duplicate.note}")
            raise Ignore() from None

    return replay_task


def serve(broker: str, *, concurrency: int, trust: list[Path]) -> int:
    """Run a worker until it is stopped (Ctrl-C or SIGTERM: a warm shutdown that lets running rows
    finish); returns its exit status."""
    global _CONFIG
    check_broker_url(broker)
    trusted = load_trusted_keys(trust)
    if not trusted:
        raise ReplayError("SR_REPLAY_FLEET_SIGNER_UNTRUSTED", "a worker needs at least one --trust KEY")
    check_reachable(broker)
    name = worker_name()
    _CONFIG = WorkerConfig(broker, trusted, name)
    app = fleet_app(broker)
    register(app)
    _say(
        f"skillreel worker {name}: broker {shown_url(broker)}, {concurrency} process(es), "
        f"trusts {', '.join(sorted(trusted))}"
    )
    from celery.signals import worker_process_shutdown, worker_ready

    worker_ready.connect(lambda **_: _say(f"skillreel worker {name}: ready"), weak=False)
    worker_process_shutdown.connect(lambda **_: _browsers.close(), weak=False)
    worker = app.Worker(
        hostname=name,
        pool_cls="prefork",
        concurrency=concurrency,
        loglevel="WARNING",
        quiet=True,
        without_gossip=True,
        without_mingle=True,
    )
    worker.start()
    return int(worker.exitcode or 0)


def check_reachable(broker: str) -> None:
    """``SR_REPLAY_FLEET_BROKER_UNREACHABLE`` when Redis does not answer at ``broker``."""
    import redis

    try:
        claims.client(broker).ping()
    except redis.RedisError as exc:
        raise ReplayError(
            "SR_REPLAY_FLEET_BROKER_UNREACHABLE",
            f"the broker {shown_url(broker)} did not answer ({type(exc).__name__})",
        ) from exc


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
