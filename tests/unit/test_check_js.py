"""scripts/check_js.py (part of ``make check``) fails on a syntax error and on an empty src/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_js.py"


def check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True, timeout=60, check=False
    )


def test_a_syntax_error_fails_the_check_and_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "good.js").write_text("const SkillreelX = (() => ({ok: true}))();\n")
    (tmp_path / "src" / "pkg" / "bad.js").write_text("function (\n")
    result = check(tmp_path)
    assert result.returncode == 1
    assert "check-js: syntax error in src/pkg/bad.js" in result.stderr
    assert "good.js" not in result.stderr
    assert "1 of 2 files parse" in result.stdout


def test_valid_files_pass(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "good.js").write_text("(arg) => arg.length;\n")
    result = check(tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    assert "1 of 1 files parse" in result.stdout


def test_no_javascript_at_all_fails(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    result = check(tmp_path)
    assert result.returncode == 1
    assert "no .js file under src/" in result.stderr
