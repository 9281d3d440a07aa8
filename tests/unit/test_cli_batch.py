"""The batch verb's edge (cli/batch.py): how a cancelled batch is reported."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
import shlex
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from xml.etree import ElementTree

import pytest
from rich.console import Console

from skillreel.cli.batch import _run, plain_line, show_summary
from skillreel.cli.batch_output import (
    ResultFiles,
    check_result_files,
    junit_xml,
    results_csv,
    results_jsonl,
    resume_command,
    shown_broker,
    write_result_files,
)
from skillreel.errors import ReplayError
from skillreel.sandbox.artifacts import DebugOptions
from skillreel.services.batching import BatchOutcome, BatchRequest, RowResult
from skillreel.services.preflight import ReplayRequest


async def test_ctrl_c_before_any_row_started_is_a_cancelled_batch_not_a_traceback() -> None:
    """Cancelled while the fleet's coordinator still asks the broker for workers (no row, no
    outcome yet), the verb's edge reports SR_REPLAY_CANCELLED instead of a bare CancelledError."""

    async def never(_on_row: object) -> Any:
        await asyncio.Event().wait()

    task = asyncio.ensure_future(_run(None, never, show=False))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(ReplayError) as caught:
        await task
    assert caught.value.code == "SR_REPLAY_CANCELLED"


def test_a_cancelled_batch_counts_every_row_once_by_how_it_ended() -> None:
    """A fleet's given-up row (cancelled) never ran and its interrupted row did: the message said
    '1 row(s) ran, 1 did not start' for three rows."""
    results = tuple(
        RowResult(n, n, status)  # type: ignore[arg-type]
        for n, status in enumerate(("interrupted", "cancelled", "not-run"), start=1)
    )
    outcome = BatchOutcome("search-invoices", "0123456789abcdef", False, 3, results, cancelled=True)
    error = outcome.error
    assert error is not None
    assert error.code == "SR_REPLAY_CANCELLED"
    assert "(1 cancelled, 1 interrupted, 1 not run)" in error.message


# ---- issue 31.4: what a batch leaves for CI ----------------------------------------------------


def outcome_of(*results: RowResult, name: str = "pay-invoice") -> BatchOutcome:
    return BatchOutcome(name, "0123456789abcdef", False, 2, results)


FAILED = RowResult(
    2,
    3,
    "failed",
    code="SR_REPLAY_UI_ASSERTION_FAILED",
    message='step a4 (assert): <no> & "x"',
    run_id="b" * 32,
)
PASSED = RowResult(1, 2, "succeeded", run_id="a" * 32, seconds=2.14, outputs={"total": "12,50 €"})


def test_a_plain_row_line_names_the_row_of_all_its_status_code_run_and_time_and_nothing_else() -> None:
    assert plain_line(PASSED, 40) == f"row 1/40 succeeded run {'a' * 32} 2.1s"
    assert plain_line(FAILED, 40) == f"row 2/40 failed SR_REPLAY_UI_ASSERTION_FAILED run {'b' * 32}"
    assert plain_line(RowResult(3, 4, "not-run"), 40) == "row 3/40 not-run"
    assert "12,50" not in plain_line(PASSED, 40)  # outputs are the caller's, never in a log line


async def test_stderr_not_a_terminal_gets_one_plain_line_per_row_as_it_ends(
    capsys: pytest.CaptureFixture[str],
) -> None:
    plan: Any = SimpleNamespace(rows=(1, 2), runset=SimpleNamespace(name="n", runset_id="0" * 16))

    async def two_rows(on_row: Any) -> BatchOutcome:
        on_row(PASSED)
        assert capsys.readouterr().err == f"row 1/2 succeeded run {'a' * 32} 2.1s\n"  # before row 2 ends
        on_row(FAILED)
        return outcome_of(PASSED, FAILED)

    await _run(plan, two_rows, show=False)
    assert capsys.readouterr().err == f"row 2/2 failed SR_REPLAY_UI_ASSERTION_FAILED run {'b' * 32}\n"


def test_the_resume_hint_is_the_real_command_with_every_option_that_matters(tmp_path: Path) -> None:
    replay = ReplayRequest(
        name="pay-invoice",
        inputs={"region": "eu west"},
        environment="staging",
        heal=False,
        timeout_ms=30_000,
        expected_revision=3,
        debug=DebugOptions(artifacts=tmp_path / "art"),
    )
    batch = BatchRequest(replay, Path("rows dir/invoices.csv"), workers=2, stop_on_failure=True)
    command = resume_command(batch, "3f9a0c1d2e4b5a69", ResultFiles(Path("out.csv"), None).options())
    assert shlex.split(command) == [
        "skillreel", "replay", "pay-invoice", "--batch", "rows dir/invoices.csv",
        "--input", "region=eu west", "--env", "staging", "--expected-revision", "3",
        "--artifacts", str(tmp_path / "art"), "--no-heal", "--timeout", "30000", "--workers", "2",
        "--stop-on-failure", "--results", "out.csv", "--resume", "3f9a0c1d2e4b5a69",
    ]  # fmt: skip
    plain = resume_command(BatchRequest(ReplayRequest(name="n"), Path("r.csv")), "0" * 16)
    assert plain == f"skillreel replay n --batch r.csv --resume {'0' * 16}"


def test_the_summary_prints_the_resume_command_not_a_placeholder() -> None:
    out = Console(file=io.StringIO(), width=300)
    outcome = outcome_of(PASSED, FAILED)
    show_summary(out, outcome.to_json(), "skillreel replay pay-invoice --batch 'a [b].csv' --resume x")
    text = out.file.getvalue()  # type: ignore[attr-defined]
    assert "replay the rows that did not succeed: skillreel replay pay-invoice --batch 'a [b].csv'" in text
    assert "--batch FILE" not in text


def test_a_broker_password_never_reaches_the_printed_command() -> None:
    assert shown_broker("redis://:s3cret@10.0.0.1:6379/0") == "redis://:<password>@10.0.0.1:6379/0"
    assert shown_broker("rediss://app:s3cret@host/1") == "rediss://app:<password>@host/1"
    assert shown_broker("redis://10.0.0.1:6379/0") == "redis://10.0.0.1:6379/0"


def test_results_files_hold_one_line_per_row_with_its_outputs() -> None:
    outcome = outcome_of(PASSED, FAILED, RowResult(3, 4, "not-run"))
    lines = [json.loads(line) for line in results_jsonl(outcome).decode().splitlines()]
    assert lines[0] == {
        "row": 1, "line": 2, "status": "succeeded", "code": None, "runId": "a" * 32, "seconds": 2.14,
        "outputs": {"total": "12,50 €"},
    }  # fmt: skip
    assert [(r["row"], r["status"], r["code"]) for r in lines] == [
        (1, "succeeded", None),
        (2, "failed", "SR_REPLAY_UI_ASSERTION_FAILED"),
        (3, "not-run", None),
    ]
    rows = list(csv.DictReader(io.StringIO(results_csv(outcome).decode())))
    assert [(r["row"], r["status"], r["code"], r["runId"]) for r in rows] == [
        ("1", "succeeded", "", "a" * 32),
        ("2", "failed", "SR_REPLAY_UI_ASSERTION_FAILED", "b" * 32),
        ("3", "not-run", "", ""),
    ]
    assert json.loads(rows[0]["outputs"]) == {"total": "12,50 €"}
    assert rows[1]["outputs"] == ""


def test_junit_has_one_testcase_per_row_and_a_failure_with_code_and_message() -> None:
    outcome = outcome_of(PASSED, FAILED, RowResult(3, 4, "skipped", run_id="c" * 32))
    root = ElementTree.fromstring(junit_xml(outcome))
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "1")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["row 1 (line 2)", "row 2 (line 3)", "row 3 (line 4)"]
    failure = cases[1].find("failure")
    assert failure is not None
    assert failure.get("type") == "SR_REPLAY_UI_ASSERTION_FAILED"
    assert failure.get("message") == 'SR_REPLAY_UI_ASSERTION_FAILED: step a4 (assert): <no> & "x"'
    assert cases[0].find("failure") is None
    assert cases[2].find("skipped") is not None
    assert b"12,50" not in junit_xml(outcome)  # no outputs in a report CI may publish


def test_a_results_path_that_is_a_symlink_a_directory_or_of_no_known_kind_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.csv"
    target.write_text("keep")
    (tmp_path / "link.csv").symlink_to(target)
    (tmp_path / "dir.xml").mkdir()
    cases = [
        ResultFiles(results=tmp_path / "link.csv"),
        ResultFiles(junit=tmp_path / "link.csv"),
        ResultFiles(junit=tmp_path / "dir.xml"),
        ResultFiles(results=tmp_path / "out.txt"),
        ResultFiles(results=tmp_path / "missing" / "out.csv"),
    ]
    for files in cases:
        with pytest.raises(ReplayError) as caught:
            check_result_files(files)
        assert caught.value.code == "SR_REPLAY_BATCH_OUTPUT_REFUSED"
        assert caught.value.exit_status == 2
    check_result_files(ResultFiles(tmp_path / "new.jsonl", tmp_path / "report.xml"))
    assert target.read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.xml", "elsewhere.csv", "link.csv"]


def test_result_files_are_written_owner_only(tmp_path: Path) -> None:
    files = ResultFiles(tmp_path / "out.csv", tmp_path / "junit.xml")
    assert write_result_files(outcome_of(PASSED), files) == []
    assert {p.name: p.stat().st_mode & 0o777 for p in tmp_path.iterdir()} == {
        "out.csv": 0o600,
        "junit.xml": 0o600,
    }


async def test_the_terminal_bar_shows_the_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=200)
    monkeypatch.setattr("skillreel.cli.output.console", lambda stderr=False: terminal)
    plan: Any = SimpleNamespace(rows=(1, 2), runset=SimpleNamespace(name="n", runset_id="0" * 16))

    async def two_rows(on_row: Any) -> BatchOutcome:
        on_row(PASSED)
        on_row(FAILED)
        return outcome_of(PASSED, FAILED)

    await _run(plan, two_rows, show=True)
    shown = screen.getvalue()
    assert "eta" in shown
    assert re.search(r"eta\S* \S*\d+:\d\d:\d\d", shown), shown  # rich's TimeRemainingColumn
    assert "2/2" in shown
