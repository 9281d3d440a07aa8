"""The one writer of the files skillreel writes for itself: whole or not at all, owner-only.

:func:`write_private` writes ``data`` to a fresh temporary file beside ``path`` (created exclusively,
never through a symlink, not inherited by a child process, its mode set exactly whatever the umask),
syncs it, and then moves it into place: renamed over whatever ``path`` was (``replace=True``), or
linked to ``path``, refusing one that exists (``replace=False``). On any failure the temporary file
is removed and ``path`` is as it was. With ``sync_directory`` the directory is synced too, so the
rename itself survives a power cut.

It imports nothing of skillreel (layer 0 beside ``errors``): every layer that writes its own files
(the vault's logins, the store's exports, the artifacts of a replay, the package transactions)
uses it and translates the ``OSError`` it raises into its own code.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path
from typing import Final

PRIVATE_MODE: Final = 0o600
_CREATE: Final = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class TemporaryFileError(OSError):
    """The temporary file beside the target could not be created (its directory is not writable,
    or is not there); nothing was written."""


def write_private(
    path: Path, data: bytes, *, mode: int = PRIVATE_MODE, replace: bool = True, sync_directory: bool = False
) -> None:
    """Write ``data`` to ``path`` atomically with exactly ``mode`` (module docstring). Raises
    :class:`TemporaryFileError` when the temporary file cannot be created, ``FileExistsError`` when
    ``path`` exists and ``replace`` is false, or another ``OSError``."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        fd = os.open(temporary, _CREATE, mode)
    except OSError as exc:
        raise TemporaryFileError(exc.errno, exc.strerror, str(temporary)) from exc
    try:
        try:
            os.fchmod(fd, mode)  # the umask must not change it
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        if replace:
            os.replace(temporary, path)
        else:
            os.link(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    if sync_directory:
        fsync_directory(path.parent)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def fsync_directory(path: Path) -> None:
    """Make the renames and removals inside ``path`` durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
