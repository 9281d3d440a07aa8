"""A reader that closes the output early (`skillreel replay NAME | head -1`) never turns a replay into
an internal error (issue 33, point 8): the run goes on to its end, `runs` shows its true outcome and
the process exits with the replay's own status.

The page's ``/act`` request is held by the server until the test has closed its end of the pipe, so
the replay writes to a pipe nobody reads for sure, whatever the machine's load."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from tests.integration.runs.counting import NAME, acted, cli_env, counting_skill
from tests.support.cli import cli_command, run_cli
from tests.support.server import Gate, LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIGNAL_WAIT_S = 180  # a bound on waiting for a signal on a loaded machine, never a guess at timing


async def reached(gate: Gate) -> None:
    assert await asyncio.to_thread(gate.reached.wait, SIGNAL_WAIT_S), "the replay never placed the order"


def start_replay(home: Path, *args: str, stderr: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        # fresh: the test's subject is this process's own standard streams
        cli_command("replay", NAME, "--input", "qty=1", "--timeout", "30000", *args, fresh=True),
        env=cli_env(home),
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )


def last_run(home: Path) -> dict[str, object]:
    page = run_cli("runs", NAME, "--json", env={"SKILLREEL_HOME": str(home)}).data()
    (run,) = page["runs"]
    return dict(run)


async def test_progress_cut_after_its_first_line_leaves_the_run_to_succeed(
    server: LocalServer, skillreel_home: Path
) -> None:
    await counting_skill(server)
    gate = server.hold("/act")
    # progress into the pipe, as `skillreel replay NAME 2>&1 | head -1`
    with start_replay(skillreel_home, stderr=subprocess.STDOUT) as proc:
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()
            assert first.startswith("[1/4] a1 navigate: ok"), first
            await reached(gate)  # the replay is at step a3; its progress lines are still to come
            proc.stdout.close()  # the reader goes away: `head -1` has its line
        finally:
            gate.release()
        status = proc.wait(SIGNAL_WAIT_S)
    run = last_run(skillreel_home)
    assert (run["outcome"], run["code"], status) == ("succeeded", None, 0)
    assert acted(server) == 1


async def test_a_json_result_nobody_reads_leaves_the_run_recorded_as_it_ended(
    server: LocalServer, skillreel_home: Path
) -> None:
    await counting_skill(server)
    gate = server.hold("/act")
    with start_replay(skillreel_home, "--json", stderr=subprocess.PIPE) as proc:
        try:
            await reached(gate)
            assert proc.stdout is not None
            proc.stdout.close()  # nobody will read the envelope
        finally:
            gate.release()
        assert proc.stderr is not None
        errors = proc.stderr.read()
        status = proc.wait(SIGNAL_WAIT_S)
    run = last_run(skillreel_home)
    assert (run["outcome"], run["code"], status) == ("succeeded", None, 0), errors
    assert "Traceback" not in errors
    assert "SR_RECORD_INTERNAL" not in errors
