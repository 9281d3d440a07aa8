"""A batch as CI sees it (issue 31.4): stderr is a file, not a terminal. Each row's plain line is in
the file as soon as the row ends (read while a later row is held at the page's server, so nothing
is timed), ``--results`` and ``--junit`` hold one line / one testcase per row, and the summary's
resume hint is the real command. Real Chromium on the counting page (tests/integration/runs/)."""

from __future__ import annotations

import asyncio
import csv
import json
import re
import shlex
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.integration.batch.test_batch import REFUSING_PAGE, SIGNAL_WAIT_S, rows_file
from tests.integration.runs.counting import NAME, acted, cli_env, counting_skill
from tests.support.cli import cli_command, run_cli
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RUN = r"run [0-9a-f]{32}"


async def test_a_batch_logged_to_a_file_prints_each_row_as_it_ends_and_writes_results_and_junit(
    server: LocalServer, skillreel_home: Path, tmp_path: Path
) -> None:
    await counting_skill(server)
    server.set_page("/orders", REFUSING_PAGE)
    gate = server.hold("/act", after=2)  # rows 1 and 2 place their order, row 3 fails, row 4 is held
    rows = rows_file(tmp_path, ["1", "2", "fail", "4"], name="my rows.csv")
    results, junit, log = tmp_path / "results.csv", tmp_path / "junit.xml", tmp_path / "stderr.log"
    args = ["replay", NAME, "--batch", str(rows), "--workers", "1", "--timeout", "30000"]
    args += ["--results", str(results), "--junit", str(junit)]
    with log.open("w") as stderr:
        proc = subprocess.Popen(
            cli_command(*args),
            env=cli_env(skillreel_home),
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
        try:
            assert await asyncio.to_thread(gate.reached.wait, SIGNAL_WAIT_S), "row 4 placed no order"
            while_running = log.read_text().splitlines()  # row 4 is held: rows 1 to 3 have ended
        finally:
            gate.release()
            out, _ = await asyncio.to_thread(proc.communicate, None, SIGNAL_WAIT_S)
    lines = log.read_text().splitlines()
    assert proc.returncode == 1, lines
    assert len(while_running) == 3, while_running
    assert re.fullmatch(rf"row 1/4 succeeded {RUN} \d+\.\ds", while_running[0])
    assert re.fullmatch(rf"row 3/4 failed SR_REPLAY_UI_NETWORK_DENIED {RUN}( \d+\.\ds)?", while_running[2])
    row_lines = [line for line in lines if line.startswith("row ")]
    assert [line.split()[1:3] for line in row_lines] == [
        ["1/4", "succeeded"],
        ["2/4", "succeeded"],
        ["3/4", "failed"],
        ["4/4", "succeeded"],
    ]
    assert not any("fail" in re.sub(r"\bfailed\b", "", line) for line in row_lines)  # no input value
    assert "\x1b" not in log.read_text()  # no colour, no bar

    with results.open(newline="") as f:
        written = list(csv.DictReader(f))
    assert [(r["row"], r["status"], r["code"]) for r in written] == [
        ("1", "succeeded", ""),
        ("2", "succeeded", ""),
        ("3", "failed", "SR_REPLAY_UI_NETWORK_DENIED"),
        ("4", "succeeded", ""),
    ]
    assert all(re.fullmatch("[0-9a-f]{32}", r["runId"]) for r in written)
    assert results.stat().st_mode & 0o777 == 0o600
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("4", "1")
    failures = [c for c in suite.findall("testcase") if c.find("failure") is not None]
    assert [c.get("name") for c in failures] == ["row 3 (line 4)"]

    hint = next(
        line for line in out.splitlines() if line.startswith("replay the rows that did not succeed: ")
    )
    command = shlex.split(hint.split(": ", 1)[1])
    assert command[:5] == ["skillreel", "replay", NAME, "--batch", str(rows)]
    assert command[-2] == "--resume"
    assert ["--results", str(results)] == command[command.index("--results") :][:2]
    assert command[command.index("--workers") :][:2] == ["--workers", "1"]
    assert acted(server) == 3


async def test_artifacts_with_a_batch_are_written_for_the_failed_rows_only(
    server: LocalServer, skillreel_home: Path, tmp_path: Path
) -> None:
    """``--artifacts DIR --batch`` was refused; now each failed row leaves ``DIR/row-N`` (the single
    replay's trace, screenshot and failure.json, mode 0600) and a row that succeeded leaves nothing."""
    await counting_skill(server)
    server.set_page("/orders", REFUSING_PAGE)
    rows = rows_file(tmp_path, ["1", "fail", "3"])
    artifacts = tmp_path / "artifacts"
    args = ["replay", NAME, "--batch", str(rows), "--workers", "2", "--timeout", "30000"]
    result = await asyncio.to_thread(
        run_cli, *args, "--artifacts", str(artifacts), "--json", env=cli_env(skillreel_home)
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert (result.exit_code, result.json()["error"]["code"]) == (1, "SR_REPLAY_BATCH_FAILED")
    assert [p.name for p in artifacts.iterdir()] == ["row-2"]
    written = {p.name: p.stat().st_mode & 0o777 for p in (artifacts / "row-2").iterdir()}
    assert "failure.json" in written
    assert "trace.zip" in written
    assert set(written.values()) == {0o600}
    failure = json.loads((artifacts / "row-2" / "failure.json").read_text())
    assert (failure["outcome"], failure["code"]) == ("failed", "SR_REPLAY_UI_NETWORK_DENIED")
    assert artifacts.stat().st_mode & 0o777 == 0o700
    assert acted(server) == 2
