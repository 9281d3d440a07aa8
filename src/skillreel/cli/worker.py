"""`skillreel worker`: a fleet worker, a Celery worker on a Redis broker that replays signed rows.

It holds no store: every task carries a skill bundle signed by the coordinating store's key, which
the worker verifies against ``--trust`` (with every digest) before any browser starts; sensitive
values come from this machine's vault. Needs the extra ``skillreel[fleet]``
(``SR_REPLAY_FLEET_UNAVAILABLE`` otherwise). Runs until Ctrl-C or SIGTERM (running rows finish).
Like ``mcp``, ``--json`` only changes how an error that stops it from starting is printed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..model.limits import (
    DEFAULT_HEARTBEAT_S,
    DEFAULT_WORKER_CONCURRENCY,
    HEARTBEAT_S_RANGE,
    WORKER_CONCURRENCY_RANGE,
)
from .output import json_option


@click.command("worker")
@click.option("--broker", required=True, metavar="URL", help="The Redis broker: redis://HOST:6379/0.")
@click.option(
    "--concurrency",
    type=click.IntRange(*WORKER_CONCURRENCY_RANGE),
    default=DEFAULT_WORKER_CONCURRENCY,
    show_default=True,
    help="How many rows this worker replays at once (one Chromium each).",
)
@click.option(
    "--trust",
    "trust",
    multiple=True,
    required=True,
    type=click.Path(path_type=Path, dir_okay=False, exists=False),
    metavar="KEY",
    help="A public key (PEM) whose signed bundles this worker runs (repeat for several).",
)
@click.option(
    "--heartbeat",
    "heartbeat_s",
    type=click.FloatRange(*HEARTBEAT_S_RANGE),
    default=DEFAULT_HEARTBEAT_S,
    show_default=True,
    help="Seconds after which a row whose worker stopped answering is reported interrupted.",
)
@json_option
def command(
    broker: str, concurrency: int, trust: tuple[Path, ...], heartbeat_s: float, as_json: bool
) -> None:
    """Run a fleet worker: replay signed skill bundles from a Redis broker."""
    from ..fleet.app import require_celery

    require_celery()
    from ..fleet.worker import serve

    sys.exit(serve(broker, concurrency=concurrency, trust=list(trust), alive_ttl_s=heartbeat_s))
