"""Locator bundles and element fingerprints (ARCHITECTURE section 5).

A bundle keeps every selector candidate the recorder found, in rank order, with the number of
elements each matched at record time, plus a fingerprint of the element. Fingerprint features
that come from page text (label, text, attribute values) are stored only as salted hashes
(``TextHash``: 16 hex chars of SHA-256 over ``salt + "\\x00" + normalised text``; the salt is the
draft's ``fingerprintSalt``), so a changed page can be matched without storing its text.

Compatible extension (v1, the identity model of issue 10): a fingerprint may also hold the
accessible name (``nameHash``), the value of a button-like input (``valueHash``), the normalised
link destination (``linkHash``), the header cell of its table row (``rowHash``), its caption
(``captionHash``: the words that label it from outside, its ``<dt>``, column header, ``<label>`` or
a label-like element just before it; issue 28), the route fragment of a hash-route link
(``routeHash``: ``#/product/*/``, or ``#`` for a bare ``#``; issue 28), whether its id was
unique and stable (``stableId``), whether it is a form field whose ``name`` no other element of its
document has (``stableName``), and how many open shadow roots or same-origin frames enclose it
(``boundaries``). Each is left out of the wire form when unset, so every fingerprint written before
they existed keeps its exact canonical form, and every document holding one its digest. Two
candidate strategies hold no page text at all: ``role-name`` (``role=<role> name=<hash>``: the
element of that role whose accessible name has that salted hash) and ``href``
(``link=<hash>``: the link whose normalised destination has that hash). A candidate of an element
inside open shadow roots or same-origin frames is a chain: CSS selectors of the enclosing hosts or
frames, each followed by `` >>> ``, then the element's own selector.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any, Final, Literal

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    StringConstraints,
    field_validator,
    model_serializer,
    model_validator,
)

from .base import Document
from .display_names import readable_name
from .limits import (
    MAX_ACCEPTED_IDENTITIES,
    MAX_DISPLAY_NAME_CHARS,
    MAX_LOCATOR_CANDIDATES,
    MAX_SELECTOR_CHARS,
)
from .refs import TextFilter

TextHash = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{16}$")]
# A display name (issue 31): one line of at most 80 characters, no control character, not blank.
DisplayName = Annotated[
    str,
    StringConstraints(
        min_length=1, max_length=MAX_DISPLAY_NAME_CHARS, pattern=r"^[^\x00-\x1f\x7f]*\S[^\x00-\x1f\x7f]*$"
    ),
]


TagName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]{0,63}$")]
AttrName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_:.-]{0,63}$")]
Token = Annotated[str, StringConstraints(pattern=r"^[a-z0-9-]{1,32}$")]

Strategy = Literal[
    "testid", "id", "name", "aria-label", "role-name", "href", "label", "placeholder", "role", "css"
]

# Lower rank = tried first. The recorder assigns ranks in this order (section 5).
STRATEGY_PRIORITY: dict[str, int] = {
    "testid": 0,
    "id": 1,
    "name": 2,
    "aria-label": 3,
    "role-name": 4,
    "href": 5,
    "label": 6,
    "placeholder": 7,
    "role": 8,
    "css": 9,
}

SCOPE_SEPARATOR: Final = " >>> "
# The element's own selector of the hashed strategies (after any scope chain).
_HASHED_SELECTORS: Final = {
    "role-name": re.compile(r"role=[a-z0-9-]{1,32} name=([0-9a-f]{16})"),
    "href": re.compile(r"link=([0-9a-f]{16})"),
}


class LocatorCandidate(Document):
    """One way to find the element: a CSS selector (or a label reference, or a salted role-name or
    link hash), optionally behind a scope chain, and its record-time count."""

    strategy: Strategy
    selector: Annotated[str, StringConstraints(min_length=1, max_length=MAX_SELECTOR_CHARS)]
    match_count: Annotated[int, Field(ge=0, le=1_000_000)]

    @model_validator(mode="after")
    def _hashed_shape(self) -> LocatorCandidate:
        pattern = _HASHED_SELECTORS.get(self.strategy)
        if pattern is not None and not pattern.fullmatch(self.own_selector):
            raise ValueError(f"a {self.strategy} candidate holds a role and a salted hash only")
        return self

    @property
    def own_selector(self) -> str:
        """The selector of the element itself, after the scope chain (if any)."""
        return self.selector.rsplit(SCOPE_SEPARATOR, 1)[-1]

    @property
    def text_hash(self) -> str | None:
        """The salted hash a ``role-name`` or ``href`` candidate designates its element by."""
        pattern = _HASHED_SELECTORS.get(self.strategy)
        match = pattern.fullmatch(self.own_selector) if pattern is not None else None
        return match.group(1) if match else None


# Fingerprint fields added by the identity model: left out of the wire form when unset.
_EXTENSION_KEYS: Final = (
    "nameHash",
    "valueHash",
    "linkHash",
    "rowHash",
    "captionHash",
    "routeHash",
    "stableId",
    "stableName",
    "boundaries",
)


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
    name_hash: TextHash | None = None
    value_hash: TextHash | None = None
    link_hash: TextHash | None = None
    row_hash: TextHash | None = None
    caption_hash: TextHash | None = None
    route_hash: TextHash | None = None
    stable_id: Literal[True] | None = None
    stable_name: Literal[True] | None = None
    boundaries: Annotated[int, Field(ge=1, le=8)] | None = None

    @model_serializer(mode="wrap")
    def _omit_unset_extensions(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in _EXTENSION_KEYS:
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @model_validator(mode="after")
    def _sibling_bounds(self) -> Fingerprint:
        if self.sibling_index >= self.sibling_count:
            raise ValueError("siblingIndex must be below siblingCount")
        return self


# Fingerprint features that come from the element's own text: on a target chosen by a filter, an
# extraction target or an item of a set they would hold (a hash of) page content, so they are absent.
CONTENT_HASHES: tuple[str, ...] = (
    "text_hash",
    "name_hash",
    "value_hash",
    "row_hash",
    "link_hash",
    "route_hash",
)


def content_hashes(fingerprint: Fingerprint) -> tuple[str, ...]:
    """The names of the text-derived hashes ``fingerprint`` holds (see :data:`CONTENT_HASHES`)."""
    return tuple(n for n in CONTENT_HASHES if getattr(fingerprint, n, None) is not None)


# Candidate strategies whose selector is a salted hash of the element's text (accessible name, link
# destination): like the content hashes, absent from a content-free target.
CONTENT_STRATEGIES: tuple[str, ...] = ("role-name", "href")


def structure_only(fingerprint: Fingerprint, *, identity: bool = False) -> Fingerprint:
    """The fingerprint without anything taken from text (text-derived, label and caption hashes,
    attribute hashes): what a target chosen by a filter or a set of items keeps.

    ``identity`` (an extraction, wait or assert target) keeps two things that are not the element's
    content: its caption (the words that label it from outside: its ``<dt>``, column header or
    ``<label>``) and the hash of its unique, developer-made id (which its id candidate holds in
    clear anyway), so the Total is still the Total after a redesign."""
    changes: dict[str, Any] = {key: None for key in (*CONTENT_HASHES, "label_hash")}
    given = fingerprint.attributes
    kept = {"id": given["id"]} if identity and fingerprint.stable_id and "id" in given else {}
    if not identity:
        changes["caption_hash"] = None
    return fingerprint.model_copy(update={**changes, "attributes": kept})


def structural(
    bundle: LocatorBundle, keep: Callable[[LocatorCandidate], bool] | None = None, *, identity: bool = False
) -> LocatorBundle | None:
    """The bundle by structure only: no candidate holding a hash of text (role-name, href), none
    ``keep`` refuses, a :func:`structure_only` fingerprint (``identity``: see there); None when no
    candidate is left."""
    kept = tuple(
        c for c in bundle.candidates if c.strategy not in CONTENT_STRATEGIES and (keep is None or keep(c))
    )
    if not kept:
        return None
    return LocatorBundle(candidates=kept, fingerprint=structure_only(bundle.fingerprint, identity=identity))


def content_features(candidates: tuple[LocatorCandidate, ...], fingerprint: Fingerprint) -> tuple[str, ...]:
    """What of a target would hold (a hash of) its text: content hashes and hashed candidates."""
    found = content_hashes(fingerprint)
    return found + tuple(f"a {c.strategy} candidate" for c in candidates if c.strategy in CONTENT_STRATEGIES)


class ElementSet(Document):
    """A repeating structure (table rows, list items, cards): every candidate designates all of its
    items (``matchCount``: how many at record time); the fingerprint describes one item by its
    structure only (no hash of its text). ``filter`` keeps the items whose text contains a value
    as a whole token; ``within: "item"``: the items are inside the current item of the enclosing
    loop (rows of a card, for example)."""

    candidates: tuple[LocatorCandidate, ...] = Field(min_length=1, max_length=MAX_LOCATOR_CANDIDATES)
    fingerprint: Fingerprint
    filter: TextFilter | None = None
    within: Literal["item"] | None = None

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in ("filter", "within"):
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @model_validator(mode="after")
    def _structure_only(self) -> ElementSet:
        if content_features(self.candidates, self.fingerprint) or self.fingerprint.label_hash is not None:
            raise ValueError("the items of a set are described by their structure, not their text")
        return self


class LocatorBundle(Document):
    """Ranked candidates (best first) and the element's fingerprint.

    ``identities`` holds the fingerprints of earlier versions of the page that a reviewer accepted
    (newest first): adopting a heal puts the healed element's fingerprint first and keeps the one it
    replaced here, so the step is found without healing on both versions (:func:`merge_heal`). Left
    out of the wire form when empty: a bundle that never healed keeps its bytes and digests.

    Schema v2 extensions, left out of the wire form when unset (a v1 bundle keeps its bytes):
    ``filter`` — the candidates designate a set of like elements and the target is the one whose
    text contains a value as a whole token (``refs.TextFilter``); ``within: "item"`` — the
    candidates are relative to the current item of the enclosing loop; ``row`` — the candidates
    are relative to one row of this set of like rows (table rows, list items, cards), the row whose
    text holds the filter's value as a whole token: "the button of the row that shows input q".
    The element itself is then known by its role, its accessible name (a salted hash: it does not
    show the value) and its position in the row, never by its own text or its row's
    (:func:`in_row`). These describe what the target IS, so they survive every heal
    (:meth:`measured_as`, :func:`merge_heal`). In the events log a click's row target has no filter
    yet (its ``chosenBy`` names the edit); a replayed row target without one finds nothing.

    ``displayName`` (issue 31, left out when unset): the element's accessible name in clear, for
    people only (``show``, ``diff``, the review page, ``SKILL.md``): page chrome (a button, a link,
    a field's label, a heading, a column header, a tab, a menu item), screened at recording like a
    typed value (``record.redact.screen_display_name``). Nothing that finds, heals or judges an
    element reads it (:meth:`measured_as` leaves it out); a target chosen by a filter, in a row or
    in a loop's item keeps none (its name may be the page's data).
    """

    candidates: tuple[LocatorCandidate, ...] = Field(min_length=1, max_length=MAX_LOCATOR_CANDIDATES)
    fingerprint: Fingerprint
    identities: tuple[Fingerprint, ...] = Field(
        default=(), max_length=MAX_ACCEPTED_IDENTITIES, exclude_if=lambda identities: not identities
    )
    filter: TextFilter | None = Field(default=None, exclude_if=lambda value: value is None)
    within: Literal["item"] | None = Field(default=None, exclude_if=lambda value: value is None)
    row: ElementSet | None = Field(default=None, exclude_if=lambda value: value is None)
    display_name: DisplayName | None = Field(default=None, exclude_if=lambda value: value is None)

    @field_validator("display_name")
    @classmethod
    def _readable_only(cls, name: str | None) -> str | None:
        """Every boundary re-screens (a stored, imported or edited document, not only a recording):
        a name ``model.display_names.readable_name`` would not keep as is is dropped, fail closed."""
        return name if name is not None and readable_name(name) == name else None

    @property
    def accepted(self) -> tuple[Fingerprint, ...]:
        """Every fingerprint the step's element may have, the newest first."""
        return (self.fingerprint, *self.identities)

    def measured_as(self, fingerprint: Fingerprint) -> LocatorBundle:
        """The same target judged against one accepted ``fingerprint`` (what ``resolve.js`` gets):
        the candidates, the filter and the item scope stay, the other identities go."""
        return LocatorBundle(
            candidates=self.candidates,
            fingerprint=fingerprint,
            filter=self.filter,
            within=self.within,
            row=self.row,
        )

    def without_content(self, attribute: str | None = None) -> LocatorBundle | None:
        """This bundle as a content-free target (an extraction target, a field's): no content hash
        (in the fingerprint and in every accepted identity), no role-name or href candidate, and for
        an attribute read no hash or selector of that attribute. None when no candidate is left."""

        def content_free(fingerprint: Fingerprint) -> Fingerprint:
            return fingerprint.model_copy(
                update={
                    **dict.fromkeys(CONTENT_HASHES),
                    "attributes": {k: v for k, v in fingerprint.attributes.items() if k != attribute},
                }
            )

        fingerprint = content_free(self.fingerprint)
        identities: list[Fingerprint] = []
        for identity in map(content_free, self.identities):
            if identity != fingerprint and identity not in identities:
                identities.append(identity)
        candidates = tuple(
            c
            for c in self.candidates
            if c.strategy not in CONTENT_STRATEGIES
            and (attribute is None or (c.strategy != attribute and f"[{attribute}" not in c.selector))
        )
        if not candidates:
            return None
        return LocatorBundle(
            candidates=candidates,
            fingerprint=fingerprint,
            identities=tuple(identities),
            filter=self.filter,
            within=self.within,
            row=self.row,
        )

    @model_validator(mode="after")
    def _filtered_without_content(self) -> LocatorBundle:
        if self.display_name is not None and (self.row, self.filter, self.within) != (None, None, None):
            raise ValueError("a target chosen by a filter, in a row or in an item keeps no display name")
        if self.row is not None:
            if self.row.filter is not None or self.row.within is not None:
                raise ValueError("the target's own filter and item scope choose its row")
            if any(row_content(f) for f in self.accepted):
                raise ValueError("an element of a row keeps no hash of its own text or its row's")
        elif self.filter is not None and (
            content_features(self.candidates, self.fingerprint)
            or any(content_hashes(identity) for identity in self.identities)
        ):
            raise ValueError("a target chosen by a text filter keeps no hash of its own text")
        return self


# What an element chosen in a row may not keep: a hash of its own text (a record id, a name that
# differs row by row), of its row's header (the text that holds the input) or of its raw link
# (``href``: record ids; the normalised destination, ``linkHash``, stays).
ROW_CONTENT: tuple[str, ...] = ("text_hash", "row_hash")


def row_content(fingerprint: Fingerprint) -> tuple[str, ...]:
    """What of ``fingerprint`` an element chosen in a row may not keep (see :data:`ROW_CONTENT`)."""
    found = tuple(n for n in ROW_CONTENT if getattr(fingerprint, n) is not None)
    return found + (("attributes.href",) if "href" in fingerprint.attributes else ())


def in_row(fingerprint: Fingerprint) -> Fingerprint:
    """``fingerprint`` as an element chosen in a row keeps it (see :data:`ROW_CONTENT`)."""
    attributes = {k: v for k, v in fingerprint.attributes.items() if k != "href"}
    return fingerprint.model_copy(update={**dict.fromkeys(ROW_CONTENT), "attributes": attributes})


def merge_heal(approved: LocatorBundle, healed: LocatorBundle) -> LocatorBundle:
    """The bundle an adopted heal leaves: the healed element's candidates ahead of the approved ones
    (duplicates once, at their new place) and its fingerprint first, the approved fingerprints kept
    as accepted identities. Heals merge, never replace: the step still resolves, without healing, on
    the page it was recorded on.

    When the candidates do not all fit, at least half the room stays for the approved ones (their
    best first), so the old page keeps a way in; the oldest identities go first when those are full.

    What the target is stays the approved one's: its text filter (the element of the set whose text
    holds an input) and its item scope (relative to a loop's item). A heal finds the same kind of
    target on a changed page; it never turns "the row showing ${inputs.q}" into one fixed row nor
    an item-relative target into a document-wide one.

    The display name is the healed element's when it has one, else the approved one's while the
    healed element's accessible name is the same (equal ``nameHash``); else none: a name the
    element no longer shows is not kept as a caption.
    """
    new = tuple(healed.candidates)
    seen = {(c.strategy, c.selector) for c in new}
    old = tuple(c for c in approved.candidates if (c.strategy, c.selector) not in seen)
    if len(new) + len(old) > MAX_LOCATOR_CANDIDATES:
        keep_old = min(len(old), MAX_LOCATOR_CANDIDATES // 2)
        new, old = new[: MAX_LOCATOR_CANDIDATES - keep_old], old[:keep_old]
    identities: list[Fingerprint] = []
    for fingerprint in approved.accepted:
        if fingerprint != healed.fingerprint and fingerprint not in identities:
            identities.append(fingerprint)
    return LocatorBundle(
        candidates=(*new, *old),
        fingerprint=healed.fingerprint,
        identities=tuple(identities[:MAX_ACCEPTED_IDENTITIES]),
        filter=approved.filter,
        within=approved.within,
        row=approved.row,
        display_name=_healed_name(approved, healed),
    )


def _healed_name(approved: LocatorBundle, healed: LocatorBundle) -> str | None:
    """The display name an adopted heal leaves (see :func:`merge_heal`)."""
    if (approved.row, approved.filter, approved.within) != (None, None, None):
        return None
    if healed.display_name is not None:
        return healed.display_name
    same = healed.fingerprint.name_hash is not None and healed.fingerprint.name_hash == (
        approved.fingerprint.name_hash
    )
    return approved.display_name if same else None


def text_hash(salt: str, text: str) -> str | None:
    """Python twin of ``SkillreelLocate.textHash`` (locate/fingerprint.js), for tests and tools."""
    import hashlib
    import re

    norm = re.sub(r"\s+", " ", text).strip().lower()[:256]
    if not norm:
        return None
    return hashlib.sha256((salt + "\x00" + norm).encode()).hexdigest()[:16]
