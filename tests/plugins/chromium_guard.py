"""A pytest plugin (loaded by tests/conftest.py): a test that is not marked ``browser`` cannot start
Chromium, in-process or through a ``skillreel`` subprocess, and fails naming the marker it lacks.

Every launch goes through ``find_chromium``, which honours ``SKILLREEL_CHROMIUM``; for an unmarked
test that variable names a stand-in that records the attempt and exits 1. So the fast run
(``make check``: ``-m "not slow and not browser"``) never starts a browser, and a test that needs one
cannot hide there. Fixtures scoped wider than a test (module, session) start before this check:
modules whose fixtures launch Chromium are marked ``browser`` as a whole.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

LAUNCHED = "chromium-launched"


def install_guard(directory: Path) -> Path:
    """Write the stand-in Chromium into ``directory``; starting it creates ``directory/LAUNCHED``."""
    guard = directory / "chromium-guard"
    guard.write_text(
        f"#!/bin/sh\n: > {shlex.quote(str(directory / LAUNCHED))}\n"
        "echo 'this test is not marked @pytest.mark.browser' >&2\nexit 1\n"
    )
    guard.chmod(0o755)
    return guard


@pytest.fixture(autouse=True)
def chromium_only_with_the_browser_marker(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    if request.node.get_closest_marker("browser") is not None:
        yield
        return
    directory = tmp_path_factory.mktemp("chromium-guard")  # not tmp_path: tests list that one
    monkeypatch.setenv("SKILLREEL_CHROMIUM", str(install_guard(directory)))
    yield
    if (directory / LAUNCHED).exists():
        pytest.fail(
            f"{request.node.nodeid} started Chromium but is not marked @pytest.mark.browser", pytrace=False
        )
