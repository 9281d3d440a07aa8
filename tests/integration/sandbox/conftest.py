"""Fixtures of the network-boundary tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.integration.sandbox.netpeers import TcpListener


@pytest.fixture
async def listener() -> AsyncIterator[TcpListener]:
    """A TCP port that must never be reached: it counts the connections it accepts."""
    peer = TcpListener()
    await peer.start()
    yield peer
    await peer.close()
