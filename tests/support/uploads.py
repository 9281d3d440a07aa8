"""File inputs an upload step refuses (issue 32.2), made in a test's folder."""

from __future__ import annotations

import os
from pathlib import Path

from skillreel.model.limits import MAX_UPLOAD_BYTES


def bad_upload(folder: Path, problem: str, name: str = "file.txt") -> Path:
    """A path under ``folder`` that is ``missing``, a ``directory``, a ``symlink`` to a regular file
    or ``too-large`` (sparse: nothing that large is written)."""
    path = folder / name
    if problem == "directory":
        path.mkdir()
    elif problem == "symlink":
        real = folder / f"real-{name}"
        real.write_bytes(b"x")
        os.symlink(real, path)
    elif problem == "too-large":
        with path.open("wb") as f:
            f.truncate(MAX_UPLOAD_BYTES + 1)
    return path
