"""Use cases called as functions over a temporary store; tests/e2e/ drives a few through the console
script. Every test's store home is owner-only when it is done."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from skillreel.store import Store
from tests.support.readback import assert_owner_only


@pytest.fixture
def store(skillreel_home: Path) -> Iterator[Store]:
    with Store.open() as opened:
        yield opened
    assert_owner_only(skillreel_home)
