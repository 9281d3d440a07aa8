"""`skillreel ui [--port N]`: the local review page on 127.0.0.1, at a random host name under
``localhost`` (``http://r-<random>.localhost:PORT/``), with a page token in its URL."""

from __future__ import annotations

import click

from ..errors import InputError
from ..model.base import is_label
from ..model.limits import ANY_FREE_PORT, PORT_RANGE
from .output import console


@click.command("ui")
@click.option(
    "--port",
    type=click.IntRange(*PORT_RANGE),
    default=ANY_FREE_PORT,
    show_default=True,
    help="Port on 127.0.0.1 (0: any free one).",
)
@click.option("--reviewer", help="Fill in this reviewer id on the approve and reject forms.")
def command(port: int, reviewer: str | None) -> None:
    """Serve the local review page (127.0.0.1 only, at a random *.localhost name) until Ctrl-C."""
    from ..ui.server import serve

    if reviewer is not None and not is_label(reviewer):
        raise InputError(
            "SR_RECORD_REVIEWER_INVALID", "a reviewer id is letters, digits and . _ @ : - (at most 128)"
        )

    def announce(url: str) -> None:
        out = console()
        out.print(f"skillreel review page: {url}", markup=False)
        out.print(
            "Open it in your browser (the name resolves to this machine); the token in it is this "
            "page's key. Ctrl-C stops the page."
        )
        out.file.flush()  # a caller reading our stdout through a pipe needs the URL now

    serve(port, reviewer=reviewer, announce=announce)
