"""The signed skill bundle a fleet task carries, and the worker's checks on it before any browser.

The bundle is the export document (``skillreel.export/v1``, :mod:`skillreel.store.transfer`) of the
skill as the coordinating store holds it, Ed25519-signed with the coordinator's key in the bundle's
own signature domain (:data:`skillreel.store.signing.BUNDLE`: a signed export is never a valid
bundle, a bundle never a valid signed export). A worker opens it in this order, each refusal its own
code and nothing run:

1. it parses strictly, every nested digest recomputed: a digest that does not match is
   ``SR_REPLAY_FLEET_BUNDLE_TAMPERED``, anything else unreadable ``SR_REPLAY_FLEET_BUNDLE_INVALID``;
2. it is signed (``SR_REPLAY_FLEET_BUNDLE_UNSIGNED``) by a key the worker trusts
   (``SR_REPLAY_FLEET_SIGNER_UNTRUSTED``), and the signature verifies over the recomputed export
   digest (``SR_REPLAY_FLEET_BUNDLE_TAMPERED``);
3. the skill is validated or enabled in the coordinating store (``SR_REPLAY_FLEET_NOT_VALIDATED``):
   a worker replays only what a reviewer approved and a replay proved there;
4. its target is a URL (``SR_REPLAY_FLEET_TARGET_UNSUPPORTED``): a worker has no HTML fixture or
   storage-state file of the coordinator's (a vault login by name is fine: the worker's vault).
"""

from __future__ import annotations

from collections.abc import Mapping

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..errors import ReplayError, SkillreelError
from ..model.entry import StoreEntry
from ..model.environment import HtmlTarget
from ..model.export import ExportDocument
from ..store import Store, signing
from ..store.transfer import export_bytes, export_document
from ..user_files import parse_document

RUNNABLE = frozenset({"validated", "enabled"})
MAX_BUNDLE_BYTES = 2 * 1024 * 1024


def sign_bundle(entry: StoreEntry, now: str, key: Ed25519PrivateKey) -> ExportDocument:
    """The bundle for ``entry``: its export document, signed with ``key`` in the bundle's domain."""
    return signing.sign_export(export_document(entry, now), key, domain=signing.BUNDLE)


def bundle_text(document: ExportDocument) -> str:
    """The bundle as a task carries it (the export file's bytes, as text)."""
    return export_bytes(document).decode()


def check_fleet_target(entry: StoreEntry) -> None:
    """A worker can replay only a skill on a URL target signed in by nothing or by a vault login."""
    environment = entry.draft.environment
    if isinstance(environment.target, HtmlTarget):
        raise ReplayError(
            "SR_REPLAY_FLEET_TARGET_UNSUPPORTED",
            f"skill {entry.name!r} replays on a local HTML fixture, which a worker does not have",
        )
    if environment.login is None and environment.storage_state_digest is not None:
        raise ReplayError(
            "SR_REPLAY_FLEET_TARGET_UNSUPPORTED",
            f"skill {entry.name!r} signs in with a storage-state file, which a worker does not have "
            "(bind it to a vault login: `skillreel login`)",
        )


class SignedBundles:
    """The fleet's ``services.fleet_batching.Bundler``: a skill checked as a worker will check it
    (:func:`check_runnable`, :func:`check_fleet_target`), signed into the bundle a task carries."""

    def check(self, entry: StoreEntry) -> None:
        check_runnable(entry)
        check_fleet_target(entry)

    def sign(self, entry: StoreEntry, now: str, key: Ed25519PrivateKey) -> tuple[ExportDocument, str]:
        document = sign_bundle(entry, now, key)
        return document, bundle_text(document)


def check_fleet_skill(store: Store, name: str) -> StoreEntry:
    """The skill a fleet may run: validated or enabled, on a URL target (nothing sent otherwise)."""
    entry = store.get(name)
    SignedBundles().check(entry)
    return entry


def check_runnable(entry: StoreEntry) -> None:
    if entry.status not in RUNNABLE:
        raise ReplayError(
            "SR_REPLAY_FLEET_NOT_VALIDATED",
            f"skill {entry.name!r} is {entry.status} in the coordinating store; a worker runs only "
            "validated or enabled skills",
        )


def open_bundle(text: str, trusted: Mapping[str, Ed25519PublicKey]) -> tuple[ExportDocument, str]:
    """The verified bundle and the id of the key that signed it (module docstring)."""
    if len(text) > MAX_BUNDLE_BYTES:
        raise ReplayError("SR_REPLAY_FLEET_BUNDLE_INVALID", "the bundle is larger than 2 MiB")
    try:
        document = parse_document(ExportDocument, text, what="skill bundle")
    except SkillreelError as exc:
        code = (
            "SR_REPLAY_FLEET_BUNDLE_TAMPERED"
            if exc.code == "SR_RECORD_DIGEST_MISMATCH"
            else "SR_REPLAY_FLEET_BUNDLE_INVALID"
        )
        raise ReplayError(code, exc.message) from exc
    signature = document.signature
    if signature is None:
        raise ReplayError("SR_REPLAY_FLEET_BUNDLE_UNSIGNED", "the skill bundle is not signed")
    if signature.key_id not in trusted:
        raise ReplayError(
            "SR_REPLAY_FLEET_SIGNER_UNTRUSTED",
            f"the skill bundle is signed by {signature.key_id}, a key this worker does not trust",
        )
    try:
        signer = signing.verify_export(document, trusted, domain=signing.BUNDLE)
    except SkillreelError as exc:
        raise ReplayError(
            "SR_REPLAY_FLEET_BUNDLE_TAMPERED", "the skill bundle's signature does not verify"
        ) from exc
    check_runnable(document.entry)
    check_fleet_target(document.entry)
    return document, signer
