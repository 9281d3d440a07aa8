"""Install and remove skill packages as filesystem transactions that can be undone exactly.

``install`` puts one package into every skill root of a scope; ``stage_removal`` moves installed
packages aside after checking their bytes against the package digest. Both return an object whose
``rollback()`` restores the files exactly as they were, so the caller can tie them to the store's
state change: files first, then the store commit, then (for a removal) the deletion of the stage.

Refusals, all before anything is written:

- a symlink on any component of a path we would touch (``SR_RECORD_INSTALL_SYMLINK``);
- a package folder that exists and is not exactly this package, or a path component that is not a
  directory (``SR_RECORD_INSTALL_COLLISION``);
- installed bytes that differ from the package digest (``SR_RECORD_INSTALL_MODIFIED``);
- any OS error on the way (a read-only root, a full disk) rolls back and is
  ``SR_RECORD_INSTALL_FAILED``.

Skill roots: project scope ``DIR/.agents/skills`` (Codex and other Agent Skills clients) and
``DIR/.claude/skills`` (Claude Code); user scope the same under the home directory. The ancestors
of DIR (or of the home directory) are taken as the system lays them out (``realpath``); from DIR
itself downwards every component is checked with ``os.lstat``.

Both can be given a :class:`~skillreel.agent_skills.journal.Journals`: before anything is changed they
write down what they are about to do, and :meth:`Transaction.finish` (or a complete rollback)
removes the note. :func:`converge` uses such a note, left by a process that was killed, to make the
disk agree with the store (see :mod:`skillreel.agent_skills.journal`).

``fault`` is a test hook called with the name of each step just before it runs; a test raises from
it to prove that every step rolls back, or kills the process there to prove that it converges.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Literal

from ..errors import InstallError
from ..model.base import check_skill_name
from ..private_files import fsync_directory, write_private
from .journal import Journal, Journals, Move, stage_path
from .package import PACKAGE_PATHS, Package, PackageFile, package_digest

Fault = Callable[[str], None]
Scope = Literal["project", "user"]
ROOT_DIRS = (Path(".agents") / "skills", Path(".claude") / "skills")
MAX_PACKAGE_FILE_BYTES = 4 * 1024 * 1024
MAX_PACKAGE_ENTRIES = 16


def no_fault(step: str) -> None:
    """The default hook: every step runs."""


def canonical_base(base: Path) -> Path:
    """``base`` made absolute, its ancestors resolved as the system lays them out; ``base`` itself kept."""
    absolute = Path(os.path.abspath(base))
    if absolute.parent == absolute:
        return absolute
    return Path(os.path.realpath(absolute.parent)) / absolute.name


def skill_roots(scope: Scope, project_dir: Path | None = None, home: Path | None = None) -> tuple[Path, ...]:
    """The skill roots of a scope, in a fixed order (``.agents/skills`` first)."""
    if scope == "project":
        base = canonical_base(project_dir if project_dir is not None else Path.cwd())
    else:
        base = canonical_base(home if home is not None else Path.home())
    return tuple(base / rel for rel in ROOT_DIRS)


# --- checks ------------------------------------------------------------------------------------


def refuse_symlinks(path: Path) -> None:
    """``os.lstat`` every existing component of the absolute ``path``; refuse symlinks and non-directories
    above the last component."""
    current = Path(path.anchor)
    parts = path.parts[1:]
    for index, part in enumerate(parts):
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return
        except OSError as exc:
            raise InstallError(
                "SR_RECORD_INSTALL_FAILED", f"cannot inspect {current}: {exc.strerror}"
            ) from exc
        if stat.S_ISLNK(mode):
            raise InstallError(
                "SR_RECORD_INSTALL_SYMLINK", f"{current} is a symlink; skillreel will not follow it"
            )
        if index < len(parts) - 1 and not stat.S_ISDIR(mode):
            raise InstallError("SR_RECORD_INSTALL_COLLISION", f"{current} exists and is not a directory")


def read_package_dir(path: Path) -> list[PackageFile] | None:
    """The files of an installed package folder, or None when the folder does not exist.

    Anything a package never holds (a symlink, a device, too many or too large files) raises
    ``_Foreign``; nothing is followed.
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if not stat.S_ISDIR(mode):
        raise _Foreign(f"{path} is not a directory")
    files: list[PackageFile] = []
    for rel, st in _walk(path, Path()):
        if stat.S_ISDIR(st.st_mode):
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_PACKAGE_FILE_BYTES:
            raise _Foreign(f"{path / rel} is not a package file")
        fd = os.open(path / rel, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_PACKAGE_FILE_BYTES + 1)
        files.append(PackageFile(rel.as_posix(), data, executable=bool(st.st_mode & stat.S_IXUSR)))
    return files


class _Foreign(Exception):
    """A folder that is not (exactly) a package of ours."""


def _walk(top: Path, rel: Path, seen: list[int] | None = None) -> Iterator[tuple[Path, os.stat_result]]:
    seen = seen if seen is not None else [0]
    for name in sorted(os.listdir(top / rel)):
        seen[0] += 1
        if seen[0] > MAX_PACKAGE_ENTRIES:
            raise _Foreign(f"{top} holds more entries than a package")
        st = os.lstat(top / rel / name)
        yield rel / name, st
        if stat.S_ISDIR(st.st_mode):
            yield from _walk(top, rel / name, seen)


def installed_digest(path: Path) -> str | None:
    """The package digest of what is installed at ``path`` (None when absent); foreign content raises."""
    files = read_package_dir(path)
    return None if files is None else package_digest(files)


def matches(path: Path, digest: str) -> bool | None:
    """True/False whether ``path`` holds exactly the package with ``digest``; None when absent."""
    try:
        found = installed_digest(path)
    except (_Foreign, OSError):
        return False
    return None if found is None else found == digest


def _os_failure(action: str, exc: OSError) -> InstallError:
    reason = exc.strerror or type(exc).__name__
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        reason += " (is the skill root read-only?)"
    return InstallError("SR_RECORD_INSTALL_FAILED", f"{action}: {reason}; nothing was left changed")


# --- install -----------------------------------------------------------------------------------


@dataclass
class Transaction:
    """Undo steps recorded as the work is done; ``rollback`` runs them newest first. With a journal,
    a complete rollback (or :meth:`finish`) also removes the journal the transaction wrote."""

    undo: list[Callable[[], None]] = field(default_factory=list)
    leftovers: list[str] = field(default_factory=list)
    journals: Journals | None = None
    name: str = ""

    def rollback(self) -> None:
        while self.undo:
            step = self.undo.pop()
            try:
                step()
            except OSError as exc:  # keep undoing the rest; report what could not be restored
                self.leftovers.append(str(exc))
        if self.leftovers:
            raise InstallError(
                "SR_RECORD_INSTALL_FAILED", "the rollback was incomplete: " + "; ".join(self.leftovers)
            )
        self._drop_journal()

    def _drop_journal(self) -> None:
        if self.journals is not None:
            self.journals.remove(self.name)

    def _begin(self, journal: Journal, fault: Fault) -> None:
        if self.journals is not None:
            fault(f"{journal.operation}.journal")
            self.journals.write(journal)


@dataclass
class Installed(Transaction):
    paths: tuple[Path, ...] = ()

    def finish(self) -> None:
        """The store committed: nothing is undone any more, and the journal goes."""
        self.undo.clear()
        self._drop_journal()


def install(
    package: Package,
    roots: tuple[Path, ...],
    *,
    journals: Journals | None = None,
    fault: Fault = no_fault,
) -> Installed:
    """Install ``package`` as ``root/NAME`` in every root. A folder that already holds exactly this
    package is kept as it is (and left alone by a rollback); any other existing folder refuses.
    With ``journals``, what is about to happen is written down first (see :func:`converge`)."""
    check_skill_name(package.name)
    targets = tuple(root / package.name for root in roots)
    todo = [t for t in targets if check_install_target(t, package)]
    moves = tuple(Move(stage=str(stage_path(t, "stage")), target=str(t)) for t in todo)
    txn = Installed(journals=journals, name=package.name, paths=targets)
    created = _missing_dirs(tuple(t.parent for t in todo))
    txn._begin(
        Journal(
            operation="enable",
            name=package.name,
            package_digest=package.digest,
            created_dirs=tuple(str(d) for d in created),
            moves=moves,
        ),
        fault,
    )
    try:
        for index, move in enumerate(moves):
            _install_one(package, move, index, txn, fault)
    except OSError as exc:
        txn.rollback()
        raise _os_failure(f"installing {package.name!r}", exc) from exc
    except BaseException:
        txn.rollback()
        raise
    return txn


def _missing_dirs(parents: tuple[Path, ...]) -> list[Path]:
    """The directories that installing into ``parents`` creates, parents first."""
    missing: list[Path] = []
    for path in parents:
        chain: list[Path] = []
        current = path
        while not os.path.lexists(current):
            chain.append(current)
            current = current.parent
        missing += [d for d in reversed(chain) if d not in missing]
    return missing


def check_install_target(target: Path, package: Package) -> bool:
    """True when ``target`` must be written; False when it already holds exactly this package.
    Refuses a symlink on the way and a folder that is anything else (read-only: nothing is written)."""
    refuse_symlinks(target)
    found = matches(target, package.digest)
    if found is None:
        return True
    if found:
        return False
    raise InstallError(
        "SR_RECORD_INSTALL_COLLISION",
        f"{target} already exists and is not this skill's package; nothing was installed",
    )


def _install_one(package: Package, move: Move, index: int, txn: Installed, fault: Fault) -> None:
    target, stage = Path(move.target), Path(move.stage)
    fault(f"install.mkdir:{index}")
    _make_dirs(target.parent, txn)
    fault(f"install.stage:{index}")
    os.mkdir(stage, 0o755)
    txn.undo.append(lambda: remove_tree(stage))
    for item in package.files:
        fault(f"install.write:{index}:{item.path}")
        _write_file(stage, item, txn)
    fault(f"install.publish:{index}")
    refuse_symlinks(target)
    if os.path.lexists(target):
        raise InstallError(
            "SR_RECORD_INSTALL_COLLISION", f"{target} appeared while installing; nothing was installed"
        )
    os.rename(stage, target)
    txn.undo.append(lambda: remove_tree(target))
    fsync_directory(target.parent)


def _make_dirs(path: Path, txn: Transaction) -> None:
    missing: list[Path] = []
    current = path
    while not os.path.lexists(current):
        missing.append(current)
        current = current.parent
    for directory in reversed(missing):
        refuse_symlinks(directory)
        os.mkdir(directory, 0o755)
        txn.undo.append(partial(os.rmdir, directory))
    refuse_symlinks(path)


def _write_file(stage: Path, item: PackageFile, txn: Transaction) -> None:
    path = stage / item.path
    if item.path not in PACKAGE_PATHS:
        raise InstallError("SR_RECORD_INSTALL_FAILED", f"{item.path!r} is not a package file")
    if not path.parent.exists():
        os.mkdir(path.parent, 0o755)
    # exactly this mode (the umask must not change the digest); a new file, never an existing one
    write_private(path, item.data, mode=0o755 if item.executable else 0o644, replace=False)


def remove_tree(path: Path) -> None:
    if os.path.lexists(path):
        shutil.rmtree(path)


# --- removal -----------------------------------------------------------------------------------


@dataclass
class StagedRemoval(Transaction):
    """Packages moved aside (``stages``) and the paths found already absent."""

    removed: tuple[Path, ...] = ()
    absent: tuple[Path, ...] = ()
    stages: list[Path] = field(default_factory=list)

    def finish(self, fault: Fault = no_fault) -> list[Path]:
        """Delete the stages (after the store committed). Returns stages that could not be deleted;
        while there are any, the journal stays, so the next enable or revoke deletes them."""
        self.undo.clear()
        left: list[Path] = []
        for index, stage in enumerate(self.stages):
            try:
                fault(f"revoke.delete:{index}")
                remove_tree(stage)
            except OSError:
                left.append(stage)
        if not left:
            self._drop_journal()
        return left


def check_installed(paths: tuple[Path, ...], digest: str) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """Split ``paths`` into (present, absent) after checking each present package against ``digest``."""
    present: list[Path] = []
    absent: list[Path] = []
    for path in paths:
        refuse_symlinks(path)
        found = matches(path, digest)
        if found is None:
            absent.append(path)
        elif found:
            present.append(path)
        else:
            raise InstallError(
                "SR_RECORD_INSTALL_MODIFIED",
                f"{path} differs from the package skillreel installed; nothing was deleted",
            )
    return tuple(present), tuple(absent)


def stage_removal(
    paths: tuple[Path, ...],
    digest: str,
    *,
    name: str = "",
    journals: Journals | None = None,
    fault: Fault = no_fault,
) -> StagedRemoval:
    """Move every installed package aside (a rename beside it), after checking its bytes. With
    ``journals`` (and the skill's ``name``), the moves are written down first."""
    fault("revoke.verify")
    present, absent = check_installed(paths, digest)
    moves = tuple(Move(stage=str(stage_path(p, "revoke")), target=str(p)) for p in present)
    txn = StagedRemoval(journals=journals, name=name, removed=present, absent=absent)
    if name:
        txn._begin(Journal(operation="revoke", name=name, package_digest=digest, moves=moves), fault)
    try:
        for index, move in enumerate(moves):
            path, stage = Path(move.target), Path(move.stage)
            fault(f"revoke.stage:{index}")
            os.rename(path, stage)
            txn.undo.append(partial(os.rename, stage, path))
            txn.stages.append(stage)
    except OSError as exc:
        txn.rollback()
        raise _os_failure("moving the package aside", exc) from exc
    except BaseException:
        txn.rollback()
        raise
    return txn


# --- convergence after a killed transaction ------------------------------------------------------


def converge(journal: Journal, *, live: bool, fault: Fault = no_fault) -> None:
    """Make the disk agree with the store after a killed transaction (:mod:`skillreel.agent_skills.journal`).
    ``live``: the store says this skill is enabled with ``journal.package_digest``."""
    digest = journal.package_digest
    try:
        for index, move in enumerate(journal.moves):
            stage, target = Path(move.stage), Path(move.target)
            refuse_symlinks(stage)
            fault(f"recover.{journal.operation}:{index}")
            _converge_move(journal, stage, target, live=live, digest=digest)
            if os.path.isdir(target.parent):
                fsync_directory(target.parent)
        if journal.operation == "enable" and not live:
            for directory in reversed(journal.created_dirs):
                with contextlib.suppress(OSError):  # absent, or not empty: another skill lives there
                    os.rmdir(directory)
    except OSError as exc:
        raise _os_failure(f"finishing an interrupted {journal.operation} of {journal.name!r}", exc) from exc


def _converge_move(journal: Journal, stage: Path, target: Path, *, live: bool, digest: str) -> None:
    if journal.operation == "enable":
        _discard(stage)
        if not live and os.path.lexists(target):
            if not matches(target, digest):
                raise _changed(journal, target)
            remove_tree(target)
        return
    if not os.path.lexists(stage):
        return
    if live and not os.path.lexists(target):
        os.rename(stage, target)
    elif live and not matches(target, digest):
        raise _changed(journal, target)
    else:
        _discard(stage)


def _discard(stage: Path) -> None:
    """Delete a stage folder (something else in its place is unlinked, never followed)."""
    try:
        mode = os.lstat(stage).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        remove_tree(stage)
    else:
        os.unlink(stage)


def _changed(journal: Journal, path: Path) -> InstallError:
    return InstallError(
        "SR_RECORD_INSTALL_MODIFIED",
        f"an interrupted {journal.operation} of {journal.name!r} left {path}, which is not the package "
        "it installed; nothing was deleted (move it away by hand, then retry)",
    )
