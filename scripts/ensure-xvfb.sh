#!/usr/bin/env bash
# The headed-recording tests need a virtual screen. Install Debian's xvfb when root and missing;
# otherwise those tests skip and say why.
set -euo pipefail
if command -v Xvfb >/dev/null 2>&1; then
    exit 0
fi
if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null 2>&1; then
    echo "xvfb: installing Debian's xvfb with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq xvfb >/dev/null || echo "xvfb: could not install; headed tests will skip" >&2
else
    echo "xvfb: not installed; headed tests will skip (apt-get install xvfb)" >&2
fi
