"""Fixtures for capture tests: the module's loopback server and the rig (tests/integration/record/rig.py)
around one Chromium started through skillreel's launcher."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from skillreel.model.environment import Environment, build_url_target
from skillreel.sandbox.cold import browser_session
from tests.integration.record.rig import Rig
from tests.support.server import LocalServer


@pytest.fixture(scope="module")
def record_server() -> Iterator[LocalServer]:
    with LocalServer() as srv:
        yield srv


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def rig(record_server: LocalServer) -> AsyncIterator[Rig]:
    environment = Environment.build(target=build_url_target(record_server.url("/")))
    async with browser_session(environment) as session:
        yield Rig(session.browser, record_server)
