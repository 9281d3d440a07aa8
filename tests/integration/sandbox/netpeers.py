"""Small asyncio peers on 127.0.0.1 for network-boundary tests (they run on the test's loop).

- :class:`TcpListener` accepts and counts raw TCP connections (a web socket target that must
  never be reached: any accepted connection is a leak).
- :class:`EchoWebSocketServer` a minimal RFC 6455 server that echoes one text frame (to prove an
  allowlisted socket still works through the proxy).
- :class:`HeadRecorder` an HTTP/1.1 server that records every request head and answers a page.
- :class:`Refusals` collects what a proxy reports refused; :func:`exchange` sends bytes to a proxy
  and reads its answer until it closes.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import struct

_WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class _Peer:
    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
        if self._server is not None:
            await self._server.wait_closed()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            await self.handle(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, OSError):
            pass
        finally:
            self._writers.discard(writer)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raise NotImplementedError


class TcpListener(_Peer):
    def __init__(self) -> None:
        super().__init__()
        self.accepted = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1


class EchoWebSocketServer(_Peer):
    def __init__(self) -> None:
        super().__init__()
        self.handshakes = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        key = next(
            line.split(b":", 1)[1].strip()
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"sec-websocket-key:")
        )
        accept = base64.b64encode(hashlib.sha1(key + _WS_GUID).digest())
        writer.write(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n"
        )
        self.handshakes += 1
        _first, second = await reader.readexactly(2)
        length = second & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", await reader.readexactly(2))
        mask = await reader.readexactly(4)
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(await reader.readexactly(length)))
        writer.write(bytes([0x81, len(payload)]) + payload)  # short text frames only
        await writer.drain()
        await reader.read(1024)  # until the client closes


class HeadRecorder(_Peer):
    def __init__(self, body: str = "<html><body><h1 id=t>recorded</h1></body></html>") -> None:
        super().__init__()
        self.heads: list[str] = []
        self.body = body.encode()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            self.heads.append(head.decode("latin-1"))
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                b"Cache-Control: no-store\r\nContent-Length: "
                + str(len(self.body)).encode()
                + b"\r\n\r\n"
                + self.body
            )
            await writer.drain()

    def header_values(self, name: str) -> list[str]:
        prefix = name.lower() + ":"
        return [
            line.split(":", 1)[1].strip()
            for head in self.heads
            for line in head.split("\r\n")
            if line.lower().startswith(prefix)
        ]


class Refusals(list[str | None]):
    """A proxy's ``on_refused``: the origins it reported, in order."""

    def __call__(self, origin: str | None) -> None:
        self.append(origin)


async def exchange(port: int, data: bytes, wait_s: float = 20.0) -> bytes:
    """Send ``data`` to the proxy on ``port`` and read until it closes the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), wait_s)
    finally:
        writer.close()
        await writer.wait_closed()
