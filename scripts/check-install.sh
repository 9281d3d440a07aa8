#!/usr/bin/env bash
# Install this checkout the way users do and check that the installed tool works (make install-check,
# part of make test and CI):
#   1. pip into a fresh venv, not editable (what `pipx install .` and `uv tool install .` do);
#   2. `pipx install` and `uv tool install` themselves, when they are on PATH (in throwaway homes).
# The runtime dependencies come from the package registry, as in a user's install; nothing else is
# fetched. The checkout is copied first, so the build leaves nothing behind in it.
set -euo pipefail
PYTHON="${1:-python3}"
CHECKOUT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# The copy leaves out what is not the project's (the venv, git, build output, the tools' caches). It
# runs beside the suite and the static checks (make test), which create their caches in the checkout
# meanwhile: tar failed when a folder changed while it read it; copytree does not mind.
"$PYTHON" - "$CHECKOUT" "$WORK/src" <<'PY'
import shutil
import sys
from pathlib import Path

source, target = Path(sys.argv[1]), Path(sys.argv[2])
TOP = {".venv", ".git", "build", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis"}


def ignore(folder: str, names: list[str]) -> set[str]:
    skip = {n for n in names if n == "__pycache__" or n.endswith(".egg-info")}
    return skip | (TOP & set(names) if Path(folder) == source else set())


shutil.copytree(source, target, symlinks=True, ignore=ignore)
PY

# The console script answers, and reads and writes a store of its own.
check_tool() {
    local tool="$1"
    "$tool" --help >/dev/null
    "$tool" ui --help >/dev/null
    SKILLREEL_HOME="$WORK/home-$2" "$tool" list --json | "$PYTHON" -c \
        'import json, sys; doc = json.load(sys.stdin); assert doc["ok"] and doc["data"]["skills"] == [], doc'
    # Without the optional extra skillreel[fleet], the fleet's verb says how to install it.
    local worker
    worker="$("$tool" worker --broker redis://127.0.0.1:1/0 --trust "$WORK/none.pub" 2>&1 || true)"
    if ! grep -q SR_REPLAY_FLEET_UNAVAILABLE <<<"$worker"; then
        echo "install-check: $2: skillreel worker without the fleet extra said: $worker" >&2
        exit 1
    fi
    echo "install-check: $2: ok"
}

echo "install-check: pip install into a fresh venv"
"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install --quiet --upgrade pip
"$WORK/venv/bin/python" -m pip install --quiet "$WORK/src"
check_tool "$WORK/venv/bin/skillreel" pip
# Every file the package ships (scripts, templates, styles) is installed, and no test tool is.
"$WORK/venv/bin/python" - "$CHECKOUT/src/skillreel" <<'PY'
import importlib.util
import sys
from pathlib import Path

import skillreel

source = Path(sys.argv[1])
installed = Path(skillreel.__file__).parent
assert source.resolve() != installed.resolve(), "the check must not run the checkout itself"
wanted = sorted(
    p.relative_to(source)
    for p in source.rglob("*")
    if p.is_file() and p.suffix != ".pyc" and "__pycache__" not in p.parts
)
missing = [str(p) for p in wanted if not (installed / p).is_file()]
assert not missing, f"not installed: {missing}"
tools = [m for m in ("pytest", "ruff", "mypy", "hypothesis") if importlib.util.find_spec(m)]
assert not tools, f"test tools installed with the runtime: {tools}"
print(f"install-check: {len(wanted)} package files installed")
PY

if command -v pipx >/dev/null 2>&1; then
    echo "install-check: pipx install"
    PIPX_HOME="$WORK/pipx" PIPX_BIN_DIR="$WORK/pipx-bin" pipx install --quiet "$WORK/src"
    check_tool "$WORK/pipx-bin/skillreel" pipx
else
    echo "install-check: pipx is not installed here; skipped"
fi
if command -v uv >/dev/null 2>&1; then
    echo "install-check: uv tool install"
    UV_TOOL_DIR="$WORK/uv-tools" UV_TOOL_BIN_DIR="$WORK/uv-bin" uv tool install --quiet "$WORK/src"
    check_tool "$WORK/uv-bin/skillreel" uv
else
    echo "install-check: uv is not installed here; skipped"
fi
