"""Ed25519-signed exports: sign, verify against trusted keys, refuse anything else."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.rsa import generate_private_key

from skillreel.errors import InputError, RecordError
from skillreel.model.export import ExportDocument, Signature
from skillreel.store.signing import key_id, load_signing_key, load_trusted_keys, sign_export, verify_export
from skillreel.store.transfer import export_document
from tests.support import factory
from tests.support.factory import T1, write_keys


def signed(tmp_path: Path) -> tuple[ExportDocument, Path]:
    private, public = write_keys(tmp_path)
    return sign_export(export_document(factory.entry(), T1), load_signing_key(private)), public


def test_a_signed_export_verifies_with_its_key(tmp_path: Path) -> None:
    document, public = signed(tmp_path)
    trusted = load_trusted_keys([public])
    assert document.signature is not None
    assert verify_export(ExportDocument.parse(document.to_json()), trusted) == document.signature.key_id
    assert document.signature.key_id == key_id(next(iter(trusted.values())))
    assert document.export_digest == export_document(factory.entry(), T1).export_digest


def code(call: Callable[[], object]) -> str:
    with pytest.raises(RecordError) as err:
        call()
    return err.value.code


def test_unsigned_unknown_key_and_bad_signatures_are_refused(tmp_path: Path) -> None:
    document, public = signed(tmp_path)
    _, other = write_keys(tmp_path, "other")
    trusted = load_trusted_keys([public])
    unsigned = export_document(factory.entry(), T1)
    assert code(lambda: verify_export(unsigned, trusted)) == "SR_RECORD_SIGNATURE_INVALID"
    assert code(lambda: verify_export(document, load_trusted_keys([other]))) == "SR_RECORD_SIGNATURE_INVALID"
    assert document.signature is not None
    value = document.signature.value
    wrong = Signature(key_id=document.signature.key_id, value=("B" if value[0] != "B" else "C") + value[1:])
    forged = document.model_copy(update={"signature": wrong})
    assert code(lambda: verify_export(forged, trusted)) == "SR_RECORD_SIGNATURE_INVALID"
    moved = ExportDocument.build(
        entry=factory.entry("another-skill"), exported_at=T1, signature=document.signature
    )  # a real signature over another export
    assert code(lambda: verify_export(moved, trusted)) == "SR_RECORD_SIGNATURE_INVALID"


def test_key_files_must_be_the_right_kind(tmp_path: Path) -> None:
    private, public = write_keys(tmp_path)
    rsa = tmp_path / "rsa.pem"
    rsa.write_bytes(
        generate_private_key(public_exponent=65537, key_size=1024).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    for call in (
        lambda: load_signing_key(public),
        lambda: load_signing_key(rsa),
        lambda: load_trusted_keys([private]),
        lambda: load_signing_key(tmp_path / "missing.pem"),
    ):
        with pytest.raises(InputError):
            call()
    link = tmp_path / "link.pem"
    link.symlink_to(private)
    with pytest.raises(InputError) as err:
        load_signing_key(link)
    assert err.value.code == "SR_RECORD_INPUT_NOT_REGULAR"


def test_a_signing_key_others_may_read_is_refused(tmp_path: Path) -> None:
    """F7 (issue 30): a 0644 key was used silently. On main this loads the key."""
    private, _ = write_keys(tmp_path)
    private.chmod(0o644)
    with pytest.raises(InputError) as err:
        load_signing_key(private)
    assert err.value.code == "SR_RECORD_SECRET_FILE_EXPOSED"
    assert "chmod 600" in err.value.message
    private.chmod(0o600)
    load_signing_key(private)  # owner-only: used


def test_an_export_is_never_a_valid_bundle_nor_a_bundle_a_valid_export(tmp_path: Path) -> None:
    """F7 (issue 30): exports and fleet bundles shared one signature domain. On main there is no
    bundle domain (``signing.BUNDLE`` does not exist), and a bundle verified as an export."""
    from skillreel.store import signing

    private, public = write_keys(tmp_path)
    key, trusted = load_signing_key(private), load_trusted_keys([public])
    plain = export_document(factory.entry(), T1)
    export = sign_export(plain, key)
    bundle = sign_export(plain, key, domain=signing.BUNDLE)
    assert export.export_digest == bundle.export_digest  # the same document, signed for two uses
    assert verify_export(export, trusted) == verify_export(bundle, trusted, domain=signing.BUNDLE)
    assert code(lambda: verify_export(bundle, trusted)) == "SR_RECORD_SIGNATURE_INVALID"
    assert (
        code(lambda: verify_export(export, trusted, domain=signing.BUNDLE)) == "SR_RECORD_SIGNATURE_INVALID"
    )
    assert len({signing.EXPORT, signing.BUNDLE, signing.TASK}) == 3


def test_an_export_signed_before_the_domains_were_split_still_verifies(tmp_path: Path) -> None:
    """Exports keep the domain they always had (``skillreel.export/v1``): a signature made the old
    way (computed here by hand, as the first version did) still imports."""
    import base64

    from skillreel.model.export import Signature as Sig

    private, public = write_keys(tmp_path)
    key = load_signing_key(private)
    plain = export_document(factory.entry(), T1)
    raw = key.sign(b"skillreel.export/v1\x00" + plain.export_digest.encode("ascii"))
    value = base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")
    old = ExportDocument.build(
        entry=plain.entry, exported_at=T1, signature=Sig(key_id=key_id(key.public_key()), value=value)
    )
    assert verify_export(old, load_trusted_keys([public])) == key_id(key.public_key())
