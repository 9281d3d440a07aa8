"""Finding and launching Chromium (``sandbox.chromium``), no browser started here: which executable a
launch uses (``find_chromium``; the candidates are stand-in files on a private PATH) and the switches
the network boundary depends on (``launch_args``)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright._impl._driver import compute_driver_executable

from skillreel.sandbox import chromium
from skillreel.sandbox.allowlist import is_sinkhole_host
from skillreel.sandbox.chromium import DISABLE_FEATURES, find_chromium, launch_args


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
    monkeypatch.setattr(chromium, "HEADLESS_SHELL_PATHS", ())
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
    monkeypatch.setattr(chromium, "HEADLESS_SHELL_PATHS", (bare / "lib" / "missing", binary))
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


PROXY = "http://127.0.0.1:4321"


def test_everything_goes_through_the_proxy_loopback_included() -> None:
    args = launch_args(PROXY)
    assert f"--proxy-server={PROXY}" in args
    assert "--proxy-bypass-list=<-loopback>" in args
    assert "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1" in args


def test_channels_an_http_proxy_cannot_see_are_closed() -> None:
    args = launch_args(PROXY)
    assert "--disable-quic" in args
    assert "--webrtc-ip-handling-policy=disable_non_proxied_udp" in args
    # the content layer's spelling: a headless shell reads only this one (no chrome layer)
    assert "--force-webrtc-ip-handling-policy=disable_non_proxied_udp" in args
    assert "--disable-background-networking" in args


def _playwright_disabled_features() -> set[str]:
    """The features the installed Playwright disables, read from its own source."""
    package = Path(compute_driver_executable()[1]).parent
    for source in (package / "lib/server/chromium/chromiumSwitches.js", package / "lib/coreBundle.js"):
        if source.is_file():
            found = re.search(r"disabledFeatures = \[(.*?)\]", source.read_text("utf-8"), re.DOTALL)
            if found:
                without_comments = re.sub(r"//[^\n]*", "", found.group(1))
                return set(re.findall(r"[\"']([A-Za-z0-9]+)[\"']", without_comments))
    raise AssertionError("Playwright's list of disabled features was not found")


def test_the_one_disable_features_switch_carries_playwrights_list_and_ours() -> None:
    # Chromium reads only the last --disable-features; Playwright's comes first, ours replaces it.
    switches = [a for a in launch_args(PROXY) if a.startswith("--disable-features=")]
    assert switches == [DISABLE_FEATURES]
    ours = set(DISABLE_FEATURES.split("=", 1)[1].split(","))
    playwrights = _playwright_disabled_features()
    assert len(playwrights) >= 5  # the parse found the list, not a stray bracket
    assert playwrights <= ours, f"update PLAYWRIGHT_DISABLED_FEATURES: {sorted(playwrights - ours)}"
    assert {"WebUIOmniboxPopup", "WebUIOmniboxAimPopup"} <= ours
    assert not [a for a in launch_args(PROXY) if a.startswith("--enable-features")]


def test_a_headed_window_keeps_playwrights_features_and_the_address_bar_as_shipped() -> None:
    headed = launch_args(PROXY, headless=False)
    assert not [a for a in headed if a.startswith(("--disable-features", "--enable-features"))]
    assert [a for a in headed if a != DISABLE_FEATURES] == [
        a for a in launch_args(PROXY) if a != DISABLE_FEATURES
    ]


def test_browser_services_point_at_the_sinkhole() -> None:
    services = [a for a in launch_args(PROXY) if a.startswith(("--gaia-url", "--component-updater"))]
    assert len(services) == 2
    for arg in launch_args(PROXY):
        if "://" in arg and not arg.startswith("--proxy-server"):
            host = arg.split("://", 1)[1].split("/", 1)[0]
            assert is_sinkhole_host(host), arg


@pytest.mark.parametrize(("uid", "sandboxed"), [(0, False), (1000, True)])
def test_no_sandbox_only_as_root(monkeypatch: pytest.MonkeyPatch, uid: int, sandboxed: bool) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: uid)  # the os module the launcher calls
    assert ("--no-sandbox" not in launch_args(PROXY)) is sandboxed
