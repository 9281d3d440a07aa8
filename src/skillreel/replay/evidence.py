"""Evidence of one replay step: named digests, never content (ARCHITECTURE 3 and 5).

Every fact is a tagged digest; nothing a person typed, no selector, no page text and no URL is ever
written. The facts a step leaves, by kind:

==========  ===================================================================================
navigate    ``url``: ``skillreel.url-target/v1`` digest of the normalised URL after load
click       ``target``, ``afterState``
type        ``target``, ``valueCheck``, ``afterState``
select      ``target``, ``selectedCheck``, ``afterState``
press       ``target`` (when it has one), ``afterState``
observe     ``target``, ``before``, ``after``, ``page``, ``screenshot``
assert      ``target`` (when it has one), ``check``
human       ``human``, ``afterState``
==========  ===================================================================================

What each digest covers (all under ``skillreel.page-state/v1`` unless said otherwise):

* ``target`` — the fingerprint of the element acted on (``fingerprint.js`` ``features``: tag, type,
  role, salted attribute/label/text hashes, parent path, sibling position).
* ``afterState``/``before``/``after`` — a content-free summary of the page: its element count and
  a 64-bit hash of its tag sequence (two FNV-1a lanes, computed in the page). Structure only, no
  text, so neither typed values nor page text can be recovered from it by guessing.
* ``page`` — SHA-256 of the page's normalised visible text under the draft's fingerprint salt (the
  same salted-hash rule fingerprints use for text).
* ``screenshot`` — the PNG bytes of the viewport (text carets hidden, so a blinking caret never
  changes it), digested; the bytes are dropped at once.
* ``valueCheck``/``selectedCheck``/``check`` — that the check held, bound to the target digest;
  never a digest of the value itself (a short value could be recovered from its digest).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import ValidationError

from ..errors import ReplayError
from ..model.canonical import bytes_digest, tagged_digest
from ..model.environment import url_target_digest
from ..model.locators import Fingerprint
from ..model.report import Evidence
from ..model.urls import URLRuleError, normalise_target_url

PAGE_STATE = "skillreel.page-state/v1"


@dataclass(frozen=True)
class PageSummary:
    """What ``resolve.js`` ``pageState`` measures: hex digests computed in the page, and a count."""

    elements: int
    structure: str
    text: str | None = None
    # the marked field held the expected value (when asked; None then: the field had left the page)
    verified: bool | None = None


def target_digest(fingerprint: Fingerprint) -> str:
    return tagged_digest(PAGE_STATE, {"kind": "target", "fingerprint": fingerprint.to_json()})


def state_digest(summary: PageSummary) -> str:
    return tagged_digest(
        PAGE_STATE, {"kind": "structure", "elements": summary.elements, "structure": summary.structure}
    )


def text_digest(summary: PageSummary) -> str:
    return tagged_digest(PAGE_STATE, {"kind": "text", "text": summary.text})


def url_digest(url: str) -> str:
    """The URL target digest of the normalised URL; a non-http(s) page gets a fixed digest."""
    try:
        return url_target_digest(normalise_target_url(url))
    except URLRuleError:
        return tagged_digest(PAGE_STATE, {"kind": "url", "url": None})


def screenshot_digest(png: bytes) -> str:
    return bytes_digest(PAGE_STATE, png)


def check_digest(check: str, target: str | None) -> str:
    return tagged_digest(PAGE_STATE, {"kind": "check", "check": check, "ok": True, "target": target})


def marker_digest(kind: str, action_id: str) -> str:
    """A fact that only says something happened (a person finished a step, an input was absent)."""
    return tagged_digest(PAGE_STATE, {"kind": kind, "actionId": action_id})


def build_evidence(action_id: str, kind: str, healed: bool, facts: Mapping[str, str]) -> Evidence:
    """The step's evidence document; over 256 KiB (or malformed) is ``SR_REPLAY_EVIDENCE_TOO_LARGE``."""
    try:
        return Evidence.build(action_id=action_id, kind=kind, healed=healed, facts=dict(facts))
    except ValidationError as exc:
        raise ReplayError(
            "SR_REPLAY_EVIDENCE_TOO_LARGE",
            f"step {action_id}: its evidence could not be built within bounds",
            action_id=action_id,
        ) from exc
