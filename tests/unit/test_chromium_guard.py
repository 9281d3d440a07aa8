"""tests/chromium_guard.py: a test without the ``browser`` marker that starts Chromium fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.chromium_guard import LAUNCHED

REPO = Path(__file__).resolve().parents[2]

NESTED = '''
import os
import subprocess

import pytest

from skillreel.sandbox.browser import find_chromium


def test_unmarked_starts_chromium():
    subprocess.run([str(find_chromium()), "--headless"], check=False)


def test_unmarked_without_a_browser():
    assert "chromium-guard" in os.environ["SKILLREEL_CHROMIUM"]


@pytest.mark.browser
def test_marked_gets_the_real_one():
    assert "SKILLREEL_CHROMIUM" not in os.environ
'''


def test_an_unmarked_test_that_starts_chromium_fails_and_names_the_marker(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    browser: drives a real Chromium\n")
    (tmp_path / "test_nested.py").write_text(NESTED)
    env = {k: v for k, v in os.environ.items() if k != "SKILLREEL_CHROMIUM"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.chromium_guard", "-p", "no:cacheprovider", "-q", "-rA"],
        cwd=tmp_path, env={**env, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=120,
        check=False)
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert ("ERROR at teardown of test_unmarked_starts_chromium ______________\n"
            "test_nested.py::test_unmarked_starts_chromium started Chromium but is not marked "
            "@pytest.mark.browser\n") in out
    assert "PASSED test_nested.py::test_unmarked_starts_chromium" in out  # the call itself passed
    assert "PASSED test_nested.py::test_unmarked_without_a_browser" in out
    assert "PASSED test_nested.py::test_marked_gets_the_real_one" in out
    assert "3 passed, 1 error" in out


def test_this_unmarked_test_has_the_stand_in(tmp_path: Path) -> None:
    guard = Path(os.environ["SKILLREEL_CHROMIUM"])
    assert guard.parent == tmp_path
    started = subprocess.run([str(guard), "--version"], capture_output=True, text=True, check=False)
    assert started.returncode == 1
    assert "not marked @pytest.mark.browser" in started.stderr
    (tmp_path / LAUNCHED).unlink()  # this test started it on purpose; the guard would fail it
