"""The Celery application both ends of the fleet use: Redis as broker and result backend, JSON only.

The settings that make a row run at most once (with the claims of :mod:`skillreel.fleet.claims`):

- ``task_acks_late = False``: a task message is acknowledged when a worker process accepts it,
  before the replay starts, so a worker that dies mid-row is never given the row again by the
  broker; ``task_reject_on_worker_lost`` stays off for the same reason;
- ``worker_disable_prefetch`` (Celery 5.6, Redis only) and ``worker_prefetch_multiplier = 1``: a
  worker takes a message only when one of its processes is free, so a dead worker held no queue of
  rows it had not started (those would come back only after the ``visibility_timeout``);
- ``visibility_timeout`` (1 hour, the Redis transport's default, set on broker and backend alike as
  Celery's documentation asks): how long a message received and not acknowledged stays invisible
  before Redis hands it out again. Rows are acknowledged before they run, so it only delays rows
  that never started; a redelivered row that did start is refused by its claim.

Only JSON is accepted (no pickle from the broker), on its own queue (``skillreel``), so other Celery
applications on the same Redis do not see these tasks. A result (it may hold a row's outputs) expires
from Redis after ``result_expires`` (15 minutes) when nobody collects it; the coordinator deletes each
one as it records it.

The broker's URL (its password) never needs the command line, where ``ps`` shows it to every user of
the machine (:func:`broker_url`): it comes from ``SKILLREEL_BROKER_URL`` or a file readable by its
owner only (``--broker-url-file``); ``--broker URL`` takes a URL without a password.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from ..errors import InputError, ReplayError
from ..store.signing import check_owner_only
from ..user_files import read_user_file

QUEUE: Final = "skillreel"
TASK_NAME: Final = "skillreel.fleet.replay"
VISIBILITY_TIMEOUT_S: Final = 3600
RESULT_EXPIRES_S: Final = 15 * 60
SCHEMES: Final = ("redis", "rediss")
BROKER_VARIABLE: Final = "SKILLREEL_BROKER_URL"
MAX_URL_FILE_BYTES: Final = 4096


def require_celery() -> None:
    """``SR_REPLAY_FLEET_UNAVAILABLE`` when the optional extra ``skillreel[fleet]`` is missing."""
    try:
        import celery  # noqa: F401
        import redis  # noqa: F401
    except ImportError as exc:
        raise ReplayError(
            "SR_REPLAY_FLEET_UNAVAILABLE",
            "the fleet needs Celery with Redis: install the extra `skillreel[fleet]`",
        ) from exc


def check_broker_url(url: str) -> str:
    """A ``redis://`` or ``rediss://`` URL (``SR_RECORD_USAGE`` otherwise, without echoing it)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a bad port raises here)
    except ValueError as exc:
        raise InputError("SR_RECORD_USAGE", "--broker takes redis://HOST:6379/0") from exc
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise InputError("SR_RECORD_USAGE", "--broker takes redis://HOST:6379/0 (or rediss:// for TLS)")
    if parts.query or parts.fragment:  # ?password=... would be shown in logs; kombu also breaks on it
        raise InputError(
            "SR_RECORD_USAGE",
            "--broker takes no query or fragment: give a password as redis://:PASSWORD@HOST:6379/0",
        )
    return url


def broker_url(given: str | None, url_file: Path | None, environ: Mapping[str, str] = os.environ) -> str:
    """The broker URL from ``--broker`` (without a password: ``SR_REPLAY_FLEET_BROKER_PASSWORD_ON_ARGV``
    otherwise), ``--broker-url-file`` (readable by its owner only: ``SR_RECORD_SECRET_FILE_EXPOSED``)
    or ``SKILLREEL_BROKER_URL``, checked (:func:`check_broker_url`)."""
    if given is not None and url_file is not None:
        raise InputError("SR_RECORD_USAGE", "give the broker once: --broker URL or --broker-url-file FILE")
    if given is not None:
        if _has_password(given):
            raise ReplayError(
                "SR_REPLAY_FLEET_BROKER_PASSWORD_ON_ARGV",
                f"--broker holds a password, which `ps` shows to every user of this machine: put the URL "
                f"in {BROKER_VARIABLE} or in a file only you can read (--broker-url-file FILE)",
            )
        return check_broker_url(given)
    if url_file is not None:
        check_owner_only(url_file, "broker URL file")
        data = read_user_file(url_file, what="broker URL file", limit=MAX_URL_FILE_BYTES)
        try:
            return check_broker_url(data.decode("utf-8").strip())
        except UnicodeDecodeError as exc:
            raise InputError("SR_RECORD_USAGE", "the broker URL file is not UTF-8 text") from exc
    from_environment = environ.get(BROKER_VARIABLE, "").strip()
    if not from_environment:
        raise InputError(
            "SR_RECORD_USAGE", f"name the broker: {BROKER_VARIABLE}, --broker-url-file FILE or --broker URL"
        )
    return check_broker_url(from_environment)


def _has_password(url: str) -> bool:
    try:
        return urlsplit(url).password is not None
    except ValueError:
        return "@" in url  # unreadable: check_broker_url refuses it, without echoing it


def shown_url(url: str) -> str:
    """The broker URL without its password (for messages and logs)."""
    parts = urlsplit(url)._replace(query="", fragment="")  # a query may hold a password too
    if parts.password is None:
        return parts.geturl()
    netloc = parts.netloc.rpartition("@")[2]
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return parts._replace(netloc=user + netloc).geturl()


def settings(broker: str, *, visibility_timeout_s: int = VISIBILITY_TIMEOUT_S) -> dict[str, Any]:
    transport = {"visibility_timeout": visibility_timeout_s}
    return {
        "broker_url": broker,
        "result_backend": broker,
        "task_default_queue": QUEUE,
        "task_serializer": "json",
        "result_serializer": "json",
        "accept_content": ["json"],
        "result_accept_content": ["json"],
        "task_acks_late": False,
        "task_reject_on_worker_lost": False,
        "task_track_started": False,
        "worker_prefetch_multiplier": 1,
        "worker_disable_prefetch": True,
        "broker_transport_options": transport,
        "result_backend_transport_options": transport,
        "visibility_timeout": visibility_timeout_s,
        "result_expires": RESULT_EXPIRES_S,
        "broker_connection_retry_on_startup": True,
        "broker_connection_timeout": 5.0,
        "worker_hijack_root_logger": False,
        "worker_send_task_events": False,
        "task_send_sent_event": False,
    }


def fleet_app(broker: str, *, visibility_timeout_s: int = VISIBILITY_TIMEOUT_S) -> Any:
    """A Celery application on ``broker`` (``celery.Celery``; Celery ships no type hints)."""
    require_celery()
    from celery import Celery

    app = Celery("skillreel", set_as_current=False)
    app.conf.update(settings(broker, visibility_timeout_s=visibility_timeout_s))
    return app
