"""Export and import of one skill (``skillreel.export/v1``).

An export holds the current entry with every nested document; reading one back re-validates all
of it (``user_files.parse_document``). :func:`imported_entry` is the pure rule for what an import
stores: the same documents as a fresh local history (revision 1, or the next revision of the skill
it replaces); ``enabled`` becomes ``validated`` and the installation is dropped, because an
installation on another machine says nothing about this one. An import whose signature was not
verified against a trusted key arrives as a draft (unless the policy's ``unsignedImports`` is
``keep``): an approval made elsewhere, by someone this store cannot identify, does not count here.
"""

from __future__ import annotations

import stat
from pathlib import Path

from .. import private_files
from ..errors import RecordError
from ..model.entry import StoreEntry
from ..model.export import ExportDocument

EXPORT_MODE = 0o600


def export_document(entry: StoreEntry, now: str) -> ExportDocument:
    return ExportDocument.build(entry=entry, exported_at=now)


def export_bytes(document: ExportDocument) -> bytes:
    return document.model_dump_json(by_alias=True, indent=2).encode() + b"\n"


def imported_entry(source: StoreEntry, revision: int, now: str, *, as_draft: bool = False) -> StoreEntry:
    """The entry an import stores (pure): ``revision`` is 1 for a new name, else the next one.
    ``as_draft``: a draft that needs a new review here (the approval, the last report and any heal
    proposal of the other store are dropped: this store's reviewer has not seen it)."""
    if as_draft:
        return source.evolve(
            revision=revision,
            status="draft",
            approval=None,
            last_report=None,
            installation=None,
            heal_proposal=None,
            updated_at=max(now, source.updated_at),
        )
    status = "validated" if source.status == "enabled" else source.status
    proposal = source.heal_proposal
    if proposal is not None:
        proposal = proposal.model_copy(update={"base_revision": revision})
    return source.evolve(
        revision=revision,
        status=status,
        installation=None,
        heal_proposal=proposal,
        updated_at=max(now, source.updated_at),
    )


def check_output(path: Path, *, force: bool) -> None:
    """Refuse an existing output (unless ``force``), a symlink, or a missing directory early."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise RecordError("SR_RECORD_OUTPUT_FAILED", "the output path cannot be inspected") from exc
    if info is not None and not stat.S_ISREG(info.st_mode):  # --force would not help
        raise RecordError("SR_RECORD_OUTPUT_FAILED", "the output path exists and is not a regular file")
    if info is not None and not force:
        raise RecordError("SR_RECORD_OUTPUT_EXISTS", "the output file already exists (pass --force)")
    if not path.parent.is_dir():
        raise RecordError("SR_RECORD_OUTPUT_FAILED", "the output directory does not exist")


def write_private(path: Path, data: bytes, *, force: bool) -> None:
    """Write the export ``data`` to ``path`` atomically with mode 0600 (``private_files``): linked
    into place (refusing an existing file) or, with ``force``, renamed over it. On any failure
    nothing is left behind; every failure is an output code."""
    check_output(path, force=force)
    try:
        private_files.write_private(path, data, mode=EXPORT_MODE, replace=force)
    except private_files.TemporaryFileError as exc:
        raise RecordError("SR_RECORD_OUTPUT_FAILED", "the output directory is not writable") from exc
    except FileExistsError as exc:
        raise RecordError("SR_RECORD_OUTPUT_EXISTS", "the output file already exists (pass --force)") from exc
    except OSError as exc:
        raise RecordError(
            "SR_RECORD_OUTPUT_FAILED",
            f"the output file could not be written ({exc.strerror or type(exc).__name__})",
        ) from exc
