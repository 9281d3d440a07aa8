"""The ``skillreel`` console script: a lazy click group, one module per verb, one error boundary.

Verb modules are imported only when their verb runs, so ``skillreel --help`` and ``skillreel list``
start fast (Playwright, rich and the MCP SDK load only where needed). Every error becomes an
``SR_*`` code with exit status 1 or 2; with ``--json`` the error is the one JSON document on stdout,
the same result envelope a success prints (``model/envelope.py``), naming the verb it was meant for.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import os
import sys
import threading
from typing import NoReturn

import click

from ..errors import SkillreelError
from .output import emit_failure

# verb -> (module under skillreel.cli that defines ``command``, one-line help shown by --help)
VERBS: dict[str, tuple[str, str]] = {
    "record": ("record", "Record a skill from a demonstration in Chromium."),
    "list": ("list_", "List skills with their state and revision."),
    "show": ("show", "Show one skill: actions, parameters, digests, installation."),
    "edit": ("edit", "Make a new draft revision from structured, reviewed edits."),
    "review": ("review", "Approve one exact draft revision (or a heal proposal)."),
    "diff": ("diff", "Show what changed between two drafts of a skill, step by step."),
    "replay": ("replay", "Replay an approved skill in Chromium with new inputs."),
    "runs": ("runs", "List a skill's replay runs, newest first."),
    "show-trace": ("show_trace", "Open a replay's trace (replay --artifacts) in Playwright's viewer."),
    "enable": ("enable", "Install a validated skill as an Agent Skills package."),
    "revoke": ("revoke", "Remove an enabled skill's packages, transactionally."),
    "export": ("export", "Write one skill with every document to a JSON file."),
    "import": ("import_", "Read an exported skill, re-validating everything."),
    "rollback": ("rollback", "Make a new draft from an older revision (it needs a new review)."),
    "delete": ("delete", "Delete a skill that is not enabled."),
    "audit": ("audit", "Show the audit events, or verify their hash chain."),
    "prune": ("prune", "Delete skills past the retention period."),
    "policy": ("policy", "Show or set the store policy."),
    "policy-template": ("policy_template", "Print a policy file to edit."),
    "login": ("login", "Keep signed-in browser states (logins) in the vault."),
    "env": ("env", "Declare the other origins a skill may replay on."),
    "mcp": ("mcp", "Serve enabled skills over MCP (stdio)."),
    "ui": ("ui", "Serve the local review page on 127.0.0.1."),
    "worker": ("worker", "Run a fleet worker: replay signed skill bundles from a Redis broker."),
    "demo": ("demo", "Run the whole journey on a bundled example app."),
}

# an old verb -> the verb it now is: kept working for one version, not listed by --help or completion
ALIASES: dict[str, str] = {"session": "login"}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(VERBS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        verb = ALIASES.get(cmd_name, cmd_name)
        if verb not in VERBS:
            return None
        module = importlib.import_module(f"skillreel.cli.{VERBS[verb][0]}")
        command: click.Command = module.command
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List verbs from the static table, so --help imports no verb module."""
        with formatter.section("Commands"):
            formatter.write_dl([(name, VERBS[name][1]) for name in self.list_commands(ctx)])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="skillreel")
def cli() -> None:
    """Record a web task once, review it, replay it deterministically, install it as a skill."""


def command_of(args: list[str]) -> str | None:
    """The verb the arguments name (``policy set`` for a subcommand), or None: the ``command`` of an
    error's envelope. The group takes no option with a value, so the first word is the verb."""
    words = [a for a in args if not a.startswith("-")]
    if not words or (words[0] not in VERBS and words[0] not in ALIASES):
        return None
    try:
        command = cli.get_command(click.Context(cli), words[0])
    except Exception:  # the verb's module failed to import: still name the verb
        return words[0]
    if isinstance(command, click.Group) and len(words) > 1 and words[1] in command.commands:
        return f"{words[0]} {words[1]}"
    return words[0]


def main(argv: list[str] | None = None) -> NoReturn:
    # No third-party pydantic plugin observes skillreel's validation (documents may carry inputs),
    # and none is looked for: discovering them scans every installed package's metadata (~50 ms).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args

    def fail(error: SkillreelError, status: int) -> None:
        emit_failure(error, as_json=as_json, command=command_of(args))
        sys.exit(status)

    try:
        cli.main(args=args, prog_name="skillreel", standalone_mode=False)
    except SkillreelError as exc:
        fail(exc, exc.exit_status)
    except click.exceptions.Abort:
        fail(SkillreelError("SR_RECORD_USAGE", "aborted"), 2)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        fail(SkillreelError("SR_RECORD_USAGE", exc.format_message()), 2)
    except KeyboardInterrupt:
        fail(SkillreelError("SR_RECORD_USAGE", "interrupted; nothing was changed"), 1)
    except Exception as exc:  # the last line of defence: no traceback reaches a user
        fail(SkillreelError("SR_RECORD_INTERNAL", f"unexpected {type(exc).__name__}"), 1)
    sys.exit(0)


def run() -> NoReturn:
    """The console script and ``python -m skillreel``: :func:`main`, then :func:`leave`."""
    try:
        main()
    except SystemExit as ended:
        leave(ended.code)


def leave(code: object) -> NoReturn:
    """End the process with a ``SystemExit``'s code, without the interpreter's teardown.

    After a replay that teardown takes ~0.15 s (freeing Playwright's, pydantic's and every other
    module's objects one by one) and nothing needs it: every file, the store and the browser are
    closed by then. What an exit does before it still happens: the exit handlers run (temporary
    folders, logging), the standard streams are flushed (a failed flush of stdout gives status 120,
    as Python's). With a thread still running, the usual exit (it waits for the thread)."""
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.exit(code)  # type: ignore[arg-type]
    status = exit_status(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        status = status or 120
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(status)


def exit_status(code: object) -> int:
    """The process's status for a ``SystemExit``'s code, as the interpreter makes it: None is 0, an
    int its low byte, anything else is written to stderr and is 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    sys.stderr.write(f"{code}\n")
    return 1
