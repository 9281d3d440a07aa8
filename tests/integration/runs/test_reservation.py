"""A run is recorded before the browser acts (issue 11, item 2): when the store cannot take the
reservation (locked past the timeout, the disk full, the audit log or the store at its limit), the
replay is refused before any browser starts and the page sees nothing; a run whose final write fails
still reports what really happened. And failure reports tell the truth (issue 10, item 3): every step
that ran, whether it acted, and a fix line that does not blame the page."""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillreel.errors import StoreError
from skillreel.model.policy import Policy, PolicySettings
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import AuditNote, Store
from tests.integration.runs.counting import NAME, WITHOUT_QUANTITY, acted, counting_skill
from tests.support.cli import CliResult, run_cli
from tests.support.factory import record_run
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

REPLAY = ("replay", NAME, "--input", "qty=3", "--timeout", "30000")


def page_loads(server: LocalServer) -> int:
    return server.count("GET", "/orders")


def refused_before_acting(result: CliResult, server: LocalServer, code: str) -> dict[str, object]:
    """The replay failed with ``code``, no run was reserved, no step ran, no browser loaded the page."""
    envelope = result.json()
    assert (result.exit_code, envelope["error"]["code"]) == (1, code), result.stdout + result.stderr
    data = envelope["data"]
    assert (data["status"], data["runId"], data["steps"], data["sideEffects"]) == ("failed", None, [], False)
    assert (acted(server), page_loads(server)) == (0, 0)
    assert "Traceback" not in result.stderr
    return dict(data)


def replay(home: Path, *extra: str, env: dict[str, str] | None = None) -> CliResult:
    return run_cli(*REPLAY, *extra, "--json", env={"SKILLREEL_HOME": str(home), **(env or {})})


def fresh(server: LocalServer) -> None:
    """Forget what describing the page did to the server: from here on it counts the replays."""
    server.requests.clear()


async def test_a_store_locked_past_the_timeout_refuses_the_replay_before_any_browser(
    server: LocalServer, skillreel_home: Path
) -> None:
    await counting_skill(server)
    fresh(server)
    holder = sqlite3.connect(skillreel_home / "store.db", isolation_level=None, timeout=0)
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock for the whole replay
    try:
        result = replay(skillreel_home, env={"SKILLREEL_STORE_TIMEOUT": "0.5"})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    refused_before_acting(result, server, "SR_RECORD_STORE_BUSY")
    with Store.open() as store:
        assert store.run_count() == 0
    ok = replay(skillreel_home)  # the same replay once the lock is gone: it acts, so the page counts
    assert ok.exit_code == 0, ok.stdout + ok.stderr
    assert acted(server) == 1


async def test_an_audit_log_at_its_limit_refuses_the_replay_before_any_browser(
    server: LocalServer, skillreel_home: Path
) -> None:
    await counting_skill(server)
    fresh(server)
    with Store.open() as store:
        store.set_policy(Policy.from_settings(PolicySettings(max_audit_events=100)))
        failed = AuditNote(kind="replay-refused", outcome="failed", code="SR_REPLAY_PARAMETER_UNKNOWN")
        store.audit_many([failed] * (95 - store.audit_count()))
        count = store.audit_count()
    refused_before_acting(replay(skillreel_home), server, "SR_RECORD_STORE_LIMIT")
    with Store.open() as store:
        assert (store.run_count(), store.audit_count()) == (0, count)
        assert store.verify_audit().ok


async def test_a_store_at_its_size_limit_refuses_new_runs_before_acting(
    server: LocalServer, skillreel_home: Path, project_dir: Path
) -> None:
    await counting_skill(server, project_dir=project_dir)  # enabled: prune never removes the skill
    fresh(server)
    bound = 256 * 1024
    with Store.open() as store:
        store.set_policy(Policy.from_settings(PolicySettings(max_store_bytes=bound)))
        with pytest.raises(StoreError) as full:  # noqa: PT012 - runs until the bound refuses one
            for _ in range(1000):
                record_run(store, NAME)
        assert full.value.code == "SR_RECORD_STORE_LIMIT"
        runs = store.run_count()
    data = refused_before_acting(replay(skillreel_home), server, "SR_RECORD_STORE_LIMIT")
    assert data["revision"] == 4
    listed = run_cli("list", "--json", env={"SKILLREEL_HOME": str(skillreel_home)}).data()
    shown = run_cli("show", NAME, "--json", env={"SKILLREEL_HOME": str(skillreel_home)}).data()
    for size in (listed["store"], shown["store"]):
        assert size["limitBytes"] == bound
        assert size["bytes"] > bound * 7 // 8
    assert shown["runCount"] == runs
    assert len(shown["lastRuns"]) == 5
    pruned = run_cli("prune", "--approve", "--json", env={"SKILLREEL_HOME": str(skillreel_home)})
    assert pruned.exit_code == 0, pruned.stdout  # nothing is old, but the store is over 3/4 of its bound
    assert pruned.data()["trimmed"]["runs"] > 0
    again = replay(skillreel_home)
    assert again.exit_code == 0, again.stdout + again.stderr
    assert acted(server) == 1


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MiB tmpfs (only root can mount one; otherwise the test is skipped and the injected failure
    below covers the same path)."""
    mount = tmp_path / "small-disk"
    mount.mkdir(mode=0o700)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path, leave: int) -> None:
    """Fill ``disk`` to the last block, then free ``leave`` bytes."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        for size in (65536, 4096):
            while _wrote(fd, size):
                pass
    finally:
        os.close(fd)
    os.truncate(filler, filler.stat().st_size - leave)


def _wrote(fd: int, size: int) -> bool:
    try:
        return os.write(fd, b"\0" * size) == size
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        return False


async def test_a_full_disk_refuses_the_replay_before_any_browser(
    server: LocalServer, small_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = small_disk / "home"
    monkeypatch.setenv("SKILLREEL_HOME", str(home))
    await counting_skill(server)
    fresh(server)
    fill(small_disk, leave=40 * 1024)  # room for the store's shared-memory index, not for a write
    result = replay(home)
    refused_before_acting(result, server, "SR_RECORD_STORE_IO")
    assert "reserving a run: the disk is full" in result.json()["error"]["message"]
    (small_disk / "filler").unlink()
    with Store.open(home) as store:
        assert store.run_count() == 0
        assert store.verify_audit().ok


async def test_a_reservation_that_cannot_be_written_refuses_the_replay(
    server: LocalServer, skillreel_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same refusal through a write failure injected at the store layer (no root needed)."""
    await counting_skill(server)
    fresh(server)

    def disk_full(self: Store, run: object) -> None:
        raise StoreError("SR_RECORD_STORE_IO", "reserving a run: the disk is full")

    monkeypatch.setattr(Store, "reserve_run", disk_full)
    with Store.open() as store:
        outcome = await replay_skill(store, ReplayRequest(name=NAME, inputs={"qty": "3"}))
    assert outcome.error is not None
    assert (outcome.status, outcome.error.code, outcome.run_id, outcome.steps) == (
        "failed",
        "SR_RECORD_STORE_IO",
        None,
        (),
    )
    assert (acted(server), page_loads(server)) == (0, 0)


async def test_a_run_whose_end_cannot_be_written_still_reports_its_success(
    server: LocalServer, skillreel_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await counting_skill(server)

    def disk_full(self: Store, run: object, **_: object) -> None:
        raise StoreError("SR_RECORD_STORE_IO", "recording a run: the disk is full")

    monkeypatch.setattr(Store, "finish_run", disk_full)
    with Store.open() as store:
        outcome = await replay_skill(store, ReplayRequest(name=NAME, inputs={"qty": "3"}))
        (view,) = store.runs(NAME)
    assert (outcome.status, outcome.error, outcome.recorded) == ("succeeded", None, False)
    assert [w.code for w in outcome.warnings] == ["SR_RECORD_RUN_UNRECORDED"]
    assert "succeeded" in outcome.warnings[0].message
    assert acted(server) == 1
    assert (view.record.run_id, view.outcome) == (outcome.run_id, "started")  # its process is still here


async def test_a_failure_after_an_acting_step_says_a_retry_may_repeat_work(
    server: LocalServer, skillreel_home: Path
) -> None:
    await counting_skill(server)
    server.set_route("/act", status=500, body=b"no")  # the order is taken, then the page says it failed
    with Store.open() as store:
        outcome = await replay_skill(store, ReplayRequest(name=NAME, inputs={"qty": "3"}, timeout_ms=3_000))
        (view,) = store.runs(NAME)
    assert outcome.error is not None
    assert outcome.error.code == "SR_REPLAY_UI_ASSERTION_FAILED"
    data = outcome.to_json()
    assert [(s["actionId"], s["status"], s["sideEffects"]) for s in data["steps"]] == [
        ("a1", "done", False),
        ("a2", "done", True),
        ("a3", "done", True),
        ("a4", "failed", False),
    ]
    assert (data["status"], data["sideEffects"], data["recorded"]) == ("failed", True, True)
    assert acted(server) == 1
    shown = view.to_json()
    assert (
        shown["outcome"],
        shown["code"],
        shown["stepsRun"],
        shown["stepsActed"],
        shown["sideEffects"],
    ) == (
        "failed",
        "SR_REPLAY_UI_ASSERTION_FAILED",
        4,
        2,
        True,
    )


async def test_a_target_missing_before_any_acting_step_says_nothing_was_done(
    server: LocalServer, skillreel_home: Path
) -> None:
    await counting_skill(server)
    server.set_page("/orders", WITHOUT_QUANTITY)
    with Store.open() as store:
        outcome = await replay_skill(
            store, ReplayRequest(name=NAME, inputs={"qty": "3"}, heal=False, timeout_ms=5_000)
        )
    assert outcome.error is not None
    error = outcome.error.to_json()
    assert (error["code"], error["actionId"]) == ("SR_REPLAY_UI_TARGET_NOT_FOUND", "a2")
    assert "changed too much" not in error["fix"]  # a locator problem is not blamed on the page
    assert "locator" in error["fix"]
    data = outcome.to_json()
    assert [(s["actionId"], s["status"], s["sideEffects"]) for s in data["steps"]] == [
        ("a1", "done", False),
        ("a2", "failed", False),
    ]
    assert data["sideEffects"] is False
    assert acted(server) == 0
