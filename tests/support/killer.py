"""Run one enable or revoke in a process of its own and SIGKILL that process at a named step: a
real ``kill -9`` in the middle of a package transaction, for the convergence tests.

    python -m tests.support.killer enable|revoke NAME PROJECT_DIR STEP      (SKILLREEL_HOME from the env)

The step names are those the use cases pass to their ``fault`` hook. Exit status 3 means the step
was never reached (the test then fails: it meant to kill there)."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from skillreel.services.packaging import enable_skill, revoke_skill
from skillreel.store import Store
from tests.support.cli import run_cli

NOT_REACHED = 3


def kill_at(step: str) -> Callable[[str], None]:
    def fault(current: str) -> None:
        if current == step:
            os.kill(os.getpid(), signal.SIGKILL)

    return fault


def killed(home: Path, operation: str, name: str, project_dir: Path, step: str) -> None:
    """Run the transaction in a process of its own (a fork of the tests' pre-imported interpreter,
    ``tests.support.cli.run_cli``) and check that it died by SIGKILL at ``step``."""
    ran = run_cli(
        operation,
        name,
        str(project_dir),
        step,
        module="tests.support.killer",
        env={"SKILLREEL_HOME": str(home)},
        timeout=300,
    )
    assert ran.exit_code == -signal.SIGKILL, (step, ran.exit_code, ran.stderr)


def main(argv: list[str]) -> int:
    operation, name, project, step = argv
    fault = kill_at(step)
    with Store.open() as store:
        if operation == "enable":
            enable_skill(
                store,
                name,
                "project",
                Path(project),
                approve=True,
                expected_revision=store.get(name).revision,
                fault=fault,
            )
        else:
            revoke_skill(store, name, approve=True, expected_revision=store.get(name).revision, fault=fault)
    return NOT_REACHED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
