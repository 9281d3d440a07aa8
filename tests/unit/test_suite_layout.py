"""The test suite's own layout: shared builders live in helper modules (tests/support/factory.py and friends),
never in a test module or a conftest.py, so no test depends on another test's module and a fixture
file holds fixtures only."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _module(path: Path) -> str:
    return ".".join(("tests", *path.relative_to(TESTS).with_suffix("").parts))


def _imports(source: str, module: str) -> set[str]:
    """Every module the source of ``module`` imports, as a dotted name (relative imports resolved)."""
    package = module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0]
                base = f"{parent}.{base}" if base else parent
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _is_test_or_conftest(module: str) -> bool:
    last = module.rsplit(".", 1)[-1]
    return module.startswith("tests.") and (last.startswith("test_") or last == "conftest")


def test_no_test_module_or_conftest_is_imported() -> None:
    offenders = sorted(
        f"{_module(path)} imports {target}"
        for path in TESTS.rglob("*.py")
        for target in _imports(path.read_text(), _module(path))
        if _is_test_or_conftest(target)
    )
    assert offenders == []


def test_the_import_check_sees_every_form_of_import() -> None:
    planted = (
        "from .conftest import store\nfrom tests.unit import test_store\n"
        "from ..agent_skills.test_install import NAME\nimport tests.integration.mcp.test_play\n"
        "from . import test_cli\nimport tests.support.factory\nfrom tests.support.cli import run_cli\n"
    )
    found = {m for m in _imports(planted, "tests.integration.replay.planted") if _is_test_or_conftest(m)}
    assert found == {
        "tests.integration.replay.conftest",
        "tests.unit.test_store",
        "tests.integration.agent_skills.test_install",
        "tests.integration.mcp.test_play",
        "tests.integration.replay.test_cli",
    }


def _is_fixture(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in node.decorator_list:
        call = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(call, ast.Attribute) and call.attr == "fixture":
            return True
    return node.name.startswith("pytest_")  # a hook


def test_conftest_files_hold_fixtures_and_hooks_only() -> None:
    offenders = []
    for path in TESTS.rglob("conftest.py"):
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.ClassDef) or (
                isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not _is_fixture(node)
            ):
                offenders.append(f"{_module(path)}.{node.name}")
    assert offenders == []
