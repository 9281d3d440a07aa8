"""`skillreel review NAME --reviewer ID --expected-revision N --approve`: approve one exact draft
revision (or a heal proposal), named by its revision or its draft digest as `show` printed them."""

from __future__ import annotations

import click

from ..errors import InputError
from ..model.limits import MAX_OPTION_NUMBER
from ..services.reviewing import reject_heal_proposal, review_skill
from ..store import Store
from .completion import complete_skill_name
from .output import approve_option, emit, json_option


@click.command("review")
@click.argument("name", shell_complete=complete_skill_name)
@click.option("--reviewer", required=True, help="Who approves (a non-secret id, e.g. an email).")
@click.option(
    "--expected-revision",
    type=click.IntRange(1, MAX_OPTION_NUMBER),
    help="The revision you reviewed (what `show` printed); --approve needs it or --draft-digest.",
)
@click.option(
    "--draft-digest",
    help="The draft digest you reviewed (`show`: digests.draft, or the heal proposal's draftDigest).",
)
@click.option("--heal-proposal", is_flag=True, help="Accept the pending heal proposal as the new revision.")
@click.option("--reject", is_flag=True, help="With --heal-proposal: reject (drop) the pending heal proposal.")
@click.option(
    "--env",
    "environments",
    multiple=True,
    metavar="NAME",
    help="Approve only these declared environments (repeat; default: every declared one).",
)
@approve_option
@json_option
def command(
    name: str,
    reviewer: str,
    expected_revision: int | None,
    draft_digest: str | None,
    heal_proposal: bool,
    reject: bool,
    environments: tuple[str, ...],
    approve: bool,
    as_json: bool,
) -> None:
    """Approve one exact draft revision (or a heal proposal)."""
    if reject:
        if not heal_proposal:
            raise InputError("SR_RECORD_USAGE", "--reject rejects a heal proposal: add --heal-proposal")
        if environments:
            raise InputError("SR_RECORD_USAGE", "--env names what an approval covers; a rejection takes none")
        with Store.open() as store:
            rejected = reject_heal_proposal(
                store,
                name,
                reviewer,
                approve=approve,
                expected_revision=expected_revision,
                draft_digest=draft_digest,
            )
        emit(rejected.to_json(), as_json=as_json, human=f"rejected the heal proposal of {rejected.name}")
        return
    with Store.open() as store:
        result = review_skill(
            store,
            name,
            reviewer,
            approve=approve,
            expected_revision=expected_revision,
            draft_digest=draft_digest,
            heal_proposal=heal_proposal,
            environments=environments or None,
        )
    emit(
        result.to_json(),
        as_json=as_json,
        human=f"approved {result.name} version {result.version} ({result.bump}), revision {result.revision} "
        f"({result.approval_digest})",
        warnings=result.warnings,
    )
