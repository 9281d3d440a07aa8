"""tests/plugins/chromium_guard.py: a test without the ``browser`` marker that starts Chromium fails."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.plugins.chromium_guard import LAUNCHED

NESTED = """
import os
import subprocess

import pytest

from skillreel.sandbox.chromium import find_chromium


def test_unmarked_starts_chromium():
    subprocess.run([str(find_chromium()), "--headless"], check=False)


def test_unmarked_without_a_browser():
    assert "chromium-guard" in os.environ["SKILLREEL_CHROMIUM"]


@pytest.mark.browser
def test_marked_gets_the_real_one():
    assert "SKILLREEL_CHROMIUM" not in os.environ
"""


def test_an_unmarked_test_that_starts_chromium_fails_and_names_the_marker(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SKILLREEL_CHROMIUM")  # this test's own stand-in
    pytester.makeini(
        "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
        "markers =\n    browser: drives a real Chromium\n"
    )
    pytester.makepyfile(test_nested=NESTED)
    result = pytester.runpytest_inprocess(
        "-p", "tests.plugins.chromium_guard", "-p", "no:cacheprovider", "-rA"
    )
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_unmarked_starts_chromium*",
            "test_nested.py::test_unmarked_starts_chromium started Chromium but is not marked "
            "@pytest.mark.browser",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "PASSED test_nested.py::test_unmarked_without_a_browser",
            "PASSED test_nested.py::test_marked_gets_the_real_one",
        ],
        consecutive=False,
    )


def test_this_unmarked_test_has_the_stand_in(tmp_path: Path) -> None:
    guard = Path(os.environ["SKILLREEL_CHROMIUM"])
    assert guard.name == "chromium-guard"
    assert not (guard.parent / LAUNCHED).exists()
    started = subprocess.run([str(guard), "--version"], capture_output=True, text=True, check=False)
    assert started.returncode == 1
    assert "not marked @pytest.mark.browser" in started.stderr
    (guard.parent / LAUNCHED).unlink()  # this test started it on purpose; the guard would fail it
    assert list(tmp_path.iterdir()) == []  # the stand-in lives outside the test's own directory
