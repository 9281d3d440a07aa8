"""`skillreel policy-template`: print a complete policy file with the defaults, to edit."""

from __future__ import annotations

import click

from ..services.store_policy import policy_template
from .output import json_option, print_json


@click.command("policy-template")
@json_option
def command(as_json: bool) -> None:
    """Print a policy file to edit (then `skillreel policy set FILE --approve`)."""
    print_json(policy_template())
