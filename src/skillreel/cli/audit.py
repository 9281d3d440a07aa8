"""`skillreel audit [--name NAME] [--verify]`: the content-free audit events, or a chain check."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from ..errors import StoreError
from ..model.limits import MAX_OPTION_NUMBER
from ..services.auditing import DEFAULT_AUDIT_LIMIT, AuditLog, audit_log, verify_audit
from ..store import Store
from .output import Render, emit, emit_failure, json_option

if TYPE_CHECKING:
    from rich.console import Console


def _events(log: AuditLog) -> Render:
    def render(console: Console) -> None:
        for e in log.events:
            who = f" by {e.reviewer}" if e.reviewer else ""
            who += f" ({e.actor})" if e.actor else ""
            where = (f" {e.name}" + (f" r{e.revision}" if e.revision is not None else "")) if e.name else ""
            code = f" {e.code}" if e.code else ""
            console.print(f"{e.seq:>6} {e.at} {e.kind:<13}{where}{who} {e.outcome}{code}")
        console.print(f"[dim]{len(log.events)} shown of {log.total} events[/]")
        if log.unlogged_refusals:
            console.print(
                f"[dim]{log.unlogged_refusals} refused call(s) counted, to be reported with the next[/]"
            )

    return render


@click.command("audit")
@click.option("--name", help="Only events about this skill.")
@click.option(
    "--limit",
    type=click.IntRange(1, MAX_OPTION_NUMBER),
    default=DEFAULT_AUDIT_LIMIT,
    show_default=True,
    help="Show at most this many (the most recent).",
)
@click.option("--verify", is_flag=True, help="Recompute the whole hash chain instead of listing.")
@json_option
def command(name: str | None, limit: int, verify: bool, as_json: bool) -> None:
    """Show the audit events, or verify their hash chain."""
    with Store.open() as store:
        if not verify:
            log = audit_log(store, name, limit)
            emit(log.to_json(), as_json=as_json, human=_events(log))
            return
        result = verify_audit(store)
    if result.ok:
        emit(result.to_json(), as_json=as_json, human=f"audit chain ok: {result.events} events")
        return
    if result.mismatch is not None:
        error = StoreError("SR_RECORD_STORE_CORRUPT", f"a kept document does not match: {result.mismatch}")
    else:
        error = StoreError("SR_RECORD_STORE_CORRUPT", f"the audit chain breaks at event {result.broken_at}")
    emit_failure(error, as_json=as_json, data=result.to_json(), human=f"{error.code}: {error.message}")
    sys.exit(error.exit_status)
