"""`skillreel export NAME --out FILE`: one skill with every document, written 0600 atomically."""

from __future__ import annotations

from pathlib import Path

import click

from ..services.exporting import export_skill
from ..store import Store
from .completion import complete_skill_name
from .output import emit, json_option


@click.command("export")
@click.argument("name", shell_complete=complete_skill_name)
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="The file to write.")
@click.option("--force", is_flag=True, help="Replace the file if it exists.")
@click.option(
    "--sign",
    "sign_key",
    type=click.Path(path_type=Path),
    help="Sign the export with this Ed25519 private key (PEM).",
)
@json_option
def command(name: str, out: Path, force: bool, sign_key: Path | None, as_json: bool) -> None:
    """Write one skill with every document to a JSON file."""
    with Store.open() as store:
        result = export_skill(store, name, out, force=force, sign_key=sign_key)
    emit(
        result.to_json(),
        as_json=as_json,
        human=f"exported {result.name} revision {result.revision} to {result.path} ({result.export_digest})",
    )
