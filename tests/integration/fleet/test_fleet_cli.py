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


# --- F7 (issue 30): the broker's password never needs the command line; keys others can read ------

PASSWORD = "Hunter2-broker-pw"


@pytest.fixture
def password_url(batch: tuple[Path, Path]) -> str:
    """A stored skill, and a broker URL with a password where nothing listens."""
    stored()
    return f"redis://:{PASSWORD}@127.0.0.1:{free_port()}/0"


@pytest.fixture
def public(tmp_path: Path) -> Path:
    return factory.write_keys(tmp_path, "worker-trust")[1]


def test_a_broker_password_on_the_command_line_is_refused_for_the_worker_and_the_coordinator(
    batch: tuple[Path, Path], password_url: str, public: Path
) -> None:
    """On main both took ``redis://:PASSWORD@HOST`` on argv, where ``ps`` shows it to every user."""
    rows, key = batch
    url = password_url
    worker = run_cli("worker", "--broker", url, "--trust", str(public), "--json")
    coordinator = run_cli("replay", NAME, "--batch", str(rows), "--broker", url, "--sign", str(key), "--json")
    for result in (worker, coordinator):
        assert (result.exit_code, result.json()["error"]["code"]) == (
            2,
            "SR_REPLAY_FLEET_BROKER_PASSWORD_ON_ARGV",
        )
        assert "SKILLREEL_BROKER_URL" in result.stdout
        assert PASSWORD not in result.stdout + result.stderr
    nothing_recorded()


def test_the_broker_url_comes_from_the_environment_or_an_owner_only_file(
    batch: tuple[Path, Path], tmp_path: Path, password_url: str, public: Path
) -> None:
    """Read from where it was put (the closed port answers nothing: the URL was used), never echoed."""
    rows, key = batch
    url = password_url
    url_file = tmp_path / "broker-url"
    url_file.write_text(url + "\n", encoding="utf-8")
    url_file.chmod(0o600)
    runs = [
        run_cli("worker", "--trust", str(public), "--json", env={"SKILLREEL_BROKER_URL": url}),
        run_cli("worker", "--broker-url-file", str(url_file), "--trust", str(public), "--json"),
        run_cli(
            "replay",
            NAME,
            "--batch",
            str(rows),
            "--sign",
            str(key),
            "--json",
            env={"SKILLREEL_BROKER_URL": url},
        ),
        run_cli(
            "replay",
            NAME,
            "--batch",
            str(rows),
            "--broker-url-file",
            str(url_file),
            "--sign",
            str(key),
            "--json",
        ),
    ]
    for result in runs:
        assert (result.exit_code, result.json()["error"]["code"]) == (1, "SR_REPLAY_FLEET_BROKER_UNREACHABLE")
        assert PASSWORD not in result.stdout + result.stderr
    url_file.chmod(0o644)
    exposed = run_cli("worker", "--broker-url-file", str(url_file), "--trust", str(public), "--json")
    assert (exposed.exit_code, exposed.json()["error"]["code"]) == (2, "SR_RECORD_SECRET_FILE_EXPOSED")
    nowhere = run_cli("worker", "--trust", str(public), "--json", env={"SKILLREEL_BROKER_URL": ""})
    assert (nowhere.exit_code, nowhere.json()["error"]["code"]) == (2, "SR_RECORD_USAGE")
    nothing_recorded()


def test_a_signing_key_others_can_read_is_refused_before_the_broker(batch: tuple[Path, Path]) -> None:
    """On main a 0644 key signed the bundle silently."""
    stored()
    rows, key = batch
    key.chmod(0o644)
    result = run_cli(
        "replay", NAME, "--batch", str(rows), "--broker", closed_broker(), "--sign", str(key), "--json"
    )
    assert (result.exit_code, result.json()["error"]["code"]) == (2, "SR_RECORD_SECRET_FILE_EXPOSED")
    nothing_recorded()


def test_the_fleet_options_go_with_a_batch(tmp_path: Path) -> None:
    stored()
    for extra in (["--heartbeat", "5"], ["--task-expires", "5"], ["--broker-url-file", str(tmp_path / "u")]):
        result = run_cli("replay", NAME, *extra, "--json")
        assert (result.exit_code, result.json()["error"]["code"]) == (2, "SR_RECORD_USAGE")
