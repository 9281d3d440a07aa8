"""Rendering for the CLI: human text on a terminal, or exactly one JSON document with ``--json``.

The JSON document is always the result envelope of ``model/envelope.py``. Verbs call :func:`emit`
with their result data and a short human rendering, or :func:`emit_failure` for a failure they
report themselves with data (a failed replay, a broken audit chain). Errors raised out of a verb go
through :func:`emit_failure` from ``cli.main``. Warnings go into the envelope, or to stderr as
``warning CODE: message`` lines. Rich is imported lazily.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ..errors import SkillreelError

if TYPE_CHECKING:  # imported where used: `skillreel --help` loads neither pydantic nor the model
    from ..model.envelope import ResultWarning

F = TypeVar("F", bound=Callable[..., Any])


def json_option(func: F) -> F:
    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        help="Print one JSON document (the skillreel.result/v1 envelope) on stdout.",
    )(func)


def approve_option(func: F) -> F:
    return click.option(
        "--approve",
        is_flag=True,
        help="Carry out the change (without it, say what would change and change nothing).",
    )(func)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, sort_keys=False, indent=2) + "\n")
    sys.stdout.flush()


def console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


Human = Callable[[Any], None] | str | None


def emit(
    data: Mapping[str, Any], *, as_json: bool, human: Human = None, warnings: Sequence[ResultWarning] = ()
) -> None:
    """Print a verb's result: its envelope, or the human rendering (the data as JSON when there is none)."""
    if as_json:
        from ..model.envelope import succeeded

        print_json(succeeded(current_command(), data, warnings))
        return
    _render(data, human)
    _warn(warnings)


def emit_failure(
    error: SkillreelError,
    *,
    as_json: bool,
    data: Mapping[str, Any] | None = None,
    human: Human = None,
    warnings: Sequence[ResultWarning] = (),
    command: str | None = None,
) -> None:
    """Print a failure: its envelope (with what is known in ``data``), or ``human`` (by default the
    error and its fix on stderr). ``command`` defaults to the verb that is running."""
    if as_json:
        from ..model.envelope import failed

        print_json(failed(command or current_command(), error, data, warnings))
        return
    if human is None:
        from rich.markup import escape

        err = console(stderr=True)
        err.print(f"[bold red]error[/] {error.code}: {escape(error.message)}")
        err.print(f"[dim]fix:[/] {escape(error.fix)}")
    else:
        _render(data, human)
    _warn(warnings)


def current_command() -> str | None:
    """The running verb as typed, e.g. ``list`` or ``policy set`` (the envelope's ``command``)."""
    ctx = click.get_current_context(silent=True)
    names: list[str] = []
    while ctx is not None and ctx.parent is not None:  # the root context is the program itself
        names.insert(0, ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(names) or None


def _render(data: Mapping[str, Any] | None, human: Human) -> None:
    if human is None:
        print_json(data)
    elif isinstance(human, str):
        console().print(human)
    else:
        human(console())


def _warn(warnings: Sequence[ResultWarning]) -> None:
    if warnings:
        from rich.markup import escape

        err = console(stderr=True)
        for warning in warnings:
            err.print(f"[bold yellow]warning[/] {warning.code}: {escape(warning.message)}")
