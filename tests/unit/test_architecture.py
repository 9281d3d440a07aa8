"""Architecture rules that keep the design easy to see."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from skillreel.errors import CODES, SkillreelError

SRC = Path(__file__).resolve().parents[2] / "src" / "skillreel"
PURE = [
    *sorted((SRC / "model").glob("*.py")),
    SRC / "record" / "project.py",
    SRC / "record" / "redact.py",
    SRC / "locate" / "heal.py",
    SRC / "target" / "policy.py",
]
FORBIDDEN_IN_PURE = {"playwright", "sqlite3", "subprocess", "socket", "asyncio", "httpx", "requests"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("path", [p for p in PURE if p.exists()], ids=lambda p: str(p.relative_to(SRC)))
def test_pure_modules_do_no_io(path: Path) -> None:
    assert not (_imports(path) & FORBIDDEN_IN_PURE), f"{path.name} imports I/O libraries"
    text = path.read_text()
    assert "open(" not in re.sub(r"#.*", "", text)


def test_pure_module_list_is_complete() -> None:
    assert (SRC / "model").is_dir()
    assert all(p.suffix == ".py" for p in PURE)


def test_every_error_code_is_in_its_family_and_documented() -> None:
    for code, spec in CODES.items():
        assert re.fullmatch(r"SR_(RECORD|REPLAY|REPLAY_UI)_[A-Z_]+", code), code
        assert spec.exit_status in (1, 2)
        assert spec.summary.endswith(".")
        assert spec.fix


def test_error_rejects_undocumented_codes_and_wrong_family() -> None:
    with pytest.raises(ValueError, match="undocumented"):
        SkillreelError("SR_RECORD_NOPE", "x")
    from skillreel.errors import ReplayUIError

    with pytest.raises(ValueError, match="does not belong"):
        ReplayUIError("SR_RECORD_USAGE", "x")
    err = ReplayUIError("SR_REPLAY_UI_TARGET_NOT_FOUND", "step a3", action_id="a3")
    assert err.exit_status == 1
    assert err.to_json() == {"code": "SR_REPLAY_UI_TARGET_NOT_FOUND", "message": "step a3", "actionId": "a3"}


def test_javascript_lives_in_js_files() -> None:
    """No JavaScript function bodies assembled inside Python strings."""
    for path in SRC.rglob("*.py"):
        text = path.read_text()
        assert "=> {" not in text, path
        assert "function(" not in text.replace(" ", ""), path
