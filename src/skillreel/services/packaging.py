"""Enable and revoke: a skill package on disk and the store's state change as one transaction.

Enable: re-read the entry (re-validated by the store), check the lifecycle and the policy, render
the package for the next revision, install it into every skill root of the scope, then commit the
state change with compare-and-set on the revision. If the commit (or anything before it) fails,
the installed files are rolled back and the store is untouched.

Revoke: check the installed bytes against the package digest the store kept, move every package
aside (a rename beside it), commit the state change, then delete the moved-aside copies. If the
commit fails, the packages are renamed back, byte for byte.

Both hold the store's install lock for the whole transaction and write a journal before they touch
a skill root (``agent_skills/journal.py``), and both first make the disk agree with the store for a
transaction of the same skill that a killed process left unfinished (a warning says so). Two racing
enables therefore never both rely on the same files, and no live package or ``.skillreel-*`` folder
outlives the next enable or revoke of its skill.

Revoke with ``project_dir`` (a project that moved) looks there and at the recorded paths, so a
package still at its recorded place is removed, never forgotten.

``plan_enable`` / ``plan_revoke`` run every check and write nothing: the CLI shows them when
``--approve`` is missing.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..agent_skills.install import (
    Fault,
    Scope,
    check_install_target,
    check_installed,
    install,
    no_fault,
    skill_roots,
    stage_removal,
)
from ..agent_skills.package import Launcher, Package, render_package
from ..agent_skills.transaction import package_transaction
from ..errors import InstallError, LifecycleError, RecordError
from ..model import lifecycle
from ..model.base import check_skill_name
from ..model.canonical import GENESIS_DIGEST
from ..model.entry import Installation, StoreEntry
from ..model.envelope import ResultWarning
from ..model.trust import TrustScore
from ..store import AuditNote, Store
from .guards import approval_required, require_pinned


@dataclass(frozen=True)
class EnablePlan:
    """What ``enable`` would do: the package it renders and where it goes."""

    entry: StoreEntry
    scope: Scope
    package: Package
    paths: tuple[Path, ...]

    def describe(self) -> str:
        where = ", ".join(str(p) for p in self.paths)
        return (
            f"would install the package of skill {self.entry.name!r} ({self.package.digest}) as revision "
            f"{self.package.revision} into {where}"
        )


@dataclass(frozen=True)
class EnableResult:
    name: str
    revision: int
    scope: Scope
    package_digest: str
    installations: tuple[str, ...]
    warnings: tuple[ResultWarning, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "status": "enabled",
            "name": self.name,
            "revision": self.revision,
            "scope": self.scope,
            "packageDigest": self.package_digest,
            "installations": list(self.installations),
        }


@dataclass(frozen=True)
class RevokePlan:
    entry: StoreEntry
    package_digest: str
    present: tuple[Path, ...]
    absent: tuple[Path, ...]

    def describe(self) -> str:
        text = f"would remove the package of skill {self.entry.name!r} ({self.package_digest})"
        if self.present:
            text += " from " + ", ".join(str(p) for p in self.present)
        if self.absent:
            text += "; already absent: " + ", ".join(str(p) for p in self.absent)
        return text


@dataclass(frozen=True)
class RevokeResult:
    name: str
    revision: int
    package_digest: str
    removed: tuple[str, ...]
    absent: tuple[str, ...]
    leftovers: tuple[str, ...] = ()
    warnings: tuple[ResultWarning, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "status": "revoked",
            "name": self.name,
            "revision": self.revision,
            "packageDigest": self.package_digest,
            "removed": list(self.removed),
            "alreadyAbsent": list(self.absent),
            "leftovers": list(self.leftovers),
        }


# --- enable ------------------------------------------------------------------------------------


def this_launcher(store: Store) -> Launcher:
    """The program running now, for the package's ``scripts/replay``: this Python
    (``sys.executable`` as invoked, not resolved, so a virtualenv stays itself) with ``-P -m
    skillreel`` (``-P``: no current directory on the import path, so a project folder cannot shadow
    the package). The store is not recorded: the script's caller's environment names it."""
    del store  # the launcher no longer depends on the store (issue 31 point 6)
    return Launcher(command=(os.path.abspath(sys.executable), "-P", "-m", "skillreel"))


def plan_enable(
    store: Store,
    name: str,
    scope: Scope = "project",
    project_dir: Path | None = None,
    *,
    home: Path | None = None,
    expected_revision: int | None = None,
) -> EnablePlan:
    """Every check ``enable`` makes, with nothing written."""
    check_skill_name(name)
    now = store.now()
    entry = store.get(name)
    lifecycle.check_revision(entry, expected_revision)
    roots = skill_roots(scope, project_dir, home)
    paths = tuple(root / name for root in roots)
    # The lifecycle's own rule decides (only validated, or revoked again), before anything is rendered.
    lifecycle.enable(entry, _installation(scope, paths, GENESIS_DIGEST, now), now)
    _check_policy(store, entry, scope)
    trust = store.trust(name).get(name, TrustScore())
    package = render_package(entry, revision=entry.revision + 1, launcher=this_launcher(store), trust=trust)
    plan = EnablePlan(entry, scope, package, paths)
    for path in plan.paths:
        check_install_target(path, package)
    return plan


def enable_skill(
    store: Store,
    name: str,
    scope: Scope = "project",
    project_dir: Path | None = None,
    *,
    approve: bool,
    home: Path | None = None,
    expected_revision: int | None = None,
    fault: Fault = no_fault,
) -> EnableResult:
    """Install the package into every root of ``scope`` and mark the skill enabled, atomically.
    Without ``approve``: every check, then ``SR_RECORD_APPROVAL_REQUIRED`` saying what would change."""
    if not approve or expected_revision is None:
        plan = plan_enable(store, name, scope, project_dir, home=home, expected_revision=expected_revision)
        would, revision = plan.describe().removeprefix("would "), plan.entry.revision
        if not approve:
            details = {
                "name": name,
                "revision": revision,
                "scope": scope,
                "packageDigest": plan.package.digest,
                "installations": [str(p) for p in plan.paths],
            }
            raise approval_required(would, details, revision=revision)
        user = ("--scope", "user") if scope == "user" else ()
        command = _command("enable", name, *user, project_dir=project_dir)
        require_pinned(expected_revision, name, revision, would=would, command=command)
    with package_transaction(store, name, fault) as (journals, warnings):
        plan = plan_enable(store, name, scope, project_dir, home=home, expected_revision=expected_revision)
        now = store.now()
        installation = _installation(scope, plan.paths, plan.package.digest, now)
        installed = install(plan.package, tuple(p.parent for p in plan.paths), journals=journals, fault=fault)

        def change(current: StoreEntry) -> StoreEntry:
            if current.entry_digest != plan.entry.entry_digest:
                raise LifecycleError(
                    "SR_RECORD_REVISION_CONFLICT", f"skill {name!r} changed while enabling it"
                )
            return lifecycle.enable(current, installation, now)

        try:
            fault("enable.commit")
            new = store.update(
                name,
                change,
                AuditNote(kind="enable", digests={"package": plan.package.digest}),
                expected_revision=plan.entry.revision,
            )
        except BaseException:
            installed.rollback()
            raise
        fault("enable.finish")
        installed.finish()
    return EnableResult(new.name, new.revision, scope, plan.package.digest, installation.paths, warnings)


def _command(verb: str, name: str, *options: str, project_dir: Path | None) -> str:
    """The command line of ``verb`` as given, for a refusal that says what to run."""
    words = ["skillreel", verb, name, *options]
    if project_dir is not None:
        words += ["--project-dir", str(project_dir)]
    return shlex.join(words)


def _check_policy(store: Store, entry: StoreEntry, scope: Scope) -> None:
    policy = store.policy()
    if scope == "user" and not policy.allow_global_install:
        raise RecordError(
            "SR_RECORD_POLICY_DENIED",
            "the policy does not allow installing skills for the user (allowGlobalInstall)",
        )
    policy.require_capabilities(entry.draft.capabilities)


def _installation(scope: Scope, paths: tuple[Path, ...], digest: str, now: str) -> Installation:
    try:
        return Installation(
            scope=scope, paths=tuple(str(p) for p in paths), package_digest=digest, installed_at=now
        )
    except ValidationError as exc:
        raise InstallError("SR_RECORD_INSTALL_FAILED", "the install paths are too long") from exc


# --- revoke ------------------------------------------------------------------------------------


def installed_paths(
    installation: Installation, name: str, project_dir: Path | None = None
) -> tuple[Path, ...]:
    """Where the enabled package may be: the recorded paths and, for a project install with
    ``project_dir``, the same places under that directory (a project that moved or was copied)."""
    recorded = tuple(Path(p) for p in installation.paths)
    if project_dir is None or installation.scope != "project":
        return recorded
    moved = tuple(root / name for root in skill_roots("project", project_dir))
    return moved + tuple(p for p in recorded if p not in moved)


def plan_revoke(
    store: Store, name: str, project_dir: Path | None = None, *, expected_revision: int | None = None
) -> RevokePlan:
    """Every check ``revoke`` makes (the state, the installed bytes), with nothing written."""
    check_skill_name(name)
    entry = store.get(name)
    lifecycle.check_revision(entry, expected_revision)
    lifecycle.revoke(entry, entry.updated_at)  # raises unless the state allows it
    installation = entry.installation
    if installation is None:  # excluded by the entry's invariants; kept for the type checker
        raise LifecycleError("SR_RECORD_STATE_INVALID", f"skill {name!r} has no installation")
    paths = installed_paths(installation, name, project_dir)
    present, absent = check_installed(paths, installation.package_digest)
    return RevokePlan(entry, installation.package_digest, present, absent)


def revoke_skill(
    store: Store,
    name: str,
    project_dir: Path | None = None,
    *,
    approve: bool,
    expected_revision: int | None = None,
    fault: Fault = no_fault,
) -> RevokeResult:
    """Move the packages aside, mark the skill revoked, then delete them; restore on any failure.
    Without ``approve``: every check, then ``SR_RECORD_APPROVAL_REQUIRED`` saying what would change."""
    if not approve or expected_revision is None:
        plan = plan_revoke(store, name, project_dir, expected_revision=expected_revision)
        would, revision = plan.describe().removeprefix("would "), plan.entry.revision
        if not approve:
            details = {
                "name": name,
                "revision": revision,
                "packageDigest": plan.package_digest,
                "remove": [str(p) for p in plan.present],
                "alreadyAbsent": [str(p) for p in plan.absent],
            }
            raise approval_required(would, details, revision=revision)
        command = _command("revoke", name, project_dir=project_dir)
        require_pinned(expected_revision, name, revision, would=would, command=command)
    with package_transaction(store, name, fault) as (journals, warnings):
        plan = plan_revoke(store, name, project_dir, expected_revision=expected_revision)
        now = store.now()
        staged = stage_removal(
            plan.present + plan.absent, plan.package_digest, name=name, journals=journals, fault=fault
        )

        def change(current: StoreEntry) -> StoreEntry:
            if current.entry_digest != plan.entry.entry_digest:
                raise LifecycleError(
                    "SR_RECORD_REVISION_CONFLICT", f"skill {name!r} changed while revoking it"
                )
            return lifecycle.revoke(current, now)

        try:
            fault("revoke.commit")
            new = store.update(
                name,
                change,
                AuditNote(kind="revoke", digests={"package": plan.package_digest}),
                expected_revision=plan.entry.revision,
            )
        except BaseException:
            staged.rollback()
            raise
        leftovers = staged.finish(fault)
    return RevokeResult(
        new.name,
        new.revision,
        plan.package_digest,
        tuple(str(p) for p in staged.removed),
        tuple(str(p) for p in staged.absent),
        tuple(str(p) for p in leftovers),
        warnings,
    )
