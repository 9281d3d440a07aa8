"""The enforcing proxy on its own, spoken to over raw sockets (no browser)."""

from __future__ import annotations

import asyncio
import contextlib
import socket

import pytest

from skillreel.sandbox.proxy import EnforcingProxy
from tests.integration.sandbox.netpeers import EchoWebSocketServer, HeadRecorder, Refusals, TcpListener
from tests.integration.sandbox.netpeers import exchange as send
from tests.support.server import LocalServer

WAIT_S = 20.0


async def exchange(proxy: EnforcingProxy, data: bytes) -> bytes:
    """Send ``data`` to the proxy and read until it closes the connection."""
    return await send(proxy.port, data, WAIT_S)


async def started(allowed: tuple[str, ...], refusals: Refusals) -> EnforcingProxy:
    proxy = EnforcingProxy(allowed, refusals)
    await proxy.start()
    return proxy


async def test_connect_off_the_allowlist_is_refused_without_connecting(listener: TcpListener) -> None:
    refusals = Refusals()
    proxy = await started(("http://127.0.0.1:1",), refusals)
    try:
        authority = f"127.0.0.1:{listener.port}"
        answer = await exchange(proxy, f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
    finally:
        await proxy.close()
    assert answer.startswith(b"HTTP/1.1 403 ")
    assert refusals == [f"https://127.0.0.1:{listener.port}"]
    assert listener.accepted == 0


async def test_connect_to_an_allowlisted_destination_tunnels() -> None:
    upstream = HeadRecorder()
    await upstream.start()
    refusals = Refusals()
    proxy = await started((upstream.origin,), refusals)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        writer.write(f"CONNECT 127.0.0.1:{upstream.port} HTTP/1.1\r\n\r\n".encode())
        established = await reader.readuntil(b"\r\n\r\n")
        writer.write(b"GET /through HTTP/1.1\r\nHost: x\r\n\r\n")
        response = await asyncio.wait_for(reader.readuntil(b"</html>"), WAIT_S)
        writer.close()
        await writer.wait_closed()
    finally:
        await proxy.close()
        await upstream.close()
    assert established.startswith(b"HTTP/1.1 200 ")
    assert b"recorded" in response
    assert upstream.heads[0].startswith("GET /through HTTP/1.1")
    assert refusals == []


async def test_forward_request_to_allowlisted_origin(server: LocalServer) -> None:
    server.set_page("/page", "<p>hello</p>")
    refusals = Refusals()
    proxy = await started((server.origin,), refusals)
    try:
        answer = await exchange(
            proxy,
            (
                f"GET {server.url('/page')}?q=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Proxy-Connection: keep-alive\r\n\r\n"
            ).encode(),
        )
    finally:
        await proxy.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ")
    assert b"\r\nConnection: close" in head
    assert body == b"<p>hello</p>"
    assert server.requests == [("GET", "/page?q=1")]
    assert refusals == []


async def test_forward_post_body_reaches_allowlisted_origin(server: LocalServer) -> None:
    server.set_route("/post", body=b"ok")
    proxy = await started((server.origin,), Refusals())
    try:
        answer = await exchange(
            proxy,
            (
                f"POST {server.url('/post')} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello"
            ).encode(),
        )
    finally:
        await proxy.close()
    assert answer.startswith(b"HTTP/1.1 200 ")
    assert server.bodies == [b"hello"]


async def test_forward_request_off_the_allowlist_is_refused(
    server: LocalServer, second_server: LocalServer
) -> None:
    refusals = Refusals()
    proxy = await started((server.origin,), refusals)
    try:
        answer = await exchange(proxy, f"GET {second_server.url('/x')} HTTP/1.1\r\n\r\n".encode())
    finally:
        await proxy.close()
    assert answer.startswith(b"HTTP/1.1 403 ")
    # marked as the proxy's own answer: a replay never reports it as the site's status
    assert b"\r\nx-skillreel-proxy: refused\r\n" in answer.split(b"\r\n\r\n")[0] + b"\r\n"
    assert refusals == [second_server.origin]
    assert second_server.requests == []


async def test_second_request_on_a_connection_cannot_reach_another_upstream(
    server: LocalServer, second_server: LocalServer
) -> None:
    server.set_page("/a", "a")
    second_server.set_page("/b", "b")
    proxy = await started((server.origin,), Refusals())
    try:
        answer = await exchange(
            proxy,
            (
                f"GET {server.url('/a')} HTTP/1.1\r\n\r\nGET {second_server.url('/b')} HTTP/1.1\r\n\r\n"
            ).encode(),
        )
    finally:
        await proxy.close()
    assert answer.count(b"HTTP/1.1 ") == 1
    assert second_server.requests == []


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET / HTTP/1.1\r\n\r\n",  # origin-form: not a proxy request
        b"GET https://127.0.0.1:1/ HTTP/1.1\r\n\r\n",  # https is never forwarded in the clear
        b"GET file:///etc/passwd HTTP/1.1\r\n\r\n",
    ],
)
async def test_requests_that_are_not_forwardable_are_refused(request_bytes: bytes) -> None:
    refusals = Refusals()
    proxy = await started(("http://127.0.0.1:1",), refusals)
    try:
        answer = await exchange(proxy, request_bytes)
    finally:
        await proxy.close()
    assert answer.startswith(b"HTTP/1.1 403 ")
    assert len(refusals) == 1


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"NONSENSE\r\n\r\n",
        b"CONNECT nohostport HTTP/1.1\r\n\r\n",
        b"GET http://127.0.0.1:1/ HTTP/1.1\r\nbad header line\r\n\r\n",
    ],
)
async def test_garbage_gets_400(request_bytes: bytes) -> None:
    refusals = Refusals()
    proxy = await started(("http://127.0.0.1:1",), refusals)
    try:
        answer = await exchange(proxy, request_bytes)
    finally:
        await proxy.close()
    assert answer.startswith(b"HTTP/1.1 400 ")
    assert refusals == [None]


async def test_oversize_head_is_refused() -> None:
    refusals = Refusals()
    proxy = await started(("http://127.0.0.1:1",), refusals)
    try:
        # the proxy stops reading at 64 KiB and closes; the unread rest may reset the connection
        with contextlib.suppress(ConnectionResetError):
            await exchange(proxy, b"GET http://127.0.0.1:1/ HTTP/1.1\r\nX: " + b"a" * 70_000 + b"\r\n\r\n")
    finally:
        await proxy.close()
    assert refusals == [None]


async def test_sinkhole_hosts_are_refused_silently() -> None:
    refusals = Refusals()
    proxy = await started(("http://127.0.0.1:1",), refusals)
    try:
        answer = await exchange(proxy, b"CONNECT update.skillreel.invalid:443 HTTP/1.1\r\n\r\n")
    finally:
        await proxy.close()
    assert answer.startswith(b"HTTP/1.1 403 ")
    assert b"\r\nx-skillreel-proxy: refused\r\n" in answer
    assert refusals == []


async def test_plain_upgrade_request_is_piped_to_allowlisted_socket() -> None:
    echo = EchoWebSocketServer()
    await echo.start()
    proxy = await started((f"http://127.0.0.1:{echo.port}",), Refusals())
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        writer.write(
            (
                f"GET ws://127.0.0.1:{echo.port}/s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
            ).encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), WAIT_S)
        writer.write(bytes([0x81, 0x82, 0, 0, 0, 0]) + b"hi")  # masked (zero mask) text frame
        frame = await asyncio.wait_for(reader.readexactly(4), WAIT_S)
        writer.close()
        await writer.wait_closed()
    finally:
        await proxy.close()
        await echo.close()
    assert head.startswith(b"HTTP/1.1 101 ")
    assert b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" in head
    assert frame == bytes([0x81, 2]) + b"hi"


async def test_close_drops_open_tunnels() -> None:
    upstream = HeadRecorder()
    await upstream.start()
    proxy = await started((upstream.origin,), Refusals())
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    try:
        writer.write(f"CONNECT 127.0.0.1:{upstream.port} HTTP/1.1\r\n\r\n".encode())
        await reader.readuntil(b"\r\n\r\n")
        await proxy.close()
        assert await asyncio.wait_for(reader.read(), WAIT_S) == b""
    finally:
        writer.close()
        await writer.wait_closed()
        await upstream.close()


@pytest.mark.parametrize("method", ["GET", "CONNECT"])
async def test_an_allowlisted_server_that_cannot_be_reached_gets_the_proxys_own_502(method: str) -> None:
    # Nobody listens on the port: the proxy answers 502 marked as its own, so a session can tell it
    # from a server's 502 whichever Chromium build shows it (net error, or a page).
    with contextlib.closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    refusals = Refusals()
    proxy = await started((f"http://127.0.0.1:{port}", f"https://127.0.0.1:{port}"), refusals)
    try:
        target = f"http://127.0.0.1:{port}/gone" if method == "GET" else f"127.0.0.1:{port}"
        answer = await exchange(
            proxy, f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
        )
    finally:
        await proxy.close()
    head = answer.split(b"\r\n\r\n", 1)[0].decode().lower()
    assert head.startswith("http/1.1 502 ")
    assert "\r\nx-skillreel-proxy: unreachable" in head
    assert refusals == []  # allowlisted: not a refusal
