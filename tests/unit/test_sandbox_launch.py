"""The Chromium switches the network boundary depends on (no browser is started here)."""

from __future__ import annotations

import os

import pytest

from skillreel.sandbox.allowlist import is_sinkhole_host
from skillreel.sandbox.browser import launch_args

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
    assert "--disable-background-networking" in args


def test_no_disable_features_switch_overrides_playwrights_own() -> None:
    assert not [a for a in launch_args(PROXY) if a.startswith(("--disable-features", "--enable-features"))]


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
