"""`skillreel worker`: a fleet worker, a Celery worker on a Redis broker that replays signed rows.

It holds no store: every task carries a skill bundle signed by the coordinating store's key, which
the worker verifies against ``--trust`` (with every digest) before any browser starts; sensitive
values come from this machine's vault, and every task's envelope (signed by the same key) binds it
to its row, once, for minutes. The broker URL comes from ``SKILLREEL_BROKER_URL``,
``--broker-url-file`` or (without a password) ``--broker``. Needs the extra ``skillreel[fleet]``
(``SR_REPLAY_FLEET_UNAVAILABLE`` otherwise). Runs until Ctrl-C or SIGTERM (running rows finish).
Like ``mcp``, ``--json`` only changes how an error that stops it from starting is printed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..model.limits import DEFAULT_WORKER_CONCURRENCY, HEARTBEAT_S_RANGE, WORKER_CONCURRENCY_RANGE
from .output import json_option


@click.command("worker")
@click.option(
    "--broker",
    metavar="URL",
    help="The Redis broker, without a password: redis://HOST:6379/0 (default: $SKILLREEL_BROKER_URL).",
)
@click.option(
    "--broker-url-file",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="A file (readable by you only) holding the broker URL, with its password.",
)
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
    hidden=True,  # the coordinator sets it now (replay --broker --heartbeat); accepted for a version
)
@json_option
def command(
    broker: str | None,
    broker_url_file: Path | None,
    concurrency: int,
    trust: tuple[Path, ...],
    heartbeat_s: float | None,
    as_json: bool,
) -> None:
    """Run a fleet worker: replay signed skill bundles from a Redis broker."""
    from ..fleet.app import broker_url, require_celery

    require_celery()
    url = broker_url(broker, broker_url_file)
    from ..fleet.worker import serve

    if heartbeat_s is not None:
        click.echo(
            "note: worker --heartbeat is ignored: the coordinator sets it (replay --heartbeat)", err=True
        )
    sys.exit(serve(url, concurrency=concurrency, trust=list(trust)))
