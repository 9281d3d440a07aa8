"""`replay --batch` through the console script: a bad file is refused before any browser starts,
naming its line, with nothing written; batch options without --batch, and debugging options with
it, are usage errors. Chromium is pointed at a file that is not one: a start would fail with
``SR_REPLAY_UI_CHROMIUM_SETUP`` instead of the code each test expects."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillreel.model import lifecycle
from skillreel.store import AuditNote, Store
from tests.support import factory
from tests.support.cli import cli
from tests.support.readback import sql

NAME = "find-invoice"


@pytest.fixture
def home(skillreel_home: Path) -> Path:
    with Store.open() as store:
        store.insert(factory.entry(NAME, environment=factory.url_environment()), AuditNote(kind="record"))
        store.update(NAME, lambda e: lifecycle.approve(e, "rev", factory.T0), AuditNote(kind="review"))
    return skillreel_home


def refused(home: Path, tmp_path: Path, *args: str, code: str, exit_code: int = 2) -> dict[str, object]:
    before = [sql(home, f"SELECT * FROM {t} ORDER BY 1") for t in ("audit", "runs", "runsets")]
    nowhere = tmp_path / "no-chromium"
    nowhere.write_text("")
    result = cli(home, "replay", NAME, *args, env={"SKILLREEL_CHROMIUM": str(nowhere)})
    error: dict[str, object] = result.json()["error"]
    assert (result.exit_code, error["code"]) == (exit_code, code), result.stdout
    assert result.json()["data"] is None
    assert [sql(home, f"SELECT * FROM {t} ORDER BY 1") for t in ("audit", "runs", "runsets")] == before
    return error


def test_a_bad_row_is_refused_naming_its_line(home: Path, tmp_path: Path) -> None:
    rows = tmp_path / "rows.csv"
    rows.write_text("query,qeury\na,b\n")
    error = refused(home, tmp_path, "--batch", str(rows), code="SR_REPLAY_BATCH_COLUMN_UNKNOWN")
    assert "line 1" in str(error["message"])
    assert "did you mean 'query'" in str(error["message"])
    assert error["details"] == {"line": 1, "parameters": ["query"]}
    rows.write_text('{"query": "a"}\n{"query": "b"\n')
    rows = rows.rename(tmp_path / "rows.jsonl")
    error = refused(home, tmp_path, "--batch", str(rows), code="SR_REPLAY_BATCH_MALFORMED")
    assert error["details"] == {"line": 2}


def test_batch_options_go_with_batch_and_debugging_options_without_it(home: Path, tmp_path: Path) -> None:
    rows = tmp_path / "rows.csv"
    rows.write_text("query\na\n")
    refused(home, tmp_path, "--input", "query=a", "--workers", "2", code="SR_RECORD_USAGE")
    refused(home, tmp_path, "--input", "query=a", "--resume", "0123456789abcdef", code="SR_RECORD_USAGE")
    refused(home, tmp_path, "--batch", str(rows), "--headed", code="SR_RECORD_USAGE")
    refused(home, tmp_path, "--batch", str(rows), "--workers", "0", code="SR_RECORD_USAGE")
