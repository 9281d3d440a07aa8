"""Run the review page: bind 127.0.0.1 only (never another interface), answer at a random host name
under ``localhost`` only (``ui.guard``), print the URL with that name and its page token, serve until
interrupted."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

from ..errors import RecordError
from .app import build_app
from .guard import LOOPBACK, Guard, new_host_name, new_token


def bind_loopback(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:``port`` (0: any free port); SR_RECORD_USAGE when taken."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((LOOPBACK, port))
        sock.listen(64)
    except OSError as exc:
        sock.close()
        raise RecordError("SR_RECORD_USAGE", f"cannot listen on {LOOPBACK}:{port} ({exc.strerror})") from exc
    return sock


def serve(
    port: int = 0,
    *,
    reviewer: str | None = None,
    home: Path | None = None,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve the review page until interrupted; ``announce`` gets the URL to open."""
    import uvicorn

    sock = bind_loopback(port)
    guard = Guard(port=sock.getsockname()[1], token=new_token(), host_name=new_host_name())
    app = build_app(guard, home=home, reviewer=reviewer)
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        proxy_headers=False,  # no X-Forwarded-* is trusted: the page is for this machine only
        server_header=False,
        lifespan="off",
    )
    announce(guard.url())
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
