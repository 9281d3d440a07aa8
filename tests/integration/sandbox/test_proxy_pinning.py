"""The enforcing proxy pins what it resolved (issue 30.7, DNS rebinding), over raw sockets with a
resolver seam: a name on the allowlist that resolves to a loopback, private, link-local or
metadata address is refused; a name is resolved once and every later connection goes to that
first address, whatever the name's DNS answers later."""

from __future__ import annotations

import pytest

from skillreel.model.addresses import ADDRESS_REFUSED, address_refused, local_address, local_by_name
from skillreel.sandbox.proxy import EnforcingProxy
from tests.integration.sandbox.netpeers import Refusals, TcpListener
from tests.integration.sandbox.netpeers import exchange as send
from tests.support.server import LocalServer

WAIT_S = 20.0


class FakeDns:
    """Answers ``answers[i]`` to the i-th question (the last one after that) and counts questions."""

    def __init__(self, *answers: tuple[str, ...]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    async def __call__(self, host: str, port: int) -> tuple[str, ...]:
        self.asked.append(host)
        return self.answers[min(len(self.asked), len(self.answers)) - 1]


async def exchange(proxy: EnforcingProxy, data: bytes) -> bytes:
    return await send(proxy.port, data)


def get(origin: str, path: str = "/page") -> bytes:
    host = origin.split("://", 1)[1]
    return f"GET {origin}{path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()


@pytest.mark.parametrize(
    "answer",
    [
        ("10.0.0.5",),
        ("127.0.0.1",),
        ("169.254.169.254",),  # the cloud metadata service
        ("fd00:ec2::254",),
        ("192.168.1.20",),
        ("100.64.0.1",),  # shared address space
        ("::ffff:127.0.0.1",),  # loopback written as IPv6
        ("93.184.215.14", "10.0.0.5"),  # one private answer among public ones: refused all the same
    ],
)
async def test_an_allowlisted_name_that_resolves_to_a_local_address_is_refused(
    listener: TcpListener, answer: tuple[str, ...]
) -> None:
    refusals = Refusals()
    origin = f"http://bank.example:{listener.port}"
    proxy = EnforcingProxy((origin,), refusals, resolver=FakeDns(answer))
    await proxy.start()
    try:
        http = await exchange(proxy, get(origin))
        tunnel = await exchange(proxy, f"CONNECT bank.example:{listener.port} HTTP/1.1\r\n\r\n".encode())
    finally:
        await proxy.close()
    assert http.startswith(b"HTTP/1.1 403 ")
    assert tunnel.startswith(b"HTTP/1.1 403 ")  # the refusal is pinned: CONNECT gets no other answer
    assert refusals[0] == ADDRESS_REFUSED + origin
    assert address_refused(tuple(o for o in refusals if o is not None))
    assert listener.accepted == 0


async def test_a_name_is_resolved_once_and_later_connections_keep_its_first_address(
    server: LocalServer,
) -> None:
    """The rebinding attack: the name answers the site's address first, then an attacker's (here
    127.0.0.2, where nothing listens); the second connection still reaches the first address."""
    server.set_page("/page", "<p>the real site</p>")
    port = server.origin.rsplit(":", 1)[1]
    origin = f"http://app.internal:{port}"
    dns = FakeDns(("127.0.0.1",), ("127.0.0.2",))
    refusals = Refusals()
    # app.internal is a name the caller marks local (its own network), so loopback is allowed
    proxy = EnforcingProxy((origin,), refusals, resolver=dns, local_hosts=("app.internal",))
    await proxy.start()
    try:
        first = await exchange(proxy, get(origin))
        second = await exchange(proxy, get(origin))
    finally:
        await proxy.close()
    assert dns.asked == ["app.internal"]  # asked once, for the proxy's (the session's) life
    assert b"the real site" in first
    assert b"the real site" in second
    assert refusals == []


async def test_an_ip_origin_and_localhost_are_used_as_given(
    server: LocalServer, listener: TcpListener
) -> None:
    server.set_page("/page", "<p>local</p>")
    refusals = Refusals()
    dns = FakeDns(("127.0.0.1",))
    port = server.origin.rsplit(":", 1)[1]
    proxy = EnforcingProxy((server.origin, f"http://localhost:{port}"), refusals, resolver=dns)
    await proxy.start()
    try:
        by_address = await exchange(proxy, get(server.origin))
        by_name = await exchange(proxy, get(f"http://localhost:{port}"))
    finally:
        await proxy.close()
    assert b"local" in by_address
    assert b"local" in by_name
    assert dns.asked == ["localhost"]  # an IP origin is never resolved
    assert refusals == []


def test_the_address_rule() -> None:
    assert not local_address("93.184.215.14")
    assert not local_address("2606:2800:21f:cb07:6820:80da:af6b:8b2c")
    for address in ("127.0.0.1", "::1", "10.1.2.3", "172.16.0.1", "169.254.169.254", "fd00:ec2::254"):
        assert local_address(address), address
    assert local_address("0.0.0.0")
    assert local_address("224.0.0.1")
    assert local_address("not an address")  # fail closed
    assert local_by_name("localhost")
    assert local_by_name("r-1.localhost.")
    assert not local_by_name("localhost.example")
