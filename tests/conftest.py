"""Root fixtures: every test gets its own SKILLREEL_HOME (and no OS keyring) and project directory,
and only a test marked ``browser`` may start Chromium (tests/plugins/chromium_guard.py). Every test under
tests/e2e/ is marked ``slow``: it runs the console script end to end, so ``make check`` leaves it
to ``make test``."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from skillreel import vault
from skillreel.sandbox.warm import WarmBrowser
from tests.support.describe import close_describer
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytest_plugins = ["tests.plugins.chromium_guard", "tests.plugins.longest_first", "pytester"]
E2E = Path(__file__).resolve().parent / "e2e"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(E2E):
            item.add_marker(pytest.mark.slow)
        if "sessions" in getattr(item, "fixturenames", ()):
            # the worker's warm Chromium belongs to the session's event loop (tests/support/warm.py)
            item.add_marker(pytest.mark.asyncio(loop_scope="session"), append=False)


@pytest.fixture(autouse=True)
def skillreel_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("SKILLREEL_HOME", str(home))
    # Never the user's own OS keyring (the vault's sessions would land there): keyring's "fail"
    # backend says there is none, so sessions go to a file in this home (subprocesses inherit it).
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    for key in list(os.environ):
        if key.startswith("SKILLREEL_SECRET_"):
            monkeypatch.delenv(key)
    monkeypatch.setattr(vault, "_SEALED", {})  # what a browser session sealed stays in its test
    return home


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def xvfb_display() -> Iterator[str]:
    """A private X server for headed Chromium (``make test`` installs xvfb). Xvfb picks a free
    display number itself (-displayfd), so parallel runs never race for one."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    read_end, write_end = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_end)
    try:
        with os.fdopen(read_end) as numbers:
            number = numbers.readline().strip()
        if not number.isdigit():
            raise RuntimeError("Xvfb did not start")
        yield f":{number}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def second_server() -> Iterator[LocalServer]:
    """Another loopback origin, for network tests (it must see zero requests when off the allowlist)."""
    with LocalServer() as srv:
        yield srv


@pytest.fixture
def ctrl_c_reaches_children() -> Iterator[None]:
    """Children start with SIGINT at its default, as under a terminal, so a test can send them
    Ctrl-C: a shell starts a background job (``make test &``, a CI runner) with SIGINT ignored,
    every child inherits that, and Python then installs no KeyboardInterrupt handler at all."""
    before = signal.getsignal(signal.SIGINT)
    if before == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # reset to SIG_DFL in a child
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def worker_chromium() -> AsyncIterator[WarmSessions]:
    """The worker's one Chromium for in-process replays (tests/support/warm.py); use ``sessions``."""
    warm = WarmSessions(WarmBrowser(idle_s=3600.0))
    await warm.start()
    try:
        yield warm
    finally:
        await warm.warm.close()


@pytest.fixture
def sessions(request: pytest.FixtureRequest, worker_chromium: WarmSessions) -> WarmSessions:
    """A ``session_factory`` for ``replay_skill``: a fresh context and proxy per replay in the
    worker's one Chromium (tests/support/warm.py). Only for tests marked ``browser``."""
    if request.node.get_closest_marker("browser") is None:
        pytest.fail(f"{request.node.nodeid} uses Chromium but is not marked @pytest.mark.browser")
    return worker_chromium


@pytest.fixture(scope="session", autouse=True)
def describer_closed_at_the_end() -> Iterator[None]:
    """The one Chromium that describes pages for every test of this process (tests/support/describe.py)
    is stopped when the run ends."""
    yield
    close_describer()
