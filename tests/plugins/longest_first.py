"""A pytest plugin (loaded by tests/conftest.py): with ``--dist loadfile`` (``make test``), the
test files go to the xdist workers longest first, by the seconds each took in a measured run
(``tests/plugins/file_costs.json``); a file not listed there counts a fraction of a second per test.

pytest-xdist hands out files largest first by *number of tests*, so the files that take minutes
with few tests (the real-app subset, the CLI and MCP end-to-end files) came last and one worker
ran them alone at the end while the other idled. Longest first keeps both busy to the end. The
order changes only when a file starts, never what runs or where a file's tests run together
(module-scoped fixtures are still built once).

Refresh the table after the suite changed much (any load: only the order matters):
``pytest -n auto --dist loadfile --file-costs-out tests/plugins/file_costs.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

COSTS = Path(__file__).with_name("file_costs.json")
UNLISTED_S_PER_TEST = 0.2


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--file-costs-out",
        metavar="PATH",
        default=None,
        help="write each test file's total seconds (setup, call, teardown) here as JSON",
    )


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def costs() -> dict[str, float]:
    try:
        table = json.loads(COSTS.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in table.items()} if isinstance(table, dict) else {}


def longest_first(units: dict[str, Any], table: dict[str, float]) -> list[tuple[str, Any]]:
    """Work units (file -> its tests) ordered by their measured seconds, longest first."""
    return sorted(units.items(), key=lambda unit: -table.get(unit[0], UNLISTED_S_PER_TEST * len(unit[1])))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

    class LongestFileFirst(LoadFileScheduling):  # type: ignore[misc]
        _ordered = False

        def _assign_work_unit(self, node: Any) -> None:
            if not self._ordered:  # the queue is complete before the first file is handed out
                self._ordered = True
                ordered = longest_first(dict(self.workqueue), costs())
                self.workqueue.clear()
                self.workqueue.update(ordered)
            super()._assign_work_unit(node)

    return LongestFileFirst(config, log)


class _CostRecorder:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        name = file_of(report.nodeid)
        self.seconds[name] = self.seconds.get(name, 0.0) + report.duration

    def pytest_sessionfinish(self) -> None:
        table = {name: round(s, 1) for name, s in sorted(self.seconds.items())}
        self.path.write_text(json.dumps(table, indent=1) + "\n")


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    out = config.getoption("file_costs_out")
    if out and not hasattr(config, "workerinput"):  # the controller sees every worker's reports
        config.pluginmanager.register(_CostRecorder(Path(out)), "file-costs-recorder")
