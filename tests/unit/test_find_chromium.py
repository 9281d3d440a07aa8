"""Which Chromium a launch uses (``find_chromium``): no browser is started here, the candidates are
stand-in files on a private PATH."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillreel.sandbox import browser
from skillreel.sandbox.browser import find_chromium


def _executable(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def bare(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty PATH and Playwright cache, no SKILLREEL_CHROMIUM: the test adds what it needs."""
    monkeypatch.delenv("SKILLREEL_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "ms-playwright"))
    monkeypatch.setattr(browser, "HEADLESS_SHELL_PATHS", ())
    return tmp_path


def test_a_headless_launch_takes_the_headless_shell_and_a_headed_one_the_browser(bare: Path) -> None:
    browser = _executable(bare / "bin", "chromium")
    shell = _executable(bare / "bin", "chromium-headless-shell")
    assert find_chromium(headless=True) == shell
    assert find_chromium(headless=False) == browser
    assert find_chromium() == browser  # a caller that says nothing may open a window


def test_debians_headless_binary_comes_before_its_wrapper(
    bare: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Debian's /usr/bin/chromium-headless-shell runs the binary as a child: a signal for the
    # browser would reach the wrapper. The binary itself is launched when it is there.
    _executable(bare / "bin", "chromium")
    _executable(bare / "bin", "chromium-headless-shell")
    binary = _executable(bare / "lib", "chromium-headless-shell")
    monkeypatch.setattr(browser, "HEADLESS_SHELL_PATHS", (bare / "lib" / "missing", binary))
    assert find_chromium(headless=True) == binary
    assert find_chromium(headless=False) == bare / "bin" / "chromium"


def test_without_the_headless_shell_a_headless_launch_takes_the_browser(bare: Path) -> None:
    browser = _executable(bare / "bin", "chromium")
    assert find_chromium(headless=True) == browser


def test_skillreel_chromium_wins_for_both(bare: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _executable(bare / "bin", "chromium")
    _executable(bare / "bin", "chromium-headless-shell")
    chosen = _executable(bare / "elsewhere", "my-chromium")
    monkeypatch.setenv("SKILLREEL_CHROMIUM", str(chosen))
    assert find_chromium(headless=True) == chosen
    assert find_chromium(headless=False) == chosen


def test_playwrights_own_download_headless_shell_first_for_headless(bare: Path) -> None:
    cache = bare / "ms-playwright"
    browser = _executable(cache / "chromium-1200" / "chrome-linux64", "chrome")
    shell = _executable(
        cache / "chromium_headless_shell-1200" / "chrome-headless-shell-linux64", "chrome-headless-shell"
    )
    assert find_chromium(headless=True) == shell
    assert find_chromium(headless=False) == browser


def test_a_headless_shell_alone_never_serves_a_headed_launch(bare: Path) -> None:
    _executable(bare / "bin", "chromium-headless-shell")
    with pytest.raises(Exception) as info:
        find_chromium(headless=False)
    assert getattr(info.value, "code", None) == "SR_REPLAY_UI_CHROMIUM_SETUP"
