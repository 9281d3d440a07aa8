"""Rendering for the CLI: human text on a terminal, or exactly one JSON document with ``--json``.

Verbs call :func:`emit` with their result data and a short human rendering. Errors go through
:func:`emit_error` only (from ``cli.main``). Rich is imported lazily.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ..errors import SkillreelError

if TYPE_CHECKING:
    from rich.console import Console

F = TypeVar("F", bound=Callable[..., Any])
Render = Callable[["Console"], None]
"""A human rendering: prints a result on the console it is given."""


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")(func)


def approve_option(func: F) -> F:
    return click.option("--approve", is_flag=True,
                        help="Carry out the change (without it, say what would change and change nothing)."
                        )(func)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, sort_keys=False, indent=2) + "\n")
    sys.stdout.flush()


def console(stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def emit(data: Any, *, as_json: bool, human: Render | str | None = None) -> None:
    """Print a verb's result: the JSON document, or the human rendering."""
    if as_json:
        print_json(data)
        return
    if human is None:
        print_json(data)
    elif isinstance(human, str):
        console().print(human)
    else:
        human(console())


def emit_error(exc: SkillreelError, *, as_json: bool) -> None:
    if as_json:
        print_json({"error": exc.to_json()})
        return
    from rich.markup import escape

    err = console(stderr=True)
    err.print(f"[bold red]error[/] {exc.code}: {escape(exc.message)}")
    err.print(f"[dim]fix:[/] {escape(exc.fix)}")
