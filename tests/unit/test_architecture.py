"""Architecture rules that keep the design easy to see (docs/dev/ARCHITECTURE.md).

The layer rule: every module of ``skillreel`` belongs to exactly one layer, and imports (at module
level, inside functions or under ``TYPE_CHECKING``: all of them) point only down, to a lower
layer, or stay inside the module's own top-level package. Two packages of the same layer do not
import each other. A module that belongs to no layer fails the test, so a new or moved module
cannot silently drop out of the check.

The use-case rule, inside ``services/``: a use case imports no other use case, only the modules
listed in ``SHARED_SERVICES``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillreel.errors import SkillreelError
from skillreel.errors.codes import CODES

SRC = Path(__file__).resolve().parents[2] / "src" / "skillreel"

# Lowest first. A unit is a top-level module or package of skillreel.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "private_files"}),  # leaves: they import nothing of skillreel
    frozenset({"model"}),
    frozenset({"vault", "user_files"}),
    frozenset({"store"}),
    frozenset({"locate"}),
    frozenset({"record", "replay", "sandbox"}),
    frozenset({"agent_skills"}),
    frozenset({"services"}),
    frozenset({"mcp", "demo", "ui", "fleet"}),  # fleet: Celery workers and the broker
    frozenset({"cli", "api"}),  # the console script (it starts the MCP server, the demo); the library API
    frozenset({"__main__"}),
)
ROOT_UNIT = "__init__"  # skillreel/__init__.py: imports nothing of skillreel

DOCS = SRC.parents[1] / "docs" / "dev"
_PURE_BLOCK = re.compile(r"^```pure\n(.*?)^```", re.MULTILINE | re.DOTALL)


def pure_list(architecture: str) -> tuple[str, ...]:
    """The pure modules: the one ```` ```pure ```` block of docs/dev/ARCHITECTURE.md, a path under
    ``src/skillreel`` a line (``pkg/`` for every module of a package)."""
    blocks = _PURE_BLOCK.findall(architecture)
    assert len(blocks) == 1, "docs/dev/ARCHITECTURE.md must hold exactly one ```pure block"
    return tuple(line.strip() for line in blocks[0].splitlines() if line.strip())


PURE = pure_list((DOCS / "ARCHITECTURE.md").read_text(encoding="utf-8"))
FORBIDDEN_IN_PURE = {"playwright", "sqlite3", "subprocess", "socket", "asyncio", "os", "httpx", "requests"}


def layer_of(unit: str) -> int | None:
    return next((i for i, units in enumerate(LAYERS) if unit in units), None)


def module_name(path: Path, src: Path = SRC) -> str:
    """``skillreel.a.b`` for ``src/skillreel/a/b.py`` (a package is its ``__init__``)."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["skillreel", *parts])


def imported_modules(tree: ast.AST, module: str, is_package: bool) -> Iterator[tuple[int, str]]:
    """Every ``skillreel`` module an AST imports (relative imports resolved), with its line."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "skillreel" or alias.name.startswith("skillreel."):
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "skillreel" or target.startswith("skillreel."):
                if target == "skillreel" or (node.module is None and node.level):
                    for alias in node.names:  # from . import x / from skillreel import x
                        yield node.lineno, f"{target}.{alias.name}"
                else:
                    yield node.lineno, target


def unit_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT_UNIT


def back_edges(source: str, module: str, is_package: bool = False) -> list[str]:
    """The imports of ``source`` (as module ``module``) that break the layer rule."""
    own = unit_of(module)
    own_layer = layer_of(own)
    problems = []
    if own_layer is None and own != ROOT_UNIT:
        return [f"{module} belongs to no layer (add its package to LAYERS)"]
    for line, target in imported_modules(ast.parse(source), module, is_package):
        other = unit_of(target)
        if other == own:
            continue
        other_layer = layer_of(other)
        if own == ROOT_UNIT or other_layer is None or own_layer is None or other_layer >= own_layer:
            problems.append(f"{module}:{line} imports {target}")
    return problems


def all_modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_import_points_down() -> None:
    problems = []
    for path in all_modules():
        problems += back_edges(path.read_text(), module_name(path), path.name == "__init__.py")
    assert not problems, "layer rule broken:\n" + "\n".join(problems)


def test_every_package_is_in_a_layer() -> None:
    units = {unit_of(module_name(p)) for p in all_modules()} - {ROOT_UNIT}
    assert units == set().union(*LAYERS), "LAYERS lists a unit that does not exist, or misses one"


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("skillreel.store.entries", "from ..services import governance\n"),
        ("skillreel.store.entries", "def f():\n    from skillreel.mcp import server\n"),
        ("skillreel.model.draft", "from ..store import Store\n"),
        ("skillreel.replay.engine", "from ..sandbox.cold import browser_session\n"),  # same layer
        ("skillreel.locate.heal", "from . import x\nfrom ..record import recorder\n"),
        ("skillreel.errors", "import skillreel.model\n"),
        (
            "skillreel.agent_skills.package",
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from ..services.preflight import Preflight\n",
        ),
        ("skillreel.newpackage.mod", "import json\n"),  # a unit in no layer
    ],
)
def test_a_planted_back_edge_fails_the_rule(module: str, source: str) -> None:
    assert back_edges(source, module), f"not caught: {source!r} in {module}"


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("skillreel.services.replaying", "from ..store import Store\nfrom . import preflight\n"),
        ("skillreel.cli.replay", "def f():\n    from ..services.replaying import replay_skill\n"),
        ("skillreel.record.recorder", "from ..locate import script\n"),
    ],
)
def test_downward_imports_pass_the_rule(module: str, source: str) -> None:
    assert back_edges(source, module) == []


# Inside services/ every module is one use case, except these, which every use case may share. A use
# case never imports another use case (what two need goes into a shared module), and a shared module
# imports only shared modules.
SHARED_SERVICES = frozenset({"guards", "preflight", "record_preflight", "environments", "revisions", "runs"})
# The one composed use case: a batch is many runs of the replay use case (never a fork of it).
# A fleet batch is a batch whose rows run on workers (the same plan, scheduling seam and runset hold).
COMPOSED_SERVICES = {
    "skillreel.services.batching": frozenset({"replaying"}),
    "skillreel.services.fleet_batching": frozenset({"batching"}),
    # A repair is a recording that starts after the approved steps before it were replayed.
    "skillreel.services.repairing": frozenset({"recording"}),
}


def service_edges(source: str, module: str) -> list[str]:
    """The imports of a ``skillreel.services`` module that break the use-case rule."""
    if not module.startswith("skillreel.services."):
        return []
    problems = []
    allowed = SHARED_SERVICES | COMPOSED_SERVICES.get(module, frozenset())
    for line, target in imported_modules(ast.parse(source), module, is_package=False):
        parts = target.split(".")
        if parts[:2] == ["skillreel", "services"] and (len(parts) < 3 or parts[2] not in allowed):
            problems.append(
                f"{module}:{line} imports {target} (a use case; share through "
                f"{', '.join(sorted(SHARED_SERVICES))})"
            )
    return problems


def test_use_cases_share_only_the_shared_service_modules() -> None:
    services = sorted((SRC / "services").glob("*.py"))
    assert {p.stem for p in services} >= SHARED_SERVICES, "a shared module moved (update SHARED_SERVICES)"
    problems = []
    for path in services:
        problems += service_edges(path.read_text(), module_name(path))
    assert not problems, "use-case rule broken:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("module", "source", "broken"),
    [
        ("skillreel.services.packaging", "from .reviewing import review_skill\n", True),
        ("skillreel.services.guards", "from . import reviewing\n", True),
        ("skillreel.services.agent_access", "def f():\n    from .replaying import replay_skill\n", True),
        ("skillreel.services.reviewing", "from skillreel import services\n", True),
        ("skillreel.services.reviewing", "from .guards import approval_required\n", False),
        ("skillreel.services.replaying", "from . import preflight\nfrom ..store import Store\n", False),
        ("skillreel.mcp.server", "from ..services.replaying import replay_skill\n", False),
    ],
)
def test_the_use_case_rule_catches_a_planted_edge(module: str, source: str, broken: bool) -> None:
    assert bool(service_edges(source, module)) is broken


def _pure_paths(listed: tuple[str, ...] = PURE) -> list[Path]:
    paths = []
    for entry in listed:
        base = SRC / entry
        paths += sorted(base.glob("*.py")) if entry.endswith("/") else [base]
    return paths


def _is_module(path: Path) -> bool:
    return path.suffix == ".py" and path.is_file()


def test_pure_modules_exist() -> None:
    missing = [e for e in PURE if not ((SRC / e).is_dir() if e.endswith("/") else _is_module(SRC / e))]
    assert not missing, f"a pure module moved or vanished: {missing} (update the ```pure block)"
    assert len(set(PURE)) == len(PURE), "a pure module is listed twice"


def test_the_pure_list_reader_takes_the_one_block() -> None:
    doc = "# Page\n\n```python\nnot/this.py\n```\n\n```pure\nmodel/\n\nlocate/heal.py\n```\n"
    assert pure_list(doc) == ("model/", "locate/heal.py")
    assert [p.relative_to(SRC).as_posix() for p in _pure_paths(("locate/heal.py",))] == ["locate/heal.py"]
    assert SRC / "model" / "base.py" in _pure_paths(("model/",))
    with pytest.raises(AssertionError):
        pure_list(doc + doc)


_CALLED_PURE = re.compile(r"`((?:[a-z_]+/)+[a-z_]+\.py)`\s*\(pure\)")


def test_the_docs_call_pure_only_what_the_list_holds() -> None:
    """One list: a module the dev pages call ``(pure)`` by its path is on it (or in a listed package)."""
    pure = {p.relative_to(SRC).as_posix() for p in _pure_paths()}
    called = {
        (page, path)
        for page in ("ARCHITECTURE.md", "CONTRACTS.md")
        for path in _CALLED_PURE.findall((DOCS / page).read_text(encoding="utf-8"))
    }
    assert called, "the check finds no module called (pure)"
    unlisted = sorted(f"{page}: {path}" for page, path in called if path not in pure)
    assert not unlisted, "called pure but not on the ```pure list of ARCHITECTURE.md:\n" + "\n".join(unlisted)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


FLEET_ONLY = {"celery", "kombu", "billiard", "redis"}  # the optional extra skillreel[fleet]


def test_only_the_fleet_package_imports_the_fleet_extra() -> None:
    """The base install works without ``skillreel[fleet]``: Celery and Redis are imported only inside
    ``skillreel/fleet/`` (and the CLI reaches that package only from a verb's body)."""
    fleet = SRC / "fleet"
    outside = [
        f"{p.relative_to(SRC)} imports {', '.join(sorted(_imports(p) & FLEET_ONLY))}"
        for p in all_modules()
        if not p.is_relative_to(fleet) and _imports(p) & FLEET_ONLY
    ]
    assert not outside, "the fleet extra is imported outside skillreel/fleet:\n" + "\n".join(outside)
    assert _imports(fleet / "app.py") & FLEET_ONLY  # the check sees the package's own imports


@pytest.mark.parametrize("path", _pure_paths(), ids=lambda p: str(p.relative_to(SRC)))
def test_pure_modules_do_no_io(path: Path) -> None:
    assert not (_imports(path) & FORBIDDEN_IN_PURE), f"{path.name} imports I/O libraries"
    text = path.read_text()
    assert "open(" not in re.sub(r"#.*", "", text)


def test_every_error_code_is_in_its_family_and_documented() -> None:
    for code, spec in CODES.items():
        assert re.fullmatch(r"SR_(RECORD|REPLAY|REPLAY_UI|POLICY|MCP)_[A-Z_]+", code), code
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
    assert err.to_json() == {
        "code": "SR_REPLAY_UI_TARGET_NOT_FOUND",
        "message": "step a3",
        "actionId": "a3",
        "fix": CODES["SR_REPLAY_UI_TARGET_NOT_FOUND"].fix,
        "details": {},
    }


def test_javascript_lives_in_js_files() -> None:
    """No JavaScript function bodies assembled inside Python strings."""
    for path in SRC.rglob("*.py"):
        text = path.read_text()
        assert "=> {" not in text, path
        assert "function(" not in text.replace(" ", ""), path
