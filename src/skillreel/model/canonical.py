"""Canonical JSON (RFC 8785) and domain-separated, tagged SHA-256 digests.

A digest is ``"sha256:" + hex(sha256(tag + b"\\x00" + canonical_json(payload)))`` where ``tag``
names the document type and its version (``skillreel.draft/v1``). The tag keeps a digest of
one document type from ever being accepted as the digest of another.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Final

import rfc8785

DIGEST_RE: Final = re.compile(r"^sha256:[0-9a-f]{64}$")
GENESIS_DIGEST: Final = "sha256:" + "0" * 64

TAGS: Final = frozenset(
    {
        "skillreel.draft/v1",
        "skillreel.approval/v1",
        "skillreel.replay-report/v1",
        "skillreel.evidence/v1",
        "skillreel.environment/v1",
        "skillreel.html-fixture/v1",
        "skillreel.url-target/v1",
        "skillreel.storage-state/v1",
        "skillreel.store-entry/v1",
        "skillreel.audit-event/v1",
        "skillreel.export/v1",
        "skillreel.package/v1",
        "skillreel.policy/v1",
        "skillreel.events/v1",
        "skillreel.value/v1",
        "skillreel.page-state/v1",
        "skillreel.heal-proposal/v1",
        "skillreel.run/v1",
        "skillreel.batch-rows/v1",
    }
)


def canonical_json(value: Any) -> bytes:
    """RFC 8785 canonical bytes of a JSON-compatible value (no floats in our documents)."""
    return bytes(rfc8785.dumps(value))


def tagged_digest(tag: str, payload: Any) -> str:
    """Digest of ``payload``'s canonical JSON under the domain ``tag``."""
    if tag not in TAGS:
        raise ValueError(f"unknown digest tag {tag!r}")
    h = hashlib.sha256()
    h.update(tag.encode("ascii"))
    h.update(b"\x00")
    h.update(canonical_json(payload))
    return "sha256:" + h.hexdigest()


def bytes_digest(tag: str, data: bytes) -> str:
    """Digest of raw bytes (HTML fixtures, storage state files, package files) under ``tag``."""
    if tag not in TAGS:
        raise ValueError(f"unknown digest tag {tag!r}")
    return "sha256:" + hashlib.sha256(tag.encode("ascii") + b"\x00" + data).hexdigest()
