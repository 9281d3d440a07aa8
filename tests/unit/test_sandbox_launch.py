"""The Chromium switches the network boundary depends on (no browser is started here)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright._impl._driver import compute_driver_executable

from skillreel.sandbox.allowlist import is_sinkhole_host
from skillreel.sandbox.browser import DISABLE_FEATURES, launch_args

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
    """The features the installed Playwright driver disables, read from its own source."""
    package = Path(compute_driver_executable()[1]).parent
    for source in (package / "lib/server/chromium/chromiumSwitches.js", package / "lib/coreBundle.js"):
        if source.is_file():
            found = re.search(r"disabledFeatures = \[(.*?)\]", source.read_text("utf-8"), re.DOTALL)
            if found:
                without_comments = re.sub(r"//[^\n]*", "", found.group(1))
                return set(re.findall(r"[\"']([A-Za-z0-9]+)[\"']", without_comments))
    raise AssertionError("the Playwright driver's list of disabled features was not found")


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
