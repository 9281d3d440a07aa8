"""Ed25519 signatures: who vouches for an exported skill, a fleet bundle or a fleet task.

Each use signs in its own **domain**, a context string prefixed to the signed bytes, so a
signature made for one is never valid for another (:data:`EXPORT`, :data:`BUNDLE`, :data:`TASK`):

- ``export --sign KEY.pem`` signs ``b"skillreel.export/v1\\x00" + exportDigest`` (unchanged since
  the first version, so exports signed before the domains were split still import);
- a fleet bundle (the same export document) signs ``b"skillreel/fleet-bundle/v1\\x00" +
  exportDigest``: an export is never a valid bundle, a bundle never a valid signed export;
- a fleet task's envelope signs ``b"skillreel/fleet-task/v1\\x00" + envelopeDigest``.

Keys are Ed25519 private keys (PKCS#8 PEM, unencrypted), readable by their owner only
(``SR_RECORD_SECRET_FILE_EXPOSED`` otherwise); the signature sits beside the digest, outside it.
``import --trust PUB.pem`` (repeatable) accepts only exports signed by one of those public keys.
Create a key pair with OpenSSL::

    openssl genpkey -algorithm ed25519 -out skillreel-signing.pem
    openssl pkey -in skillreel-signing.pem -pubout -out skillreel-signing.pub

A key's id is ``ed25519:`` + the first 32 hex digits of SHA-256 over its raw public bytes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..errors import InputError, RecordError
from ..model.export import ExportDocument, Signature
from ..user_files import read_user_file

MAX_KEY_BYTES = 16 * 1024
EXPORT: Final = b"skillreel.export/v1\x00"
BUNDLE: Final = b"skillreel/fleet-bundle/v1\x00"
TASK: Final = b"skillreel/fleet-task/v1\x00"


def key_id(public: Ed25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "ed25519:" + hashlib.sha256(raw).hexdigest()[:32]


def check_owner_only(path: Path, what: str) -> None:
    """``SR_RECORD_SECRET_FILE_EXPOSED`` when ``path`` (followed, as it is read) is readable or writable by
    its group or others: a secret anyone else on the machine may read is not kept."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # the reader says what is wrong with it
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InputError(
            "SR_RECORD_SECRET_FILE_EXPOSED",
            f"the {what} {path.name} is readable by others (mode {stat.S_IMODE(mode):04o}): "
            f"`chmod 600 {path.name}`, and make a new one if others may have read it",
        )


def load_signing_key(path: Path) -> Ed25519PrivateKey:
    check_owner_only(path, "signing key")
    data = read_user_file(path, what="signing key", limit=MAX_KEY_BYTES)
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise InputError(
            "SR_RECORD_INPUT_MALFORMED", "the signing key is not an unencrypted PEM private key"
        ) from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise InputError("SR_RECORD_INPUT_MALFORMED", "the signing key is not an Ed25519 key")
    return key


def load_trusted_keys(paths: Iterable[Path]) -> dict[str, Ed25519PublicKey]:
    """The trusted public keys (PEM), by key id."""
    trusted: dict[str, Ed25519PublicKey] = {}
    for path in paths:
        data = read_user_file(path, what="trusted key", limit=MAX_KEY_BYTES)
        try:
            key = serialization.load_pem_public_key(data)
        except (ValueError, TypeError) as exc:
            raise InputError("SR_RECORD_INPUT_MALFORMED", "a trusted key is not a PEM public key") from exc
        if not isinstance(key, Ed25519PublicKey):
            raise InputError("SR_RECORD_INPUT_MALFORMED", "a trusted key is not an Ed25519 key")
        trusted[key_id(key)] = key
    return trusted


def sign_digest(domain: bytes, digest: str, key: Ed25519PrivateKey) -> Signature:
    """``key``'s signature of ``digest`` in ``domain`` (:data:`EXPORT`, :data:`BUNDLE`, :data:`TASK`)."""
    value = base64.urlsafe_b64encode(key.sign(domain + digest.encode("ascii")))
    return Signature(key_id=key_id(key.public_key()), value=value.rstrip(b"=").decode("ascii"))


def verify_digest(
    domain: bytes,
    digest: str,
    signature: Signature | None,
    trusted: Mapping[str, Ed25519PublicKey],
    what: str,
) -> str:
    """The id of the trusted key whose ``signature`` of ``digest`` in ``domain`` verifies;
    ``SR_RECORD_SIGNATURE_INVALID`` if it is missing, from an unknown key or does not verify."""
    if signature is None:
        raise RecordError("SR_RECORD_SIGNATURE_INVALID", f"the {what} is not signed")
    public = trusted.get(signature.key_id)
    if public is None:
        raise RecordError("SR_RECORD_SIGNATURE_INVALID", f"the {what} is signed by a key that is not trusted")
    try:
        raw = base64.urlsafe_b64decode(signature.value + "==")
        public.verify(raw, domain + digest.encode("ascii"))
    except (InvalidSignature, binascii.Error, ValueError) as exc:
        raise RecordError("SR_RECORD_SIGNATURE_INVALID", f"the {what}'s signature does not verify") from exc
    return signature.key_id


def sign_export(
    document: ExportDocument, key: Ed25519PrivateKey, *, domain: bytes = EXPORT
) -> ExportDocument:
    signature = sign_digest(domain, document.export_digest, key)
    return ExportDocument.build(entry=document.entry, exported_at=document.exported_at, signature=signature)


def verify_export(
    document: ExportDocument, trusted: Mapping[str, Ed25519PublicKey], *, domain: bytes = EXPORT
) -> str:
    """The id of the trusted key that signed ``document`` in ``domain`` (an export's by default)."""
    what = "export" if domain == EXPORT else "skill bundle"
    return verify_digest(domain, document.export_digest, document.signature, trusted, what)
