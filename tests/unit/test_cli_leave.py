"""``cli.main.leave``: the end of a ``skillreel`` process without the interpreter's teardown, but
with everything an exit does before it (exit handlers, flushed streams, waiting for threads)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path


def run_python(
    code: str, *, stdout: int = subprocess.PIPE, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_exit_handlers_run_and_the_streams_are_flushed() -> None:
    done = run_python(
        """
        import atexit, sys
        from skillreel.cli.main import leave
        atexit.register(lambda: sys.stdout.write(" handler"))
        sys.stdout.write("buffered")
        sys.stderr.write("err")
        leave(3)
        """
    )
    assert done.returncode == 3
    assert done.stdout == "buffered handler"
    assert done.stderr == "err"


def test_codes_as_sys_exit_takes_them() -> None:
    assert run_python("from skillreel.cli.main import leave; leave(None)").returncode == 0
    assert run_python("from skillreel.cli.main import leave; leave(2)").returncode == 2
    text = run_python("from skillreel.cli.main import leave; leave('went wrong')")
    assert (text.returncode, text.stderr) == (1, "went wrong\n")


def test_a_thread_still_running_is_waited_for(tmp_path: Path) -> None:
    marker = tmp_path / "written"
    done = run_python(
        f"""
        import threading, time
        from pathlib import Path
        from skillreel.cli.main import leave
        def late():
            time.sleep(0.3)
            Path({str(marker)!r}).write_text("done")
        threading.Thread(target=late).start()
        leave(4)
        """
    )
    assert done.returncode == 4
    assert marker.read_text() == "done"


def test_a_temporary_folder_left_to_its_finalizer_is_removed() -> None:
    done = run_python(
        """
        import tempfile
        from skillreel.cli.main import leave
        kept = tempfile.TemporaryDirectory()
        print(kept.name)
        leave(0)
        """
    )
    assert done.returncode == 0
    assert not Path(done.stdout.strip()).exists()


def test_stdout_that_cannot_be_flushed_gives_status_120() -> None:
    read, write = os.pipe()
    os.close(read)  # nobody reads: the flush fails with a broken pipe
    try:
        done = run_python(
            """
            import sys
            from skillreel.cli.main import leave
            sys.stdout.write("x" * 10)
            leave(0)
            """,
            stdout=write,
            env={
                k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"
            },  # buffered: fails at the flush
        )
    finally:
        os.close(write)
    assert done.returncode == 120


def test_the_console_script_and_python_m_end_through_it() -> None:
    from skillreel.cli import main as cli_main

    main_py = Path(cli_main.__file__).parent.parent / "__main__.py"
    assert "run()" in main_py.read_text()
    done = subprocess.run(
        [sys.executable, "-m", "skillreel", "no-such-verb", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert '"SR_RECORD_USAGE"' in done.stdout
