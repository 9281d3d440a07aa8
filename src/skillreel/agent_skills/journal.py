"""Journals of package transactions, so that a killed ``enable`` or ``revoke`` converges.

A package transaction changes two things that cannot share one commit: the skill roots on disk
and the store. :mod:`skillreel.agent_skills.install` orders the work so that an exception rolls back
exactly; a process killed with SIGKILL (or a power cut) runs no rollback. So before an enable or
a revoke touches a skill root, it writes a journal into the store's home (0700), one per skill,
``installs/NAME.json``: the package digest, the directories it will create, and every move it
will make (a ``.skillreel-stage-*`` folder that becomes the package, or the package that becomes a
``.skillreel-revoke-*`` folder). The journal is removed once the transaction has ended
(committed and cleaned up, or rolled back).

Every enable and revoke first takes the install lock (``installs/.lock``; one transaction at a
time per store, so two racing enables cannot both rely on the same files) and then hands a journal
left by a killed process to ``skills.install.converge``, which makes the disk agree with the store:

* the store says the package is live (the skill is enabled with that package digest): every stage
  of an enable is deleted and its packages stay; every package a revoke moved aside is moved back;
* otherwise: every package the enable published (holding exactly that digest) is removed with the
  directories it created (when empty), and every stage of a revoke is deleted.

Every step is idempotent, so a process killed while converging is converged by the next one. A
folder that is not exactly what the journal says (changed by hand) is never deleted: converging
stops, the journal stays, and the command refuses with ``SR_RECORD_INSTALL_FAILED`` naming it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Final, Literal

from pydantic import Field, StringConstraints, ValidationError, model_validator

from ..errors import InstallError, StoreError
from ..model.base import Digest, Document, SkillName
from ..private_files import fsync_directory, write_private
from ..store.db import store_timeout

STAGE_PREFIX: Final = ".skillreel-"
JOURNAL_DIR: Final = "installs"
LOCK_FILE: Final = ".lock"
DIR_MODE: Final = 0o700
FILE_MODE: Final = 0o600
LOCK_POLL_S: Final = 0.05
OnWait = Callable[[str], None]
AbsolutePath = Annotated[str, StringConstraints(pattern=r"^/", max_length=4096)]


class Move(Document):
    """One rename of a transaction: ``stage`` (a ``.skillreel-*`` folder beside it) and ``target``
    (the package folder). An enable renames stage to target, a revoke target to stage."""

    stage: AbsolutePath
    target: AbsolutePath

    @model_validator(mode="after")
    def _beside(self) -> Move:
        stage, target = Path(self.stage), Path(self.target)
        if stage.parent != target.parent or not stage.name.startswith(STAGE_PREFIX):
            raise ValueError("a stage is a .skillreel-* folder beside its package")
        return self


class Journal(Document):
    """What one enable or revoke of one skill is about to do (``skillreel.install-journal/v1``)."""

    schema_: Literal["skillreel.install-journal/v1"] = Field("skillreel.install-journal/v1", alias="schema")
    operation: Literal["enable", "revoke"]
    name: SkillName
    package_digest: Digest
    created_dirs: tuple[AbsolutePath, ...] = Field(default=(), max_length=16)
    moves: tuple[Move, ...] = Field(default=(), max_length=16)

    @model_validator(mode="after")
    def _own_packages(self) -> Journal:
        if any(Path(m.target).name != self.name for m in self.moves):
            raise ValueError("a journal moves only the packages of its own skill")
        return self


def stage_path(target: Path, kind: Literal["stage", "revoke"]) -> Path:
    """A fresh stage folder name beside ``target``."""
    return target.parent / f"{STAGE_PREFIX}{kind}-{secrets.token_hex(6)}"


class Journals:
    """The journals of one store (``HOME/installs``) and the lock every transaction holds."""

    def __init__(self, home: Path) -> None:
        self.directory = home / JOURNAL_DIR

    def path(self, name: str) -> Path:
        return self.directory / f"{name}.json"

    @contextlib.contextmanager
    def locked(self, on_wait: OnWait | None = None) -> Iterator[Journals]:
        """Hold the install lock (``SR_RECORD_STORE_BUSY`` after ``SKILLREEL_STORE_TIMEOUT``)."""
        self._ensure_directory()
        fd = os.open(
            self.directory / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, FILE_MODE
        )
        try:
            _acquire(fd, store_timeout(), on_wait)
            yield self
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    def write(self, journal: Journal) -> None:
        """Write the journal atomically and durably (a temporary file renamed into place)."""
        self._ensure_directory()
        data = journal.model_dump_json(by_alias=True).encode()
        write_private(self.path(journal.name), data, mode=FILE_MODE, sync_directory=True)

    def read(self, name: str) -> Journal | None:
        """The journal a killed transaction left for ``name``, or None."""
        path = self.path(name)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _unreadable(path) from exc
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(256 * 1024)
        try:
            return Journal.parse(data)
        except (ValidationError, ValueError) as exc:
            raise _unreadable(path) from exc

    def pending(self) -> list[str]:
        """The skills whose transaction a killed process left unfinished (a journal on disk)."""
        try:
            files = sorted(self.directory.glob("*.json"))
        except OSError as exc:
            raise _unreadable(self.directory) from exc
        return [path.stem for path in files if not path.name.startswith(".")]

    def remove(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path(name))
        fsync_directory(self.directory)

    def _ensure_directory(self) -> None:
        try:
            os.mkdir(self.directory, DIR_MODE)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(self.directory).st_mode):
                raise InstallError(
                    "SR_RECORD_INSTALL_FAILED", f"{self.directory} is not a directory"
                ) from None


def _unreadable(path: Path) -> InstallError:
    return InstallError(
        "SR_RECORD_INSTALL_FAILED",
        f"the journal of an interrupted enable or revoke ({path}) cannot be read; nothing was changed",
    )


def _acquire(fd: int, timeout: float, on_wait: OnWait | None) -> None:
    deadline = time.monotonic() + timeout
    announced = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if not announced and on_wait is not None:
                on_wait("install.lock-wait")
            announced = True
        if time.monotonic() >= deadline:
            raise StoreError(
                "SR_RECORD_STORE_BUSY",
                "another enable or revoke of this store is running; nothing was changed",
            )
        time.sleep(LOCK_POLL_S)
