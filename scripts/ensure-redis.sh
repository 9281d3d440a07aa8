#!/usr/bin/env bash
# The fleet's tests start a private redis-server (tests/support/fleet_rig.py). Install Debian's
# redis-server when root and missing; otherwise those tests skip and say why. Only the binary is
# needed: the tests start their own server on a free 127.0.0.1 port, so a system service that the
# package may start is neither used nor needed.
set -euo pipefail
if command -v redis-server >/dev/null 2>&1; then
    exit 0
fi
if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null 2>&1; then
    echo "redis: installing Debian's redis-server with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq redis-server >/dev/null || echo "redis: could not install; fleet tests will skip" >&2
else
    echo "redis: redis-server not installed; fleet tests will skip (apt-get install redis-server)" >&2
fi
