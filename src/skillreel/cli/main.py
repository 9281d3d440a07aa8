"""The ``skillreel`` console script: a lazy click group, one module per verb, one error boundary.

Verb modules are imported only when their verb runs, so ``skillreel --help`` and ``skillreel list``
start fast (Playwright, rich and the MCP SDK load only where needed). Every error becomes an
``SR_*`` code with exit status 1 or 2; with ``--json`` the error is the one JSON document on stdout.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from ..errors import SkillreelError
from .output import emit_error

# verb -> module under skillreel.cli that defines ``command`` (a click.Command)
VERBS: dict[str, str] = {
    "record": "record",
    "list": "list_",
    "show": "show",
    "review": "review",
    "replay": "replay",
    "enable": "enable",
    "revoke": "revoke",
    "export": "export",
    "import": "import_",
    "delete": "delete",
    "audit": "audit",
    "prune": "prune",
    "policy": "policy",
    "policy-template": "policy_template",
    "mcp": "mcp",
    "demo": "demo",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(VERBS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module_name = VERBS.get(cmd_name)
        if module_name is None:
            return None
        module = importlib.import_module(f"skillreel.cli.{module_name}")
        command: click.Command = module.command
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="skillreel")
def cli() -> None:
    """Record a web task once, review it, replay it deterministically, install it as a skill."""


def main(argv: list[str] | None = None) -> Any:
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args
    try:
        cli.main(args=args, prog_name="skillreel", standalone_mode=False)
    except SkillreelError as exc:
        emit_error(exc, as_json=as_json)
        sys.exit(exc.exit_status)
    except click.exceptions.Abort:
        emit_error(SkillreelError("SR_RECORD_USAGE", "aborted"), as_json=as_json)
        sys.exit(2)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        emit_error(SkillreelError("SR_RECORD_USAGE", exc.format_message()), as_json=as_json)
        sys.exit(2)
    except KeyboardInterrupt:
        emit_error(SkillreelError("SR_RECORD_USAGE", "interrupted; nothing was changed"), as_json=as_json)
        sys.exit(1)
    except Exception as exc:  # the last line of defence: no traceback reaches a user
        emit_error(SkillreelError("SR_RECORD_INTERNAL", f"unexpected {type(exc).__name__}"), as_json=as_json)
        sys.exit(1)
    sys.exit(0)
