"""Render an Agent Skills package for one enabled revision of a skill (ARCHITECTURE section 9).

A package is three files, rendered as exact bytes by a pure function of the store entry (and of
the :class:`Launcher` that ``scripts/replay`` names):

- ``SKILL.md``: YAML front matter (``name`` = the folder name, ``description`` of at most 1,024
  characters saying what the skill does and when to use it) and a body under 500 lines a coding
  agent can act on: parameters, capabilities, allowed origins, failure conditions and the exact
  command and MCP call that run it.
- ``recorded-skill.json``: digests and metadata only (entry, draft, approval, last replay,
  environment, per-file package digests, parameter flags). No selector, no URL path, no value.
- ``scripts/replay``: an executable that runs ``skillreel replay NAME "$@"``, so the CLI stays the
  authority that re-verifies everything before a browser starts. It runs the program that enabled
  the skill (:class:`Launcher`) while it exists, else the ``skillreel`` on ``PATH`` (a teammate's
  checkout of a committed package), else says what to install and import
  (``SR_RECORD_PROGRAM_MISSING``, exit 1). It never names a store: the caller's environment does,
  as for the CLI, and a missing store is a clear error, never a new empty one.

The **package digest** covers the exact bytes and the executable bit of every file, sorted by path,
under the ``skillreel.package/v1`` tag. ``recorded-skill.json`` cannot contain the digest of a set
it belongs to, so it lists the digests of the other two files; the store's ``Installation`` keeps
the digest of all three, and revoke checks the installed bytes against it.

User text (the description and the failure conditions) is flattened to one line per item, and any
``http(s)`` URL in it is cut down to its origin, so no path or URL token reaches a package file.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePath

from ..errors import InstallError, RecordError
from ..model.base import check_skill_name
from ..model.canonical import bytes_digest, tagged_digest
from ..model.entry import StoreEntry
from ..model.envelope import failed
from ..model.environment import HtmlTarget
from ..model.trust import TrustScore
from ..model.urls import origin_of
from ..store.db import ENV_ACTOR, ENV_HOME, ENV_MUST_EXIST, ENV_PACKAGE
from ..vault import parameter_listing
from .skill_md import render_skill_md

PACKAGE_TAG = "skillreel.package/v1"
MANIFEST_SCHEMA = "skillreel.recorded-skill/v1"
SKILL_MD = "SKILL.md"
MANIFEST = "recorded-skill.json"
REPLAY_SCRIPT = "scripts/replay"
PACKAGE_PATHS = (SKILL_MD, MANIFEST, REPLAY_SCRIPT)  # sorted by path, as the digest lists them


@dataclass(frozen=True)
class PackageFile:
    path: str  # relative, POSIX separators
    data: bytes
    executable: bool = False


@dataclass(frozen=True)
class Package:
    """The exact files of one skill package and the digest that binds them."""

    name: str
    revision: int
    files: tuple[PackageFile, ...]
    digest: str

    def file(self, path: str) -> PackageFile:
        return next(f for f in self.files if f.path == path)

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(f.path for f in self.files)


def file_digest(data: bytes) -> str:
    return bytes_digest(PACKAGE_TAG, data)


def package_digest(files: Iterable[PackageFile]) -> str:
    """The digest of a set of files: path, executable bit and exact bytes of each, sorted by path."""
    listing = sorted(files, key=lambda f: f.path)
    paths = [f.path for f in listing]
    if len(set(paths)) != len(paths):
        raise ValueError("duplicate package path")
    return tagged_digest(
        PACKAGE_TAG,
        {
            "schema": PACKAGE_TAG,
            "files": [
                {"path": f.path, "executable": f.executable, "digest": file_digest(f.data)} for f in listing
            ],
        },
    )


# --- user text ---------------------------------------------------------------------------------


def render_manifest(entry: StoreEntry, revision: int, digests: Mapping[str, str]) -> str:
    draft, env = entry.draft, entry.draft.environment
    approval, report = entry.approval, entry.last_report
    if approval is None or report is None:
        raise InstallError("SR_RECORD_INSTALL_FAILED", f"skill {entry.name!r} has no approval or report")
    target = env.target
    target_json: dict[str, object] = (
        {"kind": "html", "htmlDigest": target.html_digest}
        if isinstance(target, HtmlTarget)
        else {
            "kind": "url",
            "origin": origin_of(target.url),
            "urlDigest": target.url_digest,
            "allowedOrigins": list(target.allowed_origins),
        }
    )
    document = {
        "schema": MANIFEST_SCHEMA,
        "entry": {"name": entry.name, "revision": revision, "status": "enabled", "version": entry.version},
        "draft": {
            "draftDigest": draft.draft_digest,
            "eventsDigest": draft.events_digest,
            "capabilities": list(draft.capabilities),
            "actions": [{"id": a.id, "kind": a.kind} for a in draft.actions],
        },
        "approval": {
            "approvalDigest": approval.approval_digest,
            "reviewer": approval.reviewer,
            "approvedAt": approval.approved_at,
        },
        "lastReplay": {
            "reportDigest": report.report_digest,
            "finishedAt": report.finished_at,
            "healed": report.healed,
            "steps": len(report.steps),
        },
        "environment": {
            "environmentDigest": env.environment_digest,
            "target": target_json,
            "identity": env.identity,
            "storageStateDigest": env.storage_state_digest,
        },
        "parameters": parameter_listing(entry.name, draft.parameters),
        "provenance": [record.to_json() for record in entry.versions],
        "package": {"tag": PACKAGE_TAG, "files": dict(sorted(digests.items()))},
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Launcher:
    """The program that enabled the skill (absolute argv prefix: the Python that ran ``enable``
    with ``-P -m skillreel``), which ``scripts/replay`` runs first while it still exists and still
    has skillreel. The store is never part of it: the script's skillreel opens the store its caller's
    environment names, as the CLI does (issue 31 point 6: a committed package works on a teammate's
    machine)."""

    command: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.command or not PurePath(self.command[0]).is_absolute():
            raise ValueError("a launcher needs an absolute program")


# Exit status of a ``scripts/replay`` that finds no skillreel to run (``SR_RECORD_PROGRAM_MISSING``);
# never 127, which a shell uses for "command not found" and an agent cannot tell from a typo.
PROGRAM_MISSING = "SR_RECORD_PROGRAM_MISSING"
PROGRAM_MISSING_STATUS = 1
_HAS_SKILLREEL = 'import importlib.util as u, sys; sys.exit(u.find_spec("skillreel") is None)'


def _missing_program_lines(name: str) -> tuple[str, str]:
    """What a script with no skillreel says: on stderr, and as the ``--json`` envelope on stdout."""
    error = RecordError(
        PROGRAM_MISSING,
        f"no skillreel to replay {name}: the program that enabled it is gone and none is on PATH; "
        "install skillreel so `skillreel` is on PATH (`pipx install .` from a skillreel checkout), "
        f"import its signed export (`skillreel import {name}.json --trust KEY.pub`), "
        f"then `skillreel enable {name} --expected-revision N --approve` on this machine",
    )
    return f"scripts/replay: {PROGRAM_MISSING}: {error.message}", json.dumps(failed("replay", error))


def render_replay_script(name: str, launcher: Launcher) -> str:
    """The package's ``scripts/replay``: the program that enabled the skill while it still exists
    and has skillreel, else the ``skillreel`` on ``PATH``, else a clear ``SR_RECORD_PROGRAM_MISSING``
    (exit 1, an envelope on stdout with ``--json``). The store is the caller's, as for the CLI
    (``SKILLREEL_HOME`` or the default), and must already exist: never a new, empty one."""
    check_skill_name(name)
    program = shlex.quote(launcher.command[0])
    command = " ".join(shlex.quote(part) for part in launcher.command)
    stderr_line, envelope = _missing_program_lines(name)
    return (
        "#!/bin/sh\n"
        f"# Replays the reviewed skill {name} through the skillreel CLI, which stays the authority:\n"
        "# it re-verifies the approval, the digests and the environment before a browser starts.\n"
        "# Sensitive inputs come from the environment or the OS keyring, never from arguments.\n"
        "# It runs the skillreel that enabled it while that still exists, else the skillreel on PATH,\n"
        f"# on the store {ENV_HOME} names (or the default store), never a new, empty store.\n"
        "# The audit log names the replays it starts as coming from a package script.\n"
        f"{ENV_MUST_EXIST}=1\n"
        f"{ENV_ACTOR}=package-script\n"
        f"{ENV_PACKAGE}={name}\n"
        f"export {ENV_MUST_EXIST} {ENV_ACTOR} {ENV_PACKAGE}\n"
        f"if [ -x {program} ] && {program} -P -c {shlex.quote(_HAS_SKILLREEL)} 2>/dev/null; then\n"
        f'  exec {command} replay {name} "$@"\n'
        "fi\n"
        "if command -v skillreel >/dev/null 2>&1; then\n"
        f'  exec skillreel replay {name} "$@"\n'
        "fi\n"
        f"printf '%s\\n' {shlex.quote(stderr_line)} >&2\n"
        'for arg in "$@"; do\n'
        '  if [ "$arg" = --json ]; then\n'
        f"    printf '%s\\n' {shlex.quote(envelope)}\n"
        "    break\n"
        "  fi\n"
        "done\n"
        f"exit {PROGRAM_MISSING_STATUS}\n"
    )


def render_package(
    entry: StoreEntry, *, revision: int, launcher: Launcher, trust: TrustScore | None = None
) -> Package:
    """The package that enabling ``entry`` as ``revision`` with ``launcher`` installs, SKILL.md
    carrying the draft's track record ``trust`` then. Pure: same arguments, same bytes."""
    check_skill_name(entry.name)
    skill_md = PackageFile(SKILL_MD, render_skill_md(entry, revision, trust).encode())
    script = PackageFile(REPLAY_SCRIPT, render_replay_script(entry.name, launcher).encode(), executable=True)
    digests = {f.path: file_digest(f.data) for f in (skill_md, script)}
    manifest = PackageFile(MANIFEST, render_manifest(entry, revision, digests).encode())
    files = tuple(sorted((manifest, skill_md, script), key=lambda f: f.path))
    return Package(name=entry.name, revision=revision, files=files, digest=package_digest(files))
