"""`skillreel import FILE [--replace --approve]`: store an exported skill, re-validating everything."""

from __future__ import annotations

from pathlib import Path

import click

from ..model.limits import MAX_OPTION_NUMBER
from ..services.importing import import_skill
from ..store import Store
from .output import approve_option, emit, json_option


@click.command("import")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--replace", is_flag=True, help="Replace an existing skill of the same name (needs --approve).")
@click.option(
    "--expected-revision",
    type=click.IntRange(1, MAX_OPTION_NUMBER),
    help="Required with --replace --approve: replace only if the existing skill is still at this "
    "revision (what `show` printed).",
)
@click.option(
    "--trust",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Accept only an export signed by this Ed25519 public key (PEM); repeatable.",
)
@approve_option
@json_option
def command(
    file: Path,
    replace: bool,
    expected_revision: int | None,
    trust: tuple[Path, ...],
    approve: bool,
    as_json: bool,
) -> None:
    """Read an exported skill, re-validating everything."""
    with Store.open() as store:
        result = import_skill(
            store, file, replace=replace, approve=approve, expected_revision=expected_revision, trust=trust
        )
    verb = "replaced" if result.replaced else "imported"
    emit(
        result.to_json(),
        as_json=as_json,
        human=f"{verb} {result.name} as revision {result.revision} ({result.status})"
        + (
            f"; not verified against a trusted key, so it needs a review here: skillreel show {result.name}"
            if result.status == "draft" and not result.verified
            else ""
        ),
    )
