"""``skillreel record NAME --from-step ID`` / ``--only-step ID``: repair an approved skill by
showing it again from one step (``services.repairing``). Not a verb of its own: ``cli/record.py``
hands these options here.

Before anything runs, the steps that will be replayed are listed on stderr with their side effects;
on a terminal the person confirms (``--yes`` skips the question); without a terminal ``--yes`` is
required. The result is a new draft revision: the kept step ids and the new ones are listed.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import InputError, RecordError
from ..services.repairing import RepairPlan, RepairRequest, RepairResult, plan_repair, repair_skill
from ..store import Store
from . import terminal
from .output import Render, emit
from .replay import parse_inputs, show_progress, terminal_prompt

if TYPE_CHECKING:
    from rich.console import Console


def refuse_stray(given: dict[str, object]) -> None:
    """``SR_RECORD_USAGE`` when an option that only a repair takes is given without one."""
    stray = [name for name, value in given.items() if value]
    if stray:
        raise InputError("SR_RECORD_USAGE", f"{', '.join(stray)} only go with --from-step or --only-step")


def _confirm(plan: RepairPlan, yes: bool) -> None:
    data = plan.to_json()
    what = f"re-point step {data['step']}" if plan.request.only else f"record again from step {data['step']}"
    click.echo(f"repair {data['name']} (revision {data['revision']}): {what}", err=True)
    click.echo(f"first, these {len(data['replayed'])} approved step(s) run on the site:", err=True)
    for step in data["replayed"]:
        effect = "may act on the site" if step["sideEffects"] else "reads only"
        click.echo(f"  {step['id']:<5} {step['kind']:<9} {effect}", err=True)
    if yes:
        return
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise InputError("SR_RECORD_USAGE", "a repair runs real steps: confirm on a terminal, or pass --yes")
    if not click.confirm("run them?", default=False, err=True):
        raise RecordError("SR_RECORD_DISCARDED", "repair cancelled; nothing was run or stored")


def _human(result: RepairResult) -> Render:
    def render(out: Console) -> None:
        data = result.to_json()
        out.print(
            f"repaired [bold]{data['name']}[/]: revision {data['revision']} (draft) {data['draftDigest']}"
        )
        out.print(f"kept as approved: {', '.join(data['kept']) or 'none'}")
        out.print(f"new: {', '.join(data['changed'])}")
        for warning in data["warnings"]:
            out.print(f"[yellow]warning[/]: {warning}")
        out.print(
            f"next: skillreel diff {data['name']}, then skillreel review {data['name']} --reviewer ID "
            f"--expected-revision {data['revision']} --approve"
        )

    return render


def run(
    name: str,
    *,
    from_step: str | None,
    only_step: str | None,
    inputs: tuple[str, ...],
    automation: Path | None,
    html_path: Path | None,
    storage_state: Path | None,
    expected_revision: int | None,
    timeout_ms: int,
    yes: bool,
    as_json: bool,
    others_given: bool,
) -> None:
    """The repair: plan (nothing runs), confirm, replay and record, render."""
    if from_step is not None and only_step is not None:
        raise InputError("SR_RECORD_USAGE", "give --from-step or --only-step, not both")
    if others_given:
        raise InputError(
            "SR_RECORD_USAGE",
            "a repair keeps the approved skill's target and texts: it takes only --input, --automation, "
            "--html, --storage-state, --timeout, --expected-revision, --yes and --json",
        )
    request = RepairRequest(
        name=name,
        step=only_step or from_step or "",
        only=only_step is not None,
        inputs=parse_inputs(inputs),
        automation=automation,
        html_path=html_path,
        storage_state=storage_state,
        expected_revision=expected_revision,
        timeout_ms=timeout_ms,
    )
    with Store.open() as store:
        plan = plan_repair(store, request)
        _confirm(plan, yes)
        interactive = plan.interactive
        try:
            result = asyncio.run(
                repair_skill(
                    store,
                    plan,
                    terminal=terminal.run if interactive and not request.only else None,
                    on_action=_announce if interactive else None,
                    on_notice=_notice if interactive else None,
                    human=terminal_prompt() if interactive else None,
                    progress=show_progress,
                )
            )
        except KeyboardInterrupt:
            raise RecordError("SR_RECORD_DISCARDED", "repair discarded; nothing was stored") from None
    emit(result.to_json(), as_json=as_json, human=_human(result))


def _announce(action_id: str, kind: str) -> None:
    click.echo(f"  new   {kind}", err=True)


def _notice(text: str) -> None:
    click.echo(text, err=True)
