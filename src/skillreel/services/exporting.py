"""Use case: write one skill with every document to an export file (``skillreel export``): 0600,
atomic, Ed25519-signed on request, audited as ``export`` (a failed write too)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import RecordError
from ..model.base import check_skill_name
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
    store: Store, name: str, out: Path, *, force: bool = False, sign_key: Path | None = None
) -> ExportResult:
    """Write the current entry as one export file (0600, atomic), Ed25519-signed with ``sign_key``
    if given; audited as ``export`` once written (a failed write as a failed ``export``; a file
    whose event cannot be written is removed)."""
    key = signing.load_signing_key(sign_key) if sign_key is not None else None
    entry = store.get(check_skill_name(name))
    document = export_document(entry, store.now())
    if key is not None:
        document = signing.sign_export(document, key)
    check_output(out, force=force)
    digests = {"export": document.export_digest}
    try:
        write_private(out, export_bytes(document), force=force)
    except RecordError as exc:
        store.audit(
            AuditNote(
                kind="export",
                name=name,
                revision=entry.revision,
                outcome="failed",
                code=exc.code,
                digests=digests,
            )
        )
        raise
    try:  # the export is audited once it exists; a file the log cannot record does not stay
        store.audit(
            AuditNote(
                kind="export",
                name=name,
                revision=entry.revision,
                digests={**digests, "entry": entry.entry_digest},
            )
        )
    except BaseException:
        out.unlink(missing_ok=True)
        raise
    signer = document.signature.key_id if document.signature else None
    return ExportResult(name, entry.revision, out, document.export_digest, signer)
