"""Use case: write one skill with every document to an export file (``skillreel export``): 0600,
atomic, Ed25519-signed on request, audited as ``export`` (a failed write too); or its approved
revision as a runnable Playwright script (``skillreel export NAME --playwright FILE.py``)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..agent_skills.playwright_script import render_playwright_script
from ..errors import LifecycleError, RecordError
from ..model import lifecycle
from ..model.base import check_skill_name
from ..model.entry import StoreEntry
from ..store import AuditNote, Store, signing
from ..store.transfer import check_output, export_bytes, export_document, write_private


@dataclass(frozen=True)
class ExportResult:
    name: str
    revision: int
    path: Path
    export_digest: str
    signed_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "revision": self.revision,
            "path": str(self.path),
            "exportDigest": self.export_digest,
            "signedBy": self.signed_by,
        }


def export_skill(
    store: Store,
    name: str,
    out: Path,
    *,
    force: bool = False,
    sign_key: Path | None = None,
    expected_revision: int | None = None,
) -> ExportResult:
    """Write the current entry as one export file (0600, atomic), Ed25519-signed with ``sign_key``
    if given; audited as ``export`` once written (a failed write as a failed ``export``; a file
    whose event cannot be written is removed)."""
    key = signing.load_signing_key(sign_key) if sign_key is not None else None
    entry = store.get(check_skill_name(name))
    lifecycle.check_revision(entry, expected_revision)
    document = export_document(entry, store.now())
    if key is not None:
        document = signing.sign_export(document, key)
    _write_audited(store, entry, out, export_bytes(document), {"export": document.export_digest}, force=force)
    signer = document.signature.key_id if document.signature else None
    return ExportResult(name, entry.revision, out, document.export_digest, signer)


@dataclass(frozen=True)
class ScriptResult:
    """A skill written as a Playwright script (``export --playwright``)."""

    name: str
    revision: int
    path: Path
    script_digest: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "revision": self.revision,
            "path": str(self.path),
            "scriptDigest": self.script_digest,
        }


SCRIPT_STATES = ("approved", "validated", "enabled")


def export_playwright(
    store: Store, name: str, out: Path, *, force: bool = False, expected_revision: int | None = None
) -> ScriptResult:
    """Write the approved revision of ``name`` as a Playwright sync Python script
    (``agent_skills.playwright_script``): 0600, atomic, refused over an existing file (unless
    ``force``) and over a symlink; only an approved, validated or enabled revision, at
    ``expected_revision`` when given. Audited as ``export`` with the script's digest."""
    entry = store.get(check_skill_name(name))
    lifecycle.check_revision(entry, expected_revision)
    if entry.status not in SCRIPT_STATES:
        raise LifecycleError(
            "SR_RECORD_STATE_INVALID",
            f"only an approved revision is exported as a script; skill {name!r} is {entry.status} "
            f"(review it first: `skillreel review {name}`)",
        )
    data = render_playwright_script(entry).encode()
    digests = {"script": "sha256:" + hashlib.sha256(data).hexdigest()}
    _write_audited(store, entry, out, data, digests, force=force)
    return ScriptResult(name, entry.revision, out, digests["script"])


def _write_audited(
    store: Store, entry: StoreEntry, out: Path, data: bytes, digests: dict[str, str], *, force: bool
) -> None:
    """Write ``data`` to ``out`` (0600, atomic) and audit it as ``export`` once written (a failed
    write as a failed ``export``; a file whose event cannot be written is removed)."""
    check_output(out, force=force)
    note = AuditNote(kind="export", name=entry.name, revision=entry.revision, digests=digests)
    try:
        write_private(out, data, force=force)
    except RecordError as exc:
        store.audit(replace(note, outcome="failed", code=exc.code))
        raise
    try:  # the export is audited once it exists; a file the log cannot record does not stay
        store.audit(replace(note, digests={**digests, "entry": entry.entry_digest}))
    except BaseException:
        out.unlink(missing_ok=True)
        raise
