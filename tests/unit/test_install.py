"""Installing like other Python tools (issue 13, item 9): `make demo` installs only the runtime
dependencies, the docs show pipx, uv and shell completion, and `make install-check` (part of
`make test`) installs the checkout into a fresh environment (scripts/check-install.sh)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def dry_run(target: str) -> str:
    """The commands ``make TARGET`` would run from scratch (nothing is run)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    done = subprocess.run(
        ["make", "-n", "-B", target], cwd=REPO, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


def test_make_demo_installs_only_the_runtime_dependencies() -> None:
    demo = dry_run("demo")
    assert "pip install --quiet -e ." in demo
    assert "[test]" not in demo
    assert "skillreel demo" in demo
    assert "-e '.[test]'" in dry_run("check")


def test_make_test_runs_the_install_check() -> None:
    assert "scripts/check-install.sh" in dry_run("test")
    script = (REPO / "scripts" / "check-install.sh").read_text()
    assert "pipx install" in script
    assert "uv tool install" in script


def test_the_docs_show_pipx_uv_and_shell_completion() -> None:
    readme = (REPO / "README.md").read_text()
    guide = (REPO / "docs" / "guide.md").read_text()
    for text in (readme, guide):
        assert "pipx install ." in text
        assert "uv tool install ." in text
        assert "_SKILLREEL_COMPLETE=bash_source skillreel" in text
    assert "_SKILLREEL_COMPLETE=zsh_source" in guide
    assert "_SKILLREEL_COMPLETE=fish_source" in guide
