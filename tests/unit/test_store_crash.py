"""Crash safety: a writer killed with SIGKILL at random moments never leaves a half-written change.

A forked writer loops through insert -> review -> replay -> delete on a few skills as fast as it
can; the test kills it 30 times at random moments (seeded, so a failure can be replayed) and after
each kill checks that the store opens, its audit chain verifies, SQLite's own integrity check
passes, and every entry agrees with its history and its audit events (an entry row, its history
row and its audit event are written together or not at all).
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from skillreel.model import lifecycle
from skillreel.store import AuditNote, Store
from tests.support import factory
from tests.support.factory import report_for

KILLS = 30
NAMES = [f"crash-{i}" for i in range(4)]


def _writer(home: str, ready: Any, done: Any) -> None:  # runs in the forked child until it is killed
    with Store.open(Path(home)) as store:
        ready.set()
        i = 0
        while True:
            name = NAMES[i % len(NAMES)]
            entry, now = store.find(name), factory.T0
            if entry is None:
                store.insert(factory.entry(name), AuditNote(kind="record"))
            elif entry.status == "draft":
                store.update(
                    name,
                    lambda e: lifecycle.approve(e, "alice", now),
                    AuditNote(kind="review"),
                    expected_revision=entry.revision,
                )
            elif entry.status == "approved":
                store.update(
                    name,
                    lambda e: lifecycle.validate(e, report_for(e, now), now),
                    AuditNote(kind="validate"),
                    expected_revision=entry.revision,
                )
            else:
                store.remove(name, AuditNote(kind="delete"), expected_revision=entry.revision)
            i += 1
            with done.get_lock():
                done.value = i  # a signal, not a guess: the parent kills only after real progress


def _check(home: Path) -> int:
    with Store.open(home) as store:
        verification = store.verify_audit()
        assert verification.ok, verification
        for entry in store.entries():  # every current document re-validates
            history = store.revisions(entry.name)
            assert [r.revision for r in history] == list(range(1, entry.revision + 1))
            assert history[-1].entry_digest == entry.entry_digest
            events = store.audit_events(entry.name)
            since = max(i for i, e in enumerate(events) if e.kind == "record")
            assert [e.digests["entry"] for e in events[since:]] == [r.entry_digest for r in history]
        total = store.audit_count()
    with sqlite3.connect(home / "store.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    return total


def wait_for_commits(done: Any, count: int) -> None:
    """Until the writer has committed ``count`` changes (however slow the machine is)."""
    deadline = time.monotonic() + 120
    while done.value < count:
        assert time.monotonic() < deadline, "the writer made no progress in two minutes"
        time.sleep(0.002)


@pytest.mark.slow  # thirty writers killed
def test_sigkill_at_random_moments_never_half_writes(skillreel_home: Path) -> None:
    Store.open(skillreel_home).close()
    ctx = multiprocessing.get_context("fork")
    rng = random.Random(0x5EED)
    progress = []
    for _ in range(KILLS):
        ready, done = ctx.Event(), ctx.Value("i", 0)
        child = ctx.Process(target=_writer, args=(str(skillreel_home), ready, done), daemon=True)
        child.start()
        assert ready.wait(60), "the writer did not start"
        wait_for_commits(done, rng.randint(1, 6))
        time.sleep(rng.uniform(0.0, 0.01))  # then somewhere inside a later transaction
        assert child.pid is not None
        os.kill(child.pid, signal.SIGKILL)
        child.join(30)
        assert child.exitcode == -signal.SIGKILL
        progress.append(_check(skillreel_home))
    assert progress[-1] > progress[0] > 0  # the writer really wrote between kills
