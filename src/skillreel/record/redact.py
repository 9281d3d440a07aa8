"""PURE secret, URL and echo scanning for recordings (ARCHITECTURE section 6, seed 004).

Typed values live in a :class:`TypedValues` held in memory by one recording and dropped once the
draft is stored; nothing here writes or prints them. Two layers use them:

* **Scrubbing at capture** (``scrub_*``): before an event from the page enters the events log,
  selector candidates whose texts echo a typed value (or whose salted role-name or link hash is
  the hash of one) are dropped, fingerprint hashes of a typed value are cleared, a parameter hint
  that echoes one falls back to a generic name, and a navigation URL loses its credential-bearing
  query keys, its fragment and any query value that echoes a typed value. The recorder script
  applies the same rule in the page first, with the sensitive values that never leave it.
* **Scanning before storing** (:func:`scan`): every persisted string of the draft and the events
  log is checked against secret patterns (private keys, JWTs, cloud and VCS tokens, API keys,
  bearer tokens, password assignments, credentials in URLs, token-carrying URLs) and against the
  typed values that were not public when typed (see :class:`TypedValues`). A finding names a
  ``path`` and a ``category`` only, never the text.

The echo rule (shared with ``recorder.js``): a text echoes a value when, compared case-blind, it
equals the value (two characters or more) or contains it (four characters or more). Shorter values
are not compared, so a "1" in a quantity field does not blot out half the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from ..model.draft import Draft
from ..model.events import EventsLog, FieldInfo
from ..model.locators import (
    CONTENT_HASHES,
    CONTENT_STRATEGIES,
    ElementSet,
    Fingerprint,
    LocatorBundle,
    text_hash,
)
from ..model.urls import TOKEN_KEYS, has_token

_HASHED_FEATURES: Final = ("text_hash", "label_hash", "name_hash", "value_hash", "link_hash", "row_hash")
MIN_EQUAL: Final = 2
MIN_CONTAINED: Final = 4
FALLBACK_HINTS: Final = ("text", "field", "input", "value", "entry", "param")


class TypedValues:
    """The values typed during one recording: memory only, never shown (``repr`` counts them).

    A value is *public* when, at the moment it was first typed, it already appeared in a text the
    user gave before (the start URL, the description, a failure condition) or in the URL of the
    page it was typed on (``seen_in``): the admin user ``admin`` of an app served under
    ``/admin/``. Public values are no secret findings (:func:`scan`) and do not blot out the URLs
    they were already part of (:func:`scrub_url`, link destinations); every other echo rule still
    applies to them (names, texts, selectors), so what was typed stays out of the fingerprints.
    """

    __slots__ = ("_edits", "_public", "_values")

    def __init__(self, values: Iterable[str] = (), *, public: Iterable[str] = ()) -> None:
        self._values: list[str] = []
        self._public: set[str] = set()
        self._edits: dict[str, int] = {}  # normalised value -> seq of its latest field edit
        for value in values:
            self.add(value)
        for value in public:
            self.add(value, public=True)

    def add(self, value: str, *, seen_in: Iterable[str] = (), public: bool = False) -> None:
        """Remember a typed value; it is public when it ``appears_in`` one of ``seen_in`` (only the
        first time it is typed decides)."""
        folded = value.lower()
        if len(folded) < MIN_EQUAL or folded in self._values:
            return
        self._values.append(folded)
        if public or any(appears_in(folded, text) for text in seen_in):
            self._public.add(folded)

    def echoes(self, text: str | None) -> bool:
        """True when ``text`` equals (2+ chars) or contains (4+ chars) a typed value."""
        return _echoes(self._values, text)

    def echoes_private(self, text: str | None) -> bool:
        """:meth:`echoes` over the values that were not public when typed."""
        return _echoes([v for v in self._values if v not in self._public], text)

    def values(self) -> tuple[str, ...]:
        """The (lower-cased) values, for the recorder script's own echo checks only."""
        return tuple(self._values)

    def public_values(self) -> tuple[str, ...]:
        return tuple(v for v in self._values if v in self._public)

    def note_edit(self, value: str, seq: int) -> None:
        """Remember that the field edit ``seq`` ended with ``value`` (for :meth:`edit_shown`)."""
        norm = " ".join(value.split()).lower()
        if len(norm) >= MIN_EQUAL:
            self._edits.pop(norm, None)
            self._edits[norm] = seq

    def edit_shown(self, hashes: Iterable[str], salt: str) -> int | None:
        """The latest field edit whose value has one of the salted ``hashes`` (a clicked element
        showed it), or None."""
        wanted = set(hashes)
        found = [seq for norm, seq in self._edits.items() if text_hash(salt, norm) in wanted]
        return max(found) if found else None

    def clear(self) -> None:
        self._values.clear()
        self._public.clear()
        self._edits.clear()

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"TypedValues({len(self._values)} values)"


def _echoes(values: Iterable[str], text: str | None) -> bool:
    if not text:
        return False
    hay = text.lower()
    whole = hay.strip()
    return any(whole == v or (len(v) >= MIN_CONTAINED and v in hay) for v in values)


_WORDS = re.compile(r"[^\w@.+-]+")


def appears_in(value: str, text: str) -> bool:
    """Whether a typed ``value`` already appears in ``text`` under the echo rule: for a URL, in one
    of its path segments, query keys or query values; for other text, in the whole text or one of
    its words (a value of two or three characters must equal a part, a longer one be inside one)."""
    parts = _echo_parts("url", text) if "://" in text else [text, *_WORDS.split(text)]
    return any(_echoes([value.lower()], part) for part in parts if part)


# ---- scrubbing at capture ------------------------------------------------------------------------

_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
_HASH_ID = re.compile(r"#((?:[^\s>+~.#:\[\\]|\\.)+)")
_ESCAPE = re.compile(r"\\(.)")


def selector_texts(selector: str) -> list[str]:
    """The page-derived texts inside a CSS selector: quoted attribute values and ``#id`` parts."""
    found = [m.group(1) for m in _QUOTED.finditer(selector)]
    found += [m.group(1) for m in _HASH_ID.finditer(selector)]
    return [_ESCAPE.sub(r"\1", text) for text in found]


def scrub_bundle(bundle: LocatorBundle, typed: TypedValues, salt: str) -> LocatorBundle | None:
    """The bundle without candidates or hashes that echo a typed value (None: nothing left)."""
    if not len(typed):
        return bundle
    hashes = {h for v in typed.values() if (h := text_hash(salt, v)) is not None}
    kept = tuple(
        c
        for c in bundle.candidates
        if c.text_hash not in hashes and not any(typed.echoes(t) for t in selector_texts(c.selector))
    )
    if not kept:
        return None
    fp = bundle.fingerprint
    changes: dict[str, Any] = {key: None for key in _HASHED_FEATURES if getattr(fp, key) in hashes}
    attributes = {k: h for k, h in fp.attributes.items() if h not in hashes}
    if attributes != fp.attributes:
        changes["attributes"] = attributes
    if kept == bundle.candidates and not changes:
        return bundle
    return LocatorBundle(candidates=kept, fingerprint=fp.model_copy(update=changes))


def structure_only(fingerprint: Fingerprint) -> Fingerprint:
    """The fingerprint without anything taken from text (text-derived and label hashes, attribute
    hashes): what a target chosen by a filter, an extraction target or a set of items keeps."""
    changes: dict[str, Any] = {key: None for key in (*CONTENT_HASHES, "label_hash")}
    return fingerprint.model_copy(update={**changes, "attributes": {}})


def scrub_structural(
    bundle: LocatorBundle, typed: TypedValues, salt: str, *, attribute: str | None = None
) -> LocatorBundle | None:
    """:func:`scrub_bundle`, then by structure only (:func:`structure_only`): no candidate that
    holds a hash of the element's text (role-name, href) or, for an attribute read, selects by
    that attribute. None when nothing is left."""
    scrubbed = scrub_bundle(bundle, typed, salt)
    if scrubbed is None:
        return None
    kept = tuple(
        c
        for c in scrubbed.candidates
        if c.strategy not in CONTENT_STRATEGIES
        and (attribute is None or (f"[{attribute}" not in c.selector and c.strategy != attribute))
    )
    if not kept:
        return None
    return LocatorBundle(candidates=kept, fingerprint=structure_only(scrubbed.fingerprint))


def scrub_set(items: ElementSet, typed: TypedValues) -> ElementSet | None:
    """The set without candidates whose selectors echo a typed value, by structure only (None:
    nothing left)."""
    kept = tuple(c for c in items.candidates if not any(typed.echoes(t) for t in selector_texts(c.selector)))
    if not kept:
        return None
    return ElementSet(candidates=kept, fingerprint=structure_only(items.fingerprint))


def scrub_options(options: Iterable[str] | None, typed: TypedValues) -> tuple[str, ...] | None:
    """A ``<select>``'s option values fit to store, or None (then the parameter stays untyped):
    none may echo a typed value or look like a secret."""
    if options is None:
        return None
    values = tuple(options)
    if not values or any(typed.echoes(v) or secret_categories(v) for v in values):
        return None
    return values


def scrub_field(field: FieldInfo | None, typed: TypedValues) -> FieldInfo | None:
    """The field with a parameter hint that does not echo a typed value."""
    if field is None or not typed.echoes(field.param_hint):
        return field
    hint = next((h for h in FALLBACK_HINTS if not typed.echoes(h)), "param")
    return field.model_copy(update={"param_hint": hint})


def scrub_url(url: str, typed: TypedValues) -> str | None:
    """A navigation URL fit to store: http(s) only, credential keys, fragment and query values that
    echo typed text dropped. None when it cannot be kept (another scheme, or typed text in the path).
    A public typed value (one the URLs showed before it was typed) is not typed text here."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password:
        return None
    if any(typed.echoes_private(unquote(seg)) for seg in parts.path.split("/") if seg):
        return None
    query = [
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if k.lower() not in TOKEN_KEYS and not typed.echoes_private(v) and not typed.echoes_private(k)
    ]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


# ---- scanning before storing ---------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """Where a secret was found and what kind it is; never the text itself."""

    path: str
    category: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "category": self.category}


PATTERNS: Final[tuple[tuple[str, re.Pattern[str]], ...]] = (
    ("private-key", re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}")),
    ("cloud-key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{35}\b")),
    (
        "vcs-token",
        re.compile(
            r"\bgh[pousr]_[A-Za-z0-9]{30,}\b|\bgithub_pat_[A-Za-z0-9_]{22,}|\bglpat-[A-Za-z0-9_-]{20,}"
        ),
    ),
    ("chat-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    (
        "api-key",
        re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"),
    ),
    ("bearer-token", re.compile(r"(?i)\b(?:bearer|basic)\s+[A-Za-z0-9._~+/-]{16,}=*")),
    (
        "password-assignment",
        re.compile(
            r"(?i)\b(?:password|passwd|pwd|passphrase|secret|api[_-]?key|(?:access[_-]?|auth[_-]?)?token)"
            r"\s*[:=]\s*\S{4,}"
        ),
    ),
    ("url-credentials", re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]+@")),
)

# Keys whose values are enumerations, structure or digests (never free text), skipped by the walk.
_NOT_TEXT: Final = frozenset(
    {
        "schema",
        "kind",
        "strategy",
        "tag",
        "type",
        "role",
        "check",
        "reason",
        "key",
        "control",
        "ref",
        "capabilities",
        "parentPath",
        "attributes",
        "status",
        "salt",
        "fingerprintSalt",
        "seq",
        "page",
        "required",
        "sensitive",
        "matchCount",
        "siblingIndex",
        "siblingCount",
        "viewport",
        "id",
    }
)
# Strings given by the user before recording began: checked for secret patterns, not for echo.
_PRE_RECORDING: Final = ("environment",)


def secret_categories(text: str) -> list[str]:
    """The secret-pattern categories ``text`` matches."""
    return [category for category, pattern in PATTERNS if pattern.search(text)]


def _strings(value: Any, path: str) -> Iterator[tuple[str, str, str]]:
    """(path, key, text) for every free-text string under ``value``."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in _NOT_TEXT or key.endswith(("Digest", "Hash")):
                continue
            yield from (
                _strings(inner, f"{path}.{key}" if path else key)
                if not isinstance(inner, str)
                else [(f"{path}.{key}" if path else key, key, inner)]
            )
    elif isinstance(value, list | tuple):
        for i, inner in enumerate(value):
            if isinstance(inner, str):
                yield f"{path}[{i}]", path.rsplit(".", 1)[-1], inner
            else:
                yield from _strings(inner, f"{path}[{i}]")


def _echo_parts(key: str, text: str) -> list[str]:
    if key == "selector":
        return selector_texts(text)
    if key == "url":
        try:
            parts = urlsplit(text)
        except ValueError:
            return [text]
        pieces = [unquote(seg) for seg in parts.path.split("/") if seg]
        for k, v in parse_qsl(parts.query, keep_blank_values=True):
            pieces += [k, v]
        return pieces + ([parts.fragment] if parts.fragment else [])
    return [text]


def _check(path: str, key: str, text: str, typed: TypedValues, echo: bool) -> list[Finding]:
    found = [Finding(path, category) for category in secret_categories(text)]
    if key == "url" and has_token(text):
        found.append(Finding(path, "url-token"))
    if echo and any(typed.echoes_private(part) for part in _echo_parts(key, text)):
        found.append(Finding(path, "typed-value"))
    return found


def scan(draft: Draft, events: EventsLog | None = None, typed: TypedValues | None = None) -> list[Finding]:
    """Every finding in what would be stored: the draft's fields and the events log's events."""
    typed = typed or TypedValues()
    document = draft.to_json()
    if events is not None:
        document["events"] = events.to_json()["events"]
    findings: list[Finding] = []
    for path, key, text in _strings(document, ""):
        findings += _check(path, key, text, typed, echo=not path.startswith(_PRE_RECORDING))
    return findings


def scan_texts(texts: Iterable[tuple[str, str]]) -> list[Finding]:
    """Secret-pattern findings in user-given texts (``(path, text)`` pairs), before recording."""
    return [Finding(path, category) for path, text in texts for category in secret_categories(text)]
