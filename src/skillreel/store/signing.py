"""Ed25519 signatures on exports: who vouches for an exported skill.

``export --sign KEY.pem`` signs ``b"skillreel.export/v1\\x00" + exportDigest`` with an Ed25519
private key (PKCS#8 PEM, unencrypted); the signature sits beside the digest, outside it.
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
from collections.abc import Iterable, Mapping
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..errors import InputError, RecordError
from ..model.export import ExportDocument, Signature
from ..user_files import read_user_file

MAX_KEY_BYTES = 16 * 1024
_DOMAIN = b"skillreel.export/v1\x00"


def key_id(public: Ed25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "ed25519:" + hashlib.sha256(raw).hexdigest()[:32]


def load_signing_key(path: Path) -> Ed25519PrivateKey:
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


def sign_export(document: ExportDocument, key: Ed25519PrivateKey) -> ExportDocument:
    value = base64.urlsafe_b64encode(key.sign(_DOMAIN + document.export_digest.encode("ascii")))
    signature = Signature(key_id=key_id(key.public_key()), value=value.rstrip(b"=").decode("ascii"))
    return ExportDocument.build(entry=document.entry, exported_at=document.exported_at, signature=signature)


def verify_export(document: ExportDocument, trusted: Mapping[str, Ed25519PublicKey]) -> str:
    """The id of the trusted key that signed ``document``; ``SR_RECORD_SIGNATURE_INVALID`` if the
    signature is missing, from an unknown key or does not verify."""
    signature = document.signature
    if signature is None:
        raise RecordError("SR_RECORD_SIGNATURE_INVALID", "the export is not signed")
    public = trusted.get(signature.key_id)
    if public is None:
        raise RecordError("SR_RECORD_SIGNATURE_INVALID", "the export is signed by a key that is not trusted")
    try:
        raw = base64.urlsafe_b64decode(signature.value + "==")
        public.verify(raw, _DOMAIN + document.export_digest.encode("ascii"))
    except (InvalidSignature, binascii.Error, ValueError) as exc:
        raise RecordError("SR_RECORD_SIGNATURE_INVALID", "the export's signature does not verify") from exc
    return signature.key_id
