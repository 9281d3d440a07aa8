"""Fixtures for the hostile capture tests: a loopback server and the rig (tests/integration/record/
rig.py) around one Chromium started through skillreel's launcher, one per module."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from skillreel.model.environment import Environment, build_url_target
from skillreel.sandbox.cold import browser_session
from tests.integration.record.rig import Rig
from tests.support.server import LocalServer


@pytest.fixture(scope="module")
def hostile_server() -> Iterator[LocalServer]:
    with LocalServer() as srv:
        yield srv


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def hostile_rig(hostile_server: LocalServer) -> AsyncIterator[Rig]:
    environment = Environment.build(target=build_url_target(hostile_server.url("/")))
    async with browser_session(environment) as session:
        yield Rig(session.browser, hostile_server)
