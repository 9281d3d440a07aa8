"""Locator bundles and element fingerprints (ARCHITECTURE section 5).

A bundle keeps every selector candidate the recorder found, in rank order, with the number of
elements each matched at record time, plus a fingerprint of the element. Fingerprint features
that come from page text (label, text, attribute values) are stored only as salted hashes
(``TextHash``: 16 hex chars of SHA-256 over ``salt + "\\x00" + normalised text``; the salt is the
draft's ``fingerprintSalt``), so a changed page can be matched without storing its text.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from .base import Document
from .limits import MAX_LOCATOR_CANDIDATES, MAX_SELECTOR_CHARS

TextHash = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{16}$")]
TagName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]{0,63}$")]
AttrName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_:.-]{0,63}$")]
Token = Annotated[str, StringConstraints(pattern=r"^[a-z0-9-]{1,32}$")]

Strategy = Literal["testid", "id", "name", "aria-label", "label", "placeholder", "role", "css"]

# Lower rank = tried first. The recorder assigns ranks in this order (section 5).
STRATEGY_PRIORITY: dict[str, int] = {
    "testid": 0,
    "id": 1,
    "name": 2,
    "aria-label": 3,
    "label": 4,
    "placeholder": 5,
    "role": 6,
    "css": 7,
}


class LocatorCandidate(Document):
    """One way to find the element: a CSS selector (or a label reference) and its record-time count."""

    strategy: Strategy
    selector: Annotated[str, StringConstraints(min_length=1, max_length=MAX_SELECTOR_CHARS)]
    match_count: Annotated[int, Field(ge=0, le=1_000_000)]


class Fingerprint(Document):
    """What the element looked like, without its text: structure plus salted hashes."""

    tag: TagName
    type: Token | None = None
    role: Token | None = None
    attributes: dict[AttrName, TextHash] = Field(default_factory=dict, max_length=32)
    parent_path: tuple[TagName, ...] = Field(default=(), max_length=8)
    sibling_index: Annotated[int, Field(ge=0, le=100_000)] = 0
    sibling_count: Annotated[int, Field(ge=1, le=100_000)] = 1
    label_hash: TextHash | None = None
    text_hash: TextHash | None = None

    @model_validator(mode="after")
    def _sibling_bounds(self) -> Fingerprint:
        if self.sibling_index >= self.sibling_count:
            raise ValueError("siblingIndex must be below siblingCount")
        return self


class LocatorBundle(Document):
    """Ranked candidates (best first) and the element's fingerprint."""

    candidates: tuple[LocatorCandidate, ...] = Field(min_length=1, max_length=MAX_LOCATOR_CANDIDATES)
    fingerprint: Fingerprint


def text_hash(salt: str, text: str) -> str | None:
    """Python twin of ``SkillreelLocate.textHash`` (locate/fingerprint.js), for tests and tools."""
    import hashlib
    import re

    norm = re.sub(r"\s+", " ", text).strip().lower()[:256]
    if not norm:
        return None
    return hashlib.sha256((salt + "\x00" + norm).encode()).hexdigest()[:16]
