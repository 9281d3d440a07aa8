"""``skillreel demo`` says which stage runs as it starts (``[3/12] review ...``), then its result
(issue 31.7: a fresh clone's demo used to sit silent through each stage)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from skillreel.cli import demo as demo_cli
from skillreel.demo import journey


def test_the_journey_announces_each_stage_before_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    heard: list[str] = []

    def stage(name: str) -> Any:
        async def run(_ctx: Any) -> journey.StageResult:
            heard.append(f"ran {name}")
            return journey.StageResult(name, True, f"{name} done")

        return run

    monkeypatch.setattr(journey, "STAGES", tuple((name, stage(name)) for name in ("record", "show", "audit")))
    ctx: Any = SimpleNamespace(results=[], workdir=Path("/nowhere"), home=Path("/nowhere/home"))
    run = asyncio.run(
        journey._run_stages(
            ctx,
            lambda result: heard.append(f"passed {result.stage}"),
            False,
            lambda number, total, name: heard.append(f"[{number}/{total}] {name}"),
        )
    )
    assert [r.stage for r in run.results] == ["record", "show", "audit"]
    assert heard == [
        "[1/3] record", "ran record", "passed record",
        "[2/3] show", "ran show", "passed show",
        "[3/3] audit", "ran audit", "passed audit",
    ]  # fmt: skip


def test_the_command_prints_each_stage_as_it_starts_and_as_it_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    names = [name for name, _ in journey.STAGES]

    def fake_run(*, on_stage: Any, on_start: Any, **_options: Any) -> journey.DemoRun:
        results = []
        for number, name in enumerate(names, start=1):
            on_start(number, len(names), name)
            results.append(journey.StageResult(name, True, f"{name} done", seconds=0.5))
            on_stage(results[-1])
        return journey.DemoRun(results, None, Path("/nowhere/home"))

    monkeypatch.setattr(journey, "run", fake_run)
    result = CliRunner().invoke(demo_cli.command, [])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(names) == 12
    for number, name in enumerate(names, start=1):
        started = lines.index(f"[{number}/12] {name} ...")
        assert lines[started + 1].startswith(f"✓ {name}")
    assert lines[-1].startswith("12 stages passed")
