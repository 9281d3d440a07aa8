"""Use case: store an exported skill, re-validating everything (``skillreel import``): a new name
at revision 1, or (``replace`` + ``approve``) the next revision of an existing skill that is not
enabled. ``enabled`` becomes ``validated``; with trusted keys only a signed export is accepted.

An import whose signature was not verified against a trusted key (``trust``) arrives as a draft
that needs a review in this store, unless the policy's ``unsignedImports`` is ``keep``: an approval
made elsewhere by someone this store cannot identify does not count here."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import LifecycleError
from ..model import lifecycle
from ..model.entry import StoreEntry
from ..model.export import ExportDocument
from ..store import AuditNote, Store, signing
from ..store.transfer import imported_entry
from ..user_files import parse_document, read_user_file
from .guards import approval_required, require_pinned


@dataclass(frozen=True)
class ImportResult:
    name: str
    revision: int
    status: str
    replaced: bool
    export_digest: str
    entry_digest: str
    signed_by: str | None  # the signature's key id, if the export is signed
    verified: bool  # the signature was checked against a trusted key

    def to_json(self) -> dict[str, Any]:
        signature = None if self.signed_by is None else {"keyId": self.signed_by, "verified": self.verified}
        return {
            "name": self.name,
            "revision": self.revision,
            "status": self.status,
            "replaced": self.replaced,
            "exportDigest": self.export_digest,
            "entryDigest": self.entry_digest,
            "signature": signature,
        }


def read_export(path: Path) -> ExportDocument:
    """An export file, re-validated completely (every nested schema and digest)."""
    data = read_user_file(path, what="export file")
    return parse_document(ExportDocument, data, what="export file")


def import_skill(
    store: Store,
    path: Path,
    *,
    approve: bool,
    replace: bool = False,
    expected_revision: int | None = None,
    trust: Sequence[Path] = (),
) -> ImportResult:
    """Store an exported skill: a new name at revision 1, or (``replace`` + ``approve``) the next
    revision of an existing skill that is not enabled. ``enabled`` becomes ``validated``.
    With ``trust`` (public key files), only an export signed by one of those keys is accepted."""
    trusted = signing.load_trusted_keys(trust)
    document, now = read_export(path), store.now()
    if trusted:
        signing.verify_export(document, trusted)
    source = document.entry
    as_draft = not trusted and store.policy().unsigned_import_status == "draft"
    note = AuditNote(kind="import", digests={"export": document.export_digest}, actor="import")
    existing = store.find(source.name)
    if existing is None:
        stored = store.insert(imported_entry(source, 1, now, as_draft=as_draft), note)
    else:
        stored = _replace(
            store,
            existing,
            source,
            note,
            replace=replace,
            approve=approve,
            expected_revision=expected_revision,
            now=now,
            as_draft=as_draft,
            command=shlex.join(["skillreel", "import", str(path), "--replace", *_trusting(trust)]),
        )
    signer = document.signature.key_id if document.signature else None
    return ImportResult(
        stored.name,
        stored.revision,
        stored.status,
        existing is not None,
        document.export_digest,
        stored.entry_digest,
        signer,
        bool(trusted),
    )


def _trusting(trust: Sequence[Path]) -> list[str]:
    return [word for key in trust for word in ("--trust", str(key))]


def _replace(
    store: Store,
    existing: StoreEntry,
    source: StoreEntry,
    note: AuditNote,
    *,
    replace: bool,
    approve: bool,
    expected_revision: int | None,
    now: str,
    as_draft: bool,
    command: str,
) -> StoreEntry:
    """``command``: the import as given (a refusal that wants a revision says what to run)."""
    name = existing.name
    if not replace:
        raise LifecycleError(
            "SR_RECORD_EXISTS", f"a skill named {name!r} already exists (import with --replace --approve)"
        )
    lifecycle.check_revision(existing, expected_revision)
    change: Callable[[StoreEntry], StoreEntry] = lambda cur: _replacing(cur, source, now, as_draft)  # noqa: E731
    preview = change(existing)
    would = (
        f"replace skill {name!r} ({existing.status}, revision {existing.revision}) with the imported "
        f"one as revision {preview.revision} ({preview.status})"
    )
    if not approve:
        details = {"name": name, "revision": existing.revision, "newStatus": preview.status}
        raise approval_required(would, details, revision=existing.revision)
    require_pinned(expected_revision, name, existing.revision, would=would, command=command)
    return store.update(name, change, note, expected_revision=existing.revision)


def _replacing(current: StoreEntry, source: StoreEntry, now: str, as_draft: bool) -> StoreEntry:
    if current.status == "enabled":
        raise LifecycleError(
            "SR_RECORD_STATE_INVALID",
            f"cannot replace enabled skill {current.name!r} by an import (revoke it first)",
        )
    return imported_entry(source, current.revision + 1, max(now, current.updated_at), as_draft=as_draft)
