"""A small subset of the real-app corpus, run by ``make test``: Flask-Admin at both versions, two
tasks, both tools, on real servers and real Chromium. It checks the corpus's first rule (no run
ends in a wrong database state, for either tool) and the harness itself (the baseline completes
on the version it was recorded on; a reset puts the seed back). The whole corpus with its table
is ``make realworld``.

The app venvs are built from PyPI into the corpus cache on first use (``make test`` builds them
before pytest runs: ``python -m bench.realworld --install-only --app flask-admin``).
"""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import pytest
from bench.realworld.corpus import APPS
from bench.realworld.dbcheck import RIGHT, WRONG, snapshot
from bench.realworld.envs import AppServer, Installed, free_port
from bench.realworld.run import Result, Selection

from tests.realworld import subset

pytestmark = [pytest.mark.realworld, pytest.mark.browser, pytest.mark.slow]

APP = next(a for a in APPS if a.name == "flask-admin")
TASKS = ("create-customer", "edit-customer")

installed, results = subset.fixtures(APP, Selection(apps=(APP.name,), tasks=TASKS))


def test_every_task_ran_on_every_version_with_both_tools(results: list[Result]) -> None:
    assert sorted((r.task, r.version, r.tool) for r in results) == sorted(
        (t, v.label, tool) for t in TASKS for v in APP.versions for tool in ("skillreel", "codegen")
    )


def test_no_run_leaves_a_wrong_database(results: list[Result]) -> None:
    wrong = [r for r in results if r.verdict == WRONG]
    assert not wrong, wrong


def test_the_baseline_completes_where_it_was_recorded(results: list[Result]) -> None:
    oldest = APP.versions[0].label
    runs = [r for r in results if r.tool == "codegen" and r.version == oldest]
    assert runs
    assert all(r.verdict == RIGHT for r in runs), runs


def test_a_reset_puts_the_seed_back(installed: list[Installed], tmp_path: Path) -> None:
    server = AppServer(installed[-1], free_port(), tmp_path / "server")
    server.reset()
    seed = snapshot(server.db, APP, [])
    con = sqlite3.connect(server.db)
    con.execute("DELETE FROM customer")
    con.commit()
    con.close()
    assert snapshot(server.db, APP, []) != seed
    with server:
        assert snapshot(server.db, APP, []) == seed


class _Waits(AppServer):
    """Counts the waits for a busy port; the first one lets the port go when asked to."""

    def __init__(self, *args: object, held: socket.socket, release: bool) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.held, self.release, self.waits = held, release, 0

    def wait_for_port(self, seconds: float) -> None:
        self.waits += 1
        if self.release:
            self.held.close()


@pytest.mark.parametrize("release", [True, False])
def test_a_port_held_by_another_process_is_waited_out_then_named(
    installed: list[Installed], tmp_path: Path, release: bool
) -> None:
    """The corpus keeps one port per app (recordings bind their origin): a port somebody holds for a
    moment is waited out; one held for good fails with the app's own words, not "exited at start"
    with an older run's log."""
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    server = _Waits(installed[-1], held.getsockname()[1], tmp_path / "server", held=held, release=release)
    server.reset()
    try:
        if release:
            with server:
                pass
            assert server.waits == 1
        else:
            with pytest.raises(RuntimeError, match="in use"):
                server.start()
            assert server.waits == 5
    finally:
        held.close()
        server.stop()
