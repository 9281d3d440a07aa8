"""A fleet task as a worker receives it: its arguments, and the envelope that binds it to the
coordinator (``model/fleet.py``: :class:`~skillreel.model.fleet.FleetEnvelope`).

Anyone who can write to the broker can queue a task; the signed bundle alone says which skill, not
who asked for this row, with these inputs, now. So every task carries an envelope the coordinator
signed for it, and a worker runs a task only when, before any browser starts:

1. its arguments are ``(bundle, row, envelope)``: a text and two objects, nothing else, none huge
   (:func:`task_arguments`; otherwise ``SR_REPLAY_FLEET_BUNDLE_INVALID``);
2. the envelope is a ``skillreel.fleet-task/v1`` document signed (``SR_REPLAY_FLEET_TASK_INVALID``)
   by a key the worker trusts (``SR_REPLAY_FLEET_SIGNER_UNTRUSTED``), in the fleet task's own
   signature domain (``SR_REPLAY_FLEET_TASK_INVALID``), and its ``notAfter`` has
   not passed on this machine's clock (``SR_REPLAY_FLEET_TASK_EXPIRED``) (:func:`open_envelope`);
3. it vouches for this task: the run, the bundle's digest, the inputs' digest, the environment
   and the options (:func:`check_binding`, ``SR_REPLAY_FLEET_TASK_INVALID``);
4. its nonce was never seen: ``SET skillreel:fleet:nonce:NONCE NX`` expiring with the envelope
   (``fleet/claims.py``; seen before: ``SR_REPLAY_FLEET_TASK_REPLAYED``).

So a captured task cannot be run again, nor with other inputs, options or environment, nor after its
envelope expired: a skill deleted or revoked in the coordinating store is not run past the expiry of
the envelopes already sent. (Someone who can write to Redis can delete a nonce key: the expiry is the
bound that holds whatever they do.)
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from pydantic import ValidationError

from ..errors import ReplayError, SkillreelError
from ..model.fleet import FleetEnvelope, FleetRow, envelope_mismatch
from ..model.lifecycle import parse_timestamp
from ..model.limits import TASK_EXPIRES_MIN_RANGE
from ..store import signing

ARITY: Final = 3


def task_arguments(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> tuple[str, dict[str, Any], Any]:
    """``(bundle, row, envelope)`` from whatever the task was sent with; anything else is
    ``SR_REPLAY_FLEET_BUNDLE_INVALID`` (never a Celery failure)."""
    if kwargs or len(args) != ARITY:
        raise ReplayError(
            "SR_REPLAY_FLEET_BUNDLE_INVALID",
            f"a fleet task takes {ARITY} arguments (bundle, row, envelope), not "
            f"{len(args)} and {len(kwargs)} named",
        )
    bundle, row, envelope = args
    if not isinstance(bundle, str):  # its size is open_bundle's to check
        raise ReplayError("SR_REPLAY_FLEET_BUNDLE_INVALID", "the task's bundle is not a text")
    if not isinstance(row, dict) or not isinstance(envelope, dict):
        raise ReplayError("SR_REPLAY_FLEET_BUNDLE_INVALID", "the task's row and envelope are not objects")
    return bundle, row, envelope


def open_envelope(
    raw: Mapping[str, Any], trusted: Mapping[str, Ed25519PublicKey], now: datetime
) -> tuple[FleetEnvelope, timedelta]:
    """The verified envelope and how long it still lives (module docstring, step 2)."""
    try:
        envelope = FleetEnvelope.parse(raw)
    except (ValidationError, ValueError, TypeError) as exc:
        raise ReplayError("SR_REPLAY_FLEET_TASK_INVALID", "the task carries no readable envelope") from exc
    signature = envelope.signature
    if signature is not None and signature.key_id not in trusted:
        raise ReplayError(
            "SR_REPLAY_FLEET_SIGNER_UNTRUSTED",
            f"the task is signed by {signature.key_id}, a key this worker does not trust",
        )
    try:
        signing.verify_digest(
            signing.TASK, envelope.envelope_digest, envelope.signature, trusted, "task envelope"
        )
    except SkillreelError as exc:
        raise ReplayError("SR_REPLAY_FLEET_TASK_INVALID", exc.message) from exc
    issued, not_after = parse_timestamp(envelope.issued_at), parse_timestamp(envelope.not_after)
    if not_after - issued > timedelta(minutes=TASK_EXPIRES_MIN_RANGE[1]):
        raise ReplayError("SR_REPLAY_FLEET_TASK_INVALID", "the task's envelope lives longer than a day")
    left = not_after - now.astimezone(UTC)
    if left <= timedelta(0):
        raise ReplayError(
            "SR_REPLAY_FLEET_TASK_EXPIRED", f"the task expired at {envelope.not_after} (this worker's clock)"
        )
    return envelope, left


def check_binding(envelope: FleetEnvelope, row: FleetRow, bundle_digest: str) -> None:
    """``SR_REPLAY_FLEET_TASK_INVALID`` naming what of the task the envelope does not vouch for."""
    what = envelope_mismatch(envelope, row, bundle_digest)
    if what is not None:
        raise ReplayError(
            "SR_REPLAY_FLEET_TASK_INVALID", f"the task's envelope does not vouch for its {what}"
        )
