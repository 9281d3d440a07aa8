"""The CLI restates no bound: every ranged option's bounds are a range of ``model/limits.py`` (or a
page size of the use case it calls), so one edit there changes the check and the help alike."""

from __future__ import annotations

import importlib

import click

from skillreel.cli.main import VERBS
from skillreel.model import limits
from skillreel.services.run_history import MAX_PAGE


def _ranged_options() -> list[tuple[str, str, tuple[float | None, float | None]]]:
    found = []
    for verb, (module, _) in VERBS.items():
        command = importlib.import_module(f"skillreel.cli.{module}").command
        commands = [command, *(command.commands.values() if isinstance(command, click.Group) else ())]
        for cmd in commands:
            for param in cmd.params:
                if isinstance(param.type, (click.IntRange, click.FloatRange)):
                    found.append((verb, param.opts[0], (param.type.min, param.type.max)))
    return found


def test_every_ranged_option_takes_its_bounds_from_the_limits() -> None:
    known = {value for name, value in vars(limits).items() if name.endswith("_RANGE")}
    known |= {(1, limits.MAX_OPTION_NUMBER), (1, MAX_PAGE)}
    options = _ranged_options()
    assert any(name == "--timeout" for _, name, _ in options), "the check finds no ranged option"
    restated = [f"{verb} {name} {bounds}" for verb, name, bounds in options if bounds not in known]
    assert not restated, "options whose bounds are not a range of model/limits.py:\n" + "\n".join(restated)
