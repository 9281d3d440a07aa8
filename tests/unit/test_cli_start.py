"""What a `skillreel` process imports before it does anything: `--help`, `--version` and the help of
the verbs that drive a browser or serve MCP load none of the heavy libraries (asyncio, pydantic,
Playwright, rich, the MCP SDK): docs/dev/ARCHITECTURE.md, "Lazy imports". Each check runs a fresh
interpreter (this one has imported everything). What they cost in CPU is bench/RESULTS.md's
(note 17), never a test's."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from skillreel.cli.main import ALIASES, VERBS

HEAVY = ("asyncio", "pydantic", "playwright", "rich", "mcp", "skillreel.model.actions")

# main() (not run(): that ends the process before the report), then which HEAVY modules it imported
PROBE = """
import sys
from skillreel.cli.main import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
sys.stderr.write("IMPORTED " + " ".join(m for m in sys.argv[1].split(",") if m in sys.modules) + "\\n")
"""


def started(*args: str) -> tuple[str, list[str]]:
    """The stdout of ``skillreel ARGS`` in a fresh interpreter, and the heavy modules it imported."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(HEAVY), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYDANTIC_DISABLE_PLUGINS": "__all__"},
        timeout=120,
        check=False,
    )
    report = [line for line in proc.stderr.splitlines() if line.startswith("IMPORTED")]
    assert len(report) == 1, proc.stderr
    return proc.stdout, report[0].split()[1:]


@pytest.mark.parametrize(
    "args", [("--help",), ("--version",), ("replay", "--help"), ("mcp", "--help")], ids=" ".join
)
def test_help_and_version_import_nothing_heavy(args: tuple[str, ...]) -> None:
    _, imported = started(*args)
    assert imported == []


def test_help_lists_every_verb_and_no_alias() -> None:
    out, _ = started("--help")
    rows = out.split("Commands:")[1].splitlines()
    listed = [line.split()[0] for line in rows if line.startswith("  ") and line[2] != " "]
    assert listed == sorted(VERBS)
    assert not set(ALIASES) & set(listed)
