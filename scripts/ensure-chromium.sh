#!/usr/bin/env bash
# Make sure a Chromium exists for skillreel, in this order:
#   1. $SKILLREEL_CHROMIUM if set (must be executable),
#   2. Debian's chromium (installed with apt-get when running as root and missing), with Debian's
#      chromium-headless-shell beside it where apt-get can add it (headless launches use it: the
#      same engine without the browser's UI, a CPU-second cheaper a launch; optional),
#   3. Playwright's own browser download, where the network allows it.
# With --system, only the first two (what apt-get does; `make test` runs it beside pip, before the
# venv that the download needs exists); without a Chromium it then says nothing and leaves the rest
# to the call without it.
set -euo pipefail
SYSTEM_ONLY=0
if [[ "${1:-}" == "--system" ]]; then
    SYSTEM_ONLY=1
    shift
fi
VENV_PY="${1:-.venv/bin/python}"

if [[ -n "${SKILLREEL_CHROMIUM:-}" ]]; then
    if [[ -x "$SKILLREEL_CHROMIUM" ]]; then
        echo "chromium: using SKILLREEL_CHROMIUM=$SKILLREEL_CHROMIUM"
        exit 0
    fi
    echo "chromium: SKILLREEL_CHROMIUM=$SKILLREEL_CHROMIUM is not an executable file" >&2
    exit 1
fi

can_apt() { [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null 2>&1; }

# The headless shell is optional: without it headless launches use the browser itself.
headless_shell() {
    if ! command -v chromium-headless-shell >/dev/null 2>&1 && command -v chromium >/dev/null 2>&1 && can_apt; then
        echo "chromium: adding Debian's chromium-headless-shell with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        if ! { apt-get update -qq && apt-get install -y -qq chromium-headless-shell >/dev/null; }; then
            echo "chromium: chromium-headless-shell could not be installed; headless launches use the browser"
        fi
    fi
    if command -v chromium-headless-shell >/dev/null 2>&1; then
        echo "chromium: headless launches use $(command -v chromium-headless-shell)"
    fi
}

for candidate in chromium chromium-browser google-chrome; do
    if command -v "$candidate" >/dev/null 2>&1; then
        echo "chromium: using $(command -v "$candidate")"
        headless_shell
        exit 0
    fi
done

if can_apt; then
    echo "chromium: installing Debian's chromium with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium >/dev/null
    if command -v chromium >/dev/null 2>&1; then
        echo "chromium: using $(command -v chromium)"
        headless_shell
        exit 0
    fi
fi

if [[ "$SYSTEM_ONLY" == "1" ]]; then
    exit 0
fi
echo "chromium: trying Playwright's own browser download"
if "$VENV_PY" -m playwright install chromium; then
    exit 0
fi
echo "chromium: no Chromium found. Install one (e.g. 'apt-get install chromium') or set SKILLREEL_CHROMIUM." >&2
exit 1
