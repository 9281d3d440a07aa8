"""The fleet's refusals on the command line, before anything runs (no browser, no worker): the extra
missing, a broker that does not answer, bad options, a skill a fleet may not run. Each is a clear
``SR_*`` code, nothing recorded in the store."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from skillreel.store import Store
from tests.support import factory
from tests.support.cli import run_cli
from tests.support.fleet_rig import free_port

NAME = "search-invoices"


@pytest.fixture
def batch(tmp_path: Path) -> tuple[Path, Path]:
    rows = tmp_path / "rows.csv"
    rows.write_text("query\nr1\nr2\n", encoding="utf-8")
    private, _ = factory.write_keys(tmp_path)
    return rows, private


def stored(status: str = "validated", *, url: bool = True) -> None:
    environment = factory.url_environment("http://127.0.0.1:8000/app") if url else None
    with Store.open() as store:
        factory.store_entry(store, factory.entry(environment=environment), status)


def nothing_recorded() -> None:
    with Store.open() as store:
        assert store.runs(NAME) == []
        assert not [e for e in store.audit_events(NAME) if e.kind in ("export", "run-start")]


def closed_broker() -> str:
    return f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there


def test_worker_without_the_fleet_extra_says_how_to_install_it(tmp_path: Path) -> None:
    blocked = "import sys; sys.modules['celery'] = None; sys.modules['redis'] = None\n"
    args = "['worker', '--broker', 'redis://h:6379/0', '--trust', 'k']"
    run = f"from skillreel.cli.main import main\nmain({args})"
    proc = subprocess.run([sys.executable, "-c", blocked + run], capture_output=True, text=True, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "SR_REPLAY_FLEET_UNAVAILABLE" in proc.stderr
    assert "skillreel[fleet]" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_worker_whose_broker_does_not_answer_stops_with_a_clear_code(tmp_path: Path) -> None:
    _, public = factory.write_keys(tmp_path)
    result = run_cli("worker", "--broker", closed_broker(), "--trust", str(public))
    assert result.exit_code == 1
    assert "SR_REPLAY_FLEET_BROKER_UNREACHABLE" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_unreachable_broker_runs_and_records_nothing(batch: tuple[Path, Path]) -> None:
    stored()
    rows, key = batch
    result = run_cli(
        "replay", NAME, "--batch", str(rows), "--broker", closed_broker(), "--sign", str(key), "--json"
    )
    assert (result.exit_code, result.json()["error"]["code"]) == (1, "SR_REPLAY_FLEET_BROKER_UNREACHABLE")
    nothing_recorded()


@pytest.mark.parametrize(
    ("extra", "code"),
    [
        (["--broker", "redis://127.0.0.1:1/0"], "SR_RECORD_USAGE"),  # no --sign
        (["--sign", "KEY"], "SR_RECORD_USAGE"),  # --sign without --broker
        (["--broker", "http://127.0.0.1:1/0", "--sign", "KEY"], "SR_RECORD_USAGE"),  # not redis://
        # a password in the query was echoed in messages, then broke kombu (SR_RECORD_INTERNAL)
        (["--broker", "redis://127.0.0.1:1/0?password=Hunter2pw", "--sign", "KEY"], "SR_RECORD_USAGE"),
    ],
)
def test_fleet_options_are_checked_first(batch: tuple[Path, Path], extra: list[str], code: str) -> None:
    stored()
    rows, key = batch
    args = [str(key) if a == "KEY" else a for a in extra]
    result = run_cli("replay", NAME, "--batch", str(rows), *args, "--json")
    assert (result.exit_code, result.json()["error"]["code"]) == (2, code)
    assert "Hunter2pw" not in result.stdout + result.stderr
    nothing_recorded()


@pytest.mark.parametrize(
    ("status", "url", "code"),
    [
        ("approved", True, "SR_REPLAY_FLEET_NOT_VALIDATED"),
        ("validated", False, "SR_REPLAY_FLEET_TARGET_UNSUPPORTED"),
    ],
)
def test_a_skill_a_fleet_may_not_run_is_refused_before_the_broker(
    batch: tuple[Path, Path], status: str, url: bool, code: str
) -> None:
    stored(status, url=url)
    rows, key = batch
    result = run_cli(
        "replay", NAME, "--batch", str(rows), "--broker", closed_broker(), "--sign", str(key), "--json"
    )
    assert result.json()["error"]["code"] == code  # not the unreachable broker: nothing was contacted
    nothing_recorded()
