"""`skillreel export NAME --out FILE`: one skill with every document, written 0600 atomically;
`skillreel export NAME --playwright FILE.py`: its approved revision as a runnable Playwright script."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import InputError
from ..model.limits import MAX_OPTION_NUMBER
from ..services.exporting import export_playwright, export_skill
from ..store import Store
from .completion import complete_skill_name
from .output import emit, json_option


@click.command("export")
@click.argument("name", shell_complete=complete_skill_name)
@click.option("--out", "out", type=click.Path(path_type=Path), help="The JSON export file to write.")
@click.option(
    "--playwright",
    "script",
    type=click.Path(path_type=Path),
    help="Write the approved revision as a Playwright (sync Python) script to this file instead.",
)
@click.option("--force", is_flag=True, help="Replace the file if it exists.")
@click.option(
    "--sign",
    "sign_key",
    type=click.Path(path_type=Path),
    help="Sign the export with this Ed25519 private key (PEM).",
)
@click.option(
    "--expected-revision",
    type=click.IntRange(1, MAX_OPTION_NUMBER),
    help="The revision you read (what `show` printed): export only if the skill is still at it.",
)
@json_option
def command(
    name: str,
    out: Path | None,
    script: Path | None,
    force: bool,
    sign_key: Path | None,
    expected_revision: int | None,
    as_json: bool,
) -> None:
    """Write one skill with every document to a JSON file, or as a Playwright script."""
    if (out is None) == (script is None) or (script is not None and sign_key is not None):
        raise InputError(
            "SR_RECORD_USAGE", "give one of --out FILE or --playwright FILE.py (--sign: with --out)"
        )
    with Store.open() as store:
        if script is not None:
            written = export_playwright(store, name, script, force=force, expected_revision=expected_revision)
            human = (
                f"wrote {written.name} revision {written.revision} as a Playwright script to {written.path}"
            )
            emit(written.to_json(), as_json=as_json, human=human)
            return
        assert out is not None
        result = export_skill(
            store, name, out, force=force, sign_key=sign_key, expected_revision=expected_revision
        )
    emit(
        result.to_json(),
        as_json=as_json,
        human=f"exported {result.name} revision {result.revision} to {result.path} ({result.export_digest})",
    )
