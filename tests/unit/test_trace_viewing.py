"""``skillreel show-trace``: which file opens, the viewer's command line (skillreel's own
interpreter, loopback only), and the refusals, through the real console script."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from skillreel.errors import SkillreelError
from skillreel.services.trace_viewing import show_trace, trace_file, viewer_command
from tests.support.cli import run_cli


def test_a_directory_opens_its_trace_zip_and_a_file_opens_itself(tmp_path: Path) -> None:
    trace = tmp_path / "trace.zip"
    trace.write_bytes(b"PK")
    assert trace_file(tmp_path) == trace
    assert trace_file(trace) == trace


def test_the_viewer_is_playwrights_from_this_interpreter_served_on_loopback_only(tmp_path: Path) -> None:
    trace = tmp_path / "trace.zip"
    assert viewer_command(trace) == [sys.executable, "-m", "playwright", "show-trace", str(trace)]
    served = viewer_command(trace, port=0)
    assert served[-5:] == ["--host", "127.0.0.1", "--port", "0", str(trace)]


def test_a_viewer_that_fails_is_an_sr_code_and_one_that_closes_is_not(tmp_path: Path) -> None:
    (tmp_path / "trace.zip").write_bytes(b"PK")
    ran: list[Sequence[str]] = []

    def runner(status: int) -> Callable[[Sequence[str]], int]:
        def run(command: Sequence[str]) -> int:
            ran.append(command)
            return status

        return run

    assert show_trace(tmp_path, port=8123, run=runner(0)) == tmp_path / "trace.zip"
    assert ran[0][-1] == str((tmp_path / "trace.zip").resolve())
    with pytest.raises(SkillreelError) as err:
        show_trace(tmp_path, run=runner(1))
    assert err.value.code == "SR_RECORD_TRACE_VIEWER_FAILED"


def test_a_missing_path_or_a_directory_without_a_trace_is_refused_before_any_viewer(tmp_path: Path) -> None:
    for path in (tmp_path / "nowhere", tmp_path):
        result = run_cli("show-trace", str(path))
        assert result.exit_code == 2, result.stderr
        assert "SR_RECORD_TRACE_MISSING" in result.stderr
        assert "Traceback" not in result.stderr
    (tmp_path / "trace.zip").mkdir()  # a directory named trace.zip is no trace either
    assert run_cli("show-trace", str(tmp_path)).exit_code == 2
    listed = run_cli("--help")
    assert "show-trace" in listed.stdout
    assert "--port" in run_cli("show-trace", "--help").stdout
