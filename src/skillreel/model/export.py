"""The export document: one entry with every nested document, optionally Ed25519-signed.

The signature signs ``exportDigest`` and is excluded from it, so an unsigned export and its
signed twin carry the same digest. Import re-validates everything (``Document.parse``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from .base import Digest, DigestedDocument, Document, Label, Timestamp
from .entry import StoreEntry


class Signature(Document):
    alg: Literal["ed25519"] = "ed25519"
    key_id: Label
    value: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{86}$")]  # base64url, 64 bytes


class ExportDocument(DigestedDocument):
    digest_tag = "skillreel.export/v1"
    digest_field = "export_digest"
    digest_excludes = frozenset({"signature"})

    schema_: Literal["skillreel.export/v1"] = Field("skillreel.export/v1", alias="schema")
    entry: StoreEntry
    exported_at: Timestamp
    export_digest: Digest
    signature: Signature | None = None
