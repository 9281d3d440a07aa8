"""Find Chromium and launch it: which executable, with which switches (ARCHITECTURE section 7).

This is the only module that launches Chromium (:func:`launch_chromium`); the cold session
(``sandbox.cold``) and the warm browser (``sandbox.warm``) both launch through it. Every launch goes
through an enforcing proxy (``--proxy-server``, loopback included, host resolution mapped away:
:func:`launch_args`), with Chromium's own background traffic switched off or pointed at a sinkhole
the proxy refuses without counting.

A launch problem is translated here, once, to ``SR_REPLAY_UI_CHROMIUM_SETUP``.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path
from typing import Final

from playwright.async_api import Browser, Playwright
from playwright.async_api import Error as PlaywrightError

from skillreel.errors import ReplayUIError

from .allowlist import SINKHOLE_SUFFIX
from .playwright_start import SETUP, SETUP_FIX

CHROMIUM_NAMES: Final = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Chromium's headless build (Debian's chromium-headless-shell; what Playwright itself runs
# headless): the same engine without the browser's UI, about a CPU-second cheaper a launch and
# half a CPU-second a context (bench/RESULTS.md note 10). Debian's binary first: the package's
# /usr/bin wrapper runs it as a child instead of exec'ing it, so a signal meant for the browser
# (a forced close, a crash test) would reach the wrapper.
HEADLESS_SHELL_PATHS: tuple[Path, ...] = (Path("/usr/lib/chromium/chromium-headless-shell"),)
HEADLESS_SHELL_NAMES: Final = ("chromium-headless-shell",)

# Background networking off (otherwise Chromium's own requests would meet the proxy and count as
# refusals), no QUIC (UDP would not go through an HTTP proxy), WebRTC limited to proxied
# connections (no STUN over UDP), and no crash reporter or first-run UI.
BASE_ARGS: Final = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--disable-breakpad",
    "--disable-quic",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--no-pings",
    "--metrics-recording-only",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
)


# Chromium's own services (accounts, component updates, autofill, ...) still call home on some
# occasions whatever the switches above say. Point each at a never-resolving host the proxy
# refuses without counting: that traffic is the browser's, not the page's, and must not fail a
# replay (a page's own request to a Google host is still refused and counted as usual).
_SERVICES: Final = (
    ("gaia-url", "gaia"),
    ("lso-url", "lso"),
    ("google-apis-url", "apis"),
    ("google-base-url", "google"),
    ("oauth-account-manager-url", "oauth"),
    ("autofill-server-url", "autofill"),
    ("sync-url", "sync"),
    ("translate-script-url", "translate"),
    ("variations-server-url", "variations"),
)
_SERVICE_SWITCHES: Final = (
    *(f"--{switch}=https://{name}{SINKHOLE_SUFFIX}/" for switch, name in _SERVICES),
    f"--component-updater=url-source=https://update{SINKHOLE_SUFFIX}/service/update2/json",
)


# Chromium takes the *last* ``--disable-features`` switch and ignores the others, and Playwright
# passes one of its own before ours: the one this module passes must carry Playwright's list too.
# PLAYWRIGHT_DISABLED_FEATURES is Playwright 1.65's (chromiumSwitches.ts); tests/unit/
# test_sandbox_launch.py fails when the installed driver disables a feature missing here.
PLAYWRIGHT_DISABLED_FEATURES: Final = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
# The full browser's address bar preloads its suggestion popup as a WebUI page, in a renderer of
# its own, for every window (one per context): ~1 CPU-second per launch and ~0.7 per context,
# for a popup no headless session ever opens (measured, bench/RESULTS.md note 9). A headed
# window keeps Chromium's defaults (``launch_args``).
SKILLREEL_DISABLED_FEATURES: Final = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")
DISABLE_FEATURES: Final = "--disable-features=" + ",".join(
    (*PLAYWRIGHT_DISABLED_FEATURES, *SKILLREEL_DISABLED_FEATURES)
)


def find_chromium(*, headless: bool = False) -> Path:
    """The Chromium to launch: ``SKILLREEL_CHROMIUM``, else the system's (for a ``headless``
    launch its headless shell when installed), else Playwright's own."""
    configured = os.environ.get("SKILLREEL_CHROMIUM")
    if configured:
        path = Path(configured)
        if _is_executable(path):
            return path
        raise ReplayUIError(
            SETUP, "SKILLREEL_CHROMIUM does not name an executable file; point it at Chromium or unset it"
        )
    if headless:
        shell = next((p for p in HEADLESS_SHELL_PATHS if _is_executable(p)), None)
        if shell is not None:
            return shell
    for name in (*(HEADLESS_SHELL_NAMES if headless else ()), *CHROMIUM_NAMES):
        found = shutil.which(name)
        if found:
            return Path(found)
    bundled = _playwright_chromium(headless=headless)
    if bundled is not None:
        return bundled
    raise ReplayUIError(SETUP, f"Chromium was not found; {SETUP_FIX}")


def _playwright_chromium(*, headless: bool) -> Path | None:
    root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(Path.home() / ".cache" / "ms-playwright")
    candidates = (
        sorted(
            Path(root).glob("chromium_headless_shell-*/chrome-headless-shell-*/chrome-headless-shell"),
            reverse=True,
        )
        if headless
        else []
    )
    candidates += sorted(Path(root).glob("chromium-*/chrome-linux*/chrome"), reverse=True)
    candidates += sorted(
        Path(root).glob("chromium-*/chrome-mac*/Chromium.app/Contents/MacOS/Chromium"), reverse=True
    )
    return next((p for p in candidates if _is_executable(p)), None)


def _is_executable(path: Path) -> bool:
    # os.access alone says yes to root for any file with an x bit anywhere; require one for us too.
    try:
        info = path.stat()
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and bool(info.st_mode & 0o111) and os.access(path, os.X_OK)


def launch_args(proxy_url: str, *, headless: bool = True) -> list[str]:
    """Chromium's command-line switches for a session whose enforcing proxy is ``proxy_url``.

    A headed window (a recording, ``replay --headed``) keeps the address bar as Chromium ships it:
    a person may type into it, and one launch is not worth a popup that behaves differently.
    """
    args = [
        *BASE_ARGS,
        *((DISABLE_FEATURES,) if headless else ()),
        f"--proxy-server={proxy_url}",
        "--proxy-bypass-list=<-loopback>",
        *_SERVICE_SWITCHES,
        # Chromium never needs DNS: every host is resolved by the proxy (allowlisted ones only).
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")
    return args


def require_display() -> None:
    """A headed window needs a display (Linux: ``DISPLAY`` or ``WAYLAND_DISPLAY``)."""
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        raise ReplayUIError(SETUP, "a headed window needs a display; set DISPLAY or run under xvfb-run")


async def launch_chromium(
    pw: Playwright,
    executable: Path,
    headless: bool,
    proxy_url: str,
    *,
    slow_mo_ms: int = 0,
    traces_dir: Path | None = None,
) -> Browser:
    """Chromium from ``executable``, through the enforcing proxy at ``proxy_url`` (:func:`launch_args`);
    Playwright's own signal handlers off (the caller closes it)."""
    try:
        return await pw.chromium.launch(
            executable_path=str(executable),
            headless=headless,
            slow_mo=slow_mo_ms or None,
            traces_dir=traces_dir,
            args=launch_args(proxy_url, headless=headless),
            handle_sigint=False,
            handle_sigterm=False,
            handle_sighup=False,
        )
    except PlaywrightError as exc:
        raise ReplayUIError(SETUP, f"Chromium could not be started; {SETUP_FIX}") from exc
