"""The enforcing local forward proxy every skillreel Chromium is launched through.

Playwright routing alone is not a boundary (ARCHITECTURE section 7: a server redirect to another
origin and a web socket opened from a worker got past ``context.route``). So Chromium runs with
``--proxy-server=http://127.0.0.1:PORT --proxy-bypass-list=<-loopback>`` and DNS mapped away:
every connection it makes (pages, workers, redirects, web sockets, loopback included) has to ask
this proxy, which admits only allowlisted destinations.

What it speaks:

- ``CONNECT host:port`` (https, wss, and ws through a proxy): judged by
  :func:`allowlist.decide_connect`; allowed tunnels are piped both ways unseen.
- Absolute-form ``http://`` requests: judged by :func:`allowlist.decide_forward`; one request per
  upstream connection, sent with ``Connection: close`` (both ways) so a kept-alive client
  connection can never carry a second request to the wrong upstream.
- ``Upgrade`` requests (``ws://`` in the clear): judged the same, then piped both ways.
- Anything else (origin-form paths, malformed or oversize heads): refused.

Every refusal answers ``403`` (``400`` for garbage) marked ``x-skillreel-proxy: refused`` (a replay
never reports the proxy's own answer as the site's status), never opens an upstream connection, and
calls ``on_refused(origin)`` with an origin string only; except that hosts under
``allowlist.SINKHOLE_SUFFIX`` (the fixture's origin, and where Chromium's own account and update
services are pointed) are refused without a report. An allowlisted server that cannot be reached
gets the proxy's own ``502`` marked ``x-skillreel-proxy: unreachable`` (:data:`UNREACHABLE`): the
browser turns it into a net error, the headless shell shows it as a page, and the session tells
it from a server's own 502 by the mark. The proxy runs on the caller's event
loop, in-process, on 127.0.0.1 with an ephemeral port.

DNS rebinding: an allowlisted host name is resolved once, by the proxy (``resolver``, else
:func:`system_resolver`), the first time a connection asks for it, and every later connection of the proxy's
life (one browser session: one replay) goes to that same address, whatever the name's DNS answers
later. A name any of whose addresses is loopback, private, link-local, shared, reserved or a cloud
metadata address (``model.addresses.local_address``) is refused (403, nothing connected, reported
as ``model.addresses.refused_origin(origin)``), unless the allowlisted origin is such an address
itself (an IP origin, used as given) or a loopback name (``localhost``, ``*.localhost``), or the
caller names it in ``local_hosts``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Awaitable, Callable, Iterable
from typing import Final
from urllib.parse import urlsplit

from ..model.addresses import PROXY_ANSWER_HEADER, ip_literal, local_address, local_by_name, refused_origin
from .allowlist import EgressDecision, decide_connect, decide_forward, split_authority

log = logging.getLogger(__name__)

MAX_HEAD_BYTES: Final = 64 * 1024
HEAD_TIMEOUT_S: Final = 30.0
CONNECT_TIMEOUT_S: Final = 10.0
CHUNK: Final = 64 * 1024
_HOP_BY_HOP: Final = frozenset({"proxy-connection", "proxy-authorization", "keep-alive", "connection"})

Refused = Callable[[str | None], None]
Resolver = Callable[[str, int], Awaitable[tuple[str, ...]]]  # (host, port) -> addresses


async def system_resolver(host: str, port: int) -> tuple[str, ...]:
    """The addresses the system's resolver gives ``host`` for a TCP connection, in its order."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return tuple(dict.fromkeys(str(info[4][0]) for info in infos))


class _AddressRefused(Exception):
    """An allowlisted name resolved to an address it may not lead to."""


class _BadRequest(Exception):
    """The client sent something that is not a proxy request we speak."""


def _parse_head(head: bytes) -> tuple[str, str, str, list[tuple[str, str]]]:
    try:
        text = head.decode("latin-1")
    except UnicodeDecodeError as exc:  # pragma: no cover - latin-1 decodes every byte
        raise _BadRequest from exc
    lines = text.split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise _BadRequest
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise _BadRequest
        headers.append((name, value.strip()))
    return parts[0], parts[1], parts[2], headers


def _has_token(headers: list[tuple[str, str]], name: str, token: str) -> bool:
    return any(k.lower() == name and token in (t.strip().lower() for t in v.split(",")) for k, v in headers)


def _render_head(first_line: str, headers: list[tuple[str, str]]) -> bytes:
    lines = [first_line, *(f"{k}: {v}" for k, v in headers), "", ""]
    return "\r\n".join(lines).encode("latin-1")


def _response(status: str, body: str = "", *, extra: str = "") -> bytes:
    data = body.encode()
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(data)}\r\nConnection: close\r\nCache-Control: no-store\r\n{extra}\r\n"
    ).encode() + data


# The proxy's own answer when an allowlisted upstream cannot be reached (refused, timed out): a
# full Chromium turns it into net::ERR_HTTP_RESPONSE_CODE_FAILURE, its headless shell shows it as
# a page; the header lets the session tell it from a server's own 502 either way.
UNREACHABLE_HEADER: Final = PROXY_ANSWER_HEADER
UNREACHABLE: Final = _response("502 Bad Gateway", extra=f"{UNREACHABLE_HEADER}: unreachable\r\n")
# every refusal is marked too: a replay never reports the proxy's 403 as the site's answer
_REFUSED: Final = f"{PROXY_ANSWER_HEADER}: refused\r\n"


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, OSError, asyncio.IncompleteReadError):
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()


async def _close(writer: asyncio.StreamWriter) -> None:
    writer.close()
    with contextlib.suppress(ConnectionError, OSError, asyncio.CancelledError):
        await writer.wait_closed()


class EnforcingProxy:
    """An allowlist-enforcing HTTP forward proxy on 127.0.0.1 (see the module docstring)."""

    def __init__(
        self,
        allowed_origins: Iterable[str],
        on_refused: Refused,
        *,
        resolver: Resolver | None = None,
        local_hosts: Iterable[str] = (),
    ) -> None:
        self.allowed_origins = tuple(allowed_origins)
        self._on_refused = on_refused
        self._resolver = resolver
        self._local_hosts = frozenset(h.lower() for h in local_hosts)
        self._pinned: dict[str, str | None] = {}  # host -> the address it resolved to (None: refused)
        self._pinning: dict[str, asyncio.Lock] = {}
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the proxy is not started")
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def server_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=MAX_HEAD_BYTES)

    async def close(self) -> None:
        """Stop listening and drop every open connection (tunnels included)."""
        if self._server is not None:
            self._server.close()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for writer in list(self._writers):
            await _close(writer)
        if self._server is not None:
            with contextlib.suppress(OSError):
                await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> EnforcingProxy:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # --- one client connection -------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        self._writers.add(writer)
        try:
            await self._handle(reader, writer)
        except _BadRequest:
            self._refuse(None, writer, "400 Bad Request")
        except (
            ConnectionError,
            OSError,
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            TimeoutError,
        ):
            pass
        except asyncio.CancelledError:
            # close() dropped the connection (a request still held upstream when a warm browser's
            # context closed). Ending quietly: Python 3.11's start_server callback asks a cancelled
            # handler task for its exception and logs a traceback.
            pass
        finally:
            self._writers.discard(writer)
            await _close(writer)
            if task is not None:
                self._tasks.discard(task)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S)
        except asyncio.LimitOverrunError as exc:
            raise _BadRequest from exc
        except asyncio.IncompleteReadError:
            return  # the client went away before asking anything
        method, target, version, headers = _parse_head(head[:-4])
        if method == "CONNECT":
            await self._connect(target, reader, writer)
        else:
            await self._forward(method, target, version, headers, reader, writer)

    def _refuse(
        self, origin: str | None, writer: asyncio.StreamWriter, status: str = "403 Forbidden"
    ) -> None:
        log.debug("refused %s", origin or "(unparsable request)")
        self._on_refused(origin)
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            writer.write(_response(status, "refused by skillreel: origin not allowlisted\n", extra=_REFUSED))

    def _decide(self, decision: EgressDecision, writer: asyncio.StreamWriter) -> bool:
        if decision.reason == "sinkhole":
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                writer.write(_response("403 Forbidden", extra=_REFUSED))
        elif not decision.allowed:
            self._refuse(decision.origin, writer)
        return decision.allowed

    async def address_of(self, host: str, port: int) -> str:
        """The one address ``host`` leads to for this proxy's life: resolved the first time, then
        pinned (see the module docstring). Raises ``_AddressRefused`` (pinned too) or ``OSError``."""
        literal = ip_literal(host)
        if literal is not None:
            return str(literal)  # the allowlisted origin is this address itself
        key = host.lower().rstrip(".")
        lock = self._pinning.setdefault(key, asyncio.Lock())
        async with lock:
            if key not in self._pinned:
                resolve = self._resolver or system_resolver  # looked up now: a test may replace it
                answers = await asyncio.wait_for(resolve(host, port), CONNECT_TIMEOUT_S)
                if not answers:
                    raise OSError(f"no address for {host}")
                local_ok = local_by_name(key) or key in self._local_hosts
                refused = not local_ok and any(local_address(a) for a in answers)
                self._pinned[key] = None if refused else answers[0]
        address = self._pinned[key]
        if address is None:
            raise _AddressRefused
        return address

    async def _open(
        self, host: str, port: int, writer: asyncio.StreamWriter, origin: str | None = None
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        try:
            address = await self.address_of(host, port)
            up_reader, up_writer = await asyncio.wait_for(
                asyncio.open_connection(address, port, limit=MAX_HEAD_BYTES), CONNECT_TIMEOUT_S
            )
        except _AddressRefused:
            log.debug("refused %s: its name resolved to a local address", origin)
            self._on_refused(refused_origin(origin))
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                writer.write(
                    _response("403 Forbidden", "refused by skillreel: address not allowed\n", extra=_REFUSED)
                )
            return None
        except (OSError, TimeoutError):
            writer.write(UNREACHABLE)
            return None
        self._writers.add(up_writer)
        return up_reader, up_writer

    async def _connect(
        self, authority: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            host, port = split_authority(authority)
        except ValueError as exc:
            raise _BadRequest from exc
        decision = decide_connect(host, port, self.allowed_origins)
        if not self._decide(decision, writer):
            return
        upstream = await self._open(host, port, writer, decision.origin)
        if upstream is None:
            return
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()
        await self._splice((reader, upstream[1]), (upstream[0], writer))

    async def _forward(
        self,
        method: str,
        target: str,
        version: str,
        headers: list[tuple[str, str]],
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        decision = decide_forward(target, self.allowed_origins)
        if not self._decide(decision, writer):
            return
        parts = urlsplit(target)
        host, port = parts.hostname or "", parts.port or 80
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        upgrade = _has_token(headers, "connection", "upgrade") and any(
            k.lower() == "upgrade" for k, _ in headers
        )
        kept = [(k, v) for k, v in headers if k.lower() not in _HOP_BY_HOP]
        kept.append(("Connection", "Upgrade") if upgrade else ("Connection", "close"))
        upstream = await self._open(host, port, writer, decision.origin)
        if upstream is None:
            return
        up_reader, up_writer = upstream
        up_writer.write(_render_head(f"{method} {path} {version}", kept))
        await up_writer.drain()
        if upgrade:
            await self._splice((reader, up_writer), (up_reader, writer))
        else:
            await self._splice((reader, up_writer), (up_reader, writer), rewrite_response=True)

    async def _splice(
        self,
        outbound: tuple[asyncio.StreamReader, asyncio.StreamWriter],
        inbound: tuple[asyncio.StreamReader, asyncio.StreamWriter],
        *,
        rewrite_response: bool = False,
    ) -> None:
        """Pipe both directions until either ends, then close both."""
        back = self._relay_response(*inbound) if rewrite_response else _pipe(*inbound)
        tasks = [asyncio.ensure_future(_pipe(*outbound)), asyncio.ensure_future(back)]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._writers.discard(outbound[1])
            await _close(outbound[1])

    async def _relay_response(self, up_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Relay the upstream response, marking it ``Connection: close`` for the client."""
        try:
            head = await up_reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, OSError):
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                writer.write(_response("502 Bad Gateway"))
            return
        lines = head[:-4].decode("latin-1").split("\r\n")
        kept = [
            (k, v.strip())
            for k, _, v in (line.partition(":") for line in lines[1:] if line)
            if k.lower() not in _HOP_BY_HOP
        ]
        kept.append(("Connection", "close"))
        writer.write(_render_head(lines[0], kept))
        await writer.drain()
        await _pipe(up_reader, writer)
