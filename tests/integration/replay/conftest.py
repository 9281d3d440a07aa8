"""Fixtures for replay tests: a store in the test's home. Bundles come from
tests/support/describe.py, drafts and stored skills from tests/support/factory.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from skillreel.store import Store


@pytest.fixture
def store(skillreel_home: Path) -> Iterator[Store]:
    with Store.open() as opened:
        yield opened
