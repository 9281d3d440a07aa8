"""`skillreel policy-template`: print a complete policy file with the defaults, to edit."""

from __future__ import annotations

import click

from ..services.store_policy import policy_template
from .output import emit, json_option


@click.command("policy-template")
@json_option
def command(as_json: bool) -> None:
    """Print a policy file to edit (then `skillreel policy set FILE --approve`)."""
    emit(policy_template(), as_json=as_json)  # without --json: the bare policy file, to redirect and edit
