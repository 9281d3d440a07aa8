"""`skillreel prune --approve`: delete skills past the policy's retention (never enabled ones),
finish or roll back package transactions a killed process left, and trim the oldest audit events when the log
is nearly full."""

from __future__ import annotations

import click

from ..services.pruning import prune_skills
from ..store import Store
from .output import approve_option, emit, json_option


@click.command("prune")
@approve_option
@json_option
def command(approve: bool, as_json: bool) -> None:
    """Delete skills past the retention period; trim a nearly full audit log."""
    with Store.open() as store:
        result = prune_skills(store, approve=approve)
    names = ", ".join(name for name, _ in result.pruned)
    human = f"pruned {names}" if names else f"nothing is older than {result.retention_days} days"
    if result.audit_trimmed:
        human += f"; trimmed the {result.audit_trimmed} oldest audit event(s)"
    if result.installs_recovered:
        recovered = ", ".join(result.installs_recovered)
        human += f"; finished or rolled back the interrupted package transaction(s) of {recovered}"
    emit(result.to_json(), as_json=as_json, human=human, warnings=result.warnings)
