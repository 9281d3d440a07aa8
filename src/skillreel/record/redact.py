"""PURE secret, URL and echo scanning for recordings (ARCHITECTURE section 6, seed 004).

Typed values live in a :class:`TypedValues` held in memory by one recording and dropped once the
draft is stored; nothing here writes or prints them. Two layers use them:

* **Scrubbing at capture** (``scrub_*``): before an event from the page enters the events log,
  selector candidates whose texts echo a typed value (or whose salted role-name or link hash is
  the hash of one) are dropped, fingerprint hashes of a typed value are cleared, a parameter hint
  that echoes one falls back to a generic name, and a navigation URL loses the query pairs the
  target's query-key rule strips (``model.urls``), its fragment and any query pair that echoes a
  typed value. The recorder script applies the same rule in the page first, with the sensitive
  values that never leave it.
* **Scanning before storing** (:func:`scan`): every persisted string of the draft and the events
  log is checked against secret patterns (private keys, JWTs, cloud and VCS tokens, API keys,
  bearer tokens, password assignments, credentials in URLs, token-carrying URLs) and against the
  typed values that were not public when typed (see :class:`TypedValues`). A finding names a
  ``path`` and a ``category`` only, never the text.

The echo rule (shared with ``recorder.js``): a text echoes a value when, compared case-blind, it
equals the value (two characters or more) or contains it (four characters or more). Shorter values
are not compared, so a "1" in a quantity field does not blot out half the page. A value is also
compared in its encoded forms (:func:`encoded_forms`: hex and base64 of its UTF-8 bytes), so a page
cannot slip it past the rule by encoding it first.

Every string a page controls is checked, not only attribute values and ids: the tag names, class
names and attribute names inside a selector (:func:`selector_parts`), and every string of a
fingerprint (the tag and the parent path, where a custom element ``x-<value>`` would carry it, the
role, the type, attribute names; hashes are compared with the hashes of the typed forms). Standard
HTML tag names, ARIA roles and input types (:data:`VOCABULARY`) are a page's choice among a fixed
set, not free text, so they never count as an echo (the user who types "button" still records
clicks on buttons).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import parse_qsl, unquote, unquote_plus, urlsplit, urlunsplit

from ..model.display_names import readable_name
from ..model.draft import Draft
from ..model.environment import UrlTarget
from ..model.events import EventsLog, FieldInfo
from ..model.locators import (
    SCOPE_SEPARATOR,
    ElementSet,
    Fingerprint,
    LocatorBundle,
    structural,
    structure_only,
    text_hash,
)
from ..model.urls import DEFAULT_RULE, QueryRule, has_token, strip_tokens

MIN_EQUAL: Final = 2
MIN_CONTAINED: Final = 4
FALLBACK_HINTS: Final = ("text", "field", "input", "value", "entry", "param")


# Words a page picks from a fixed set (never free text): standard HTML and common SVG tag names, ARIA
# roles, input and button types, and the recorder's own event kinds. A page can still encode a value
# in a sequence of such words or in numbers (sibling positions); that structural channel is stated
# as a limit in docs/security.md.
_HTML_TAGS: Final = (
    "a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption "
    "cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset "
    "figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input "
    "ins kbd label legend li link main map mark menu meta meter nav noscript object ol optgroup "
    "option output p param picture pre progress q rp rt ruby s samp script search section select "
    "slot small source span strong style sub summary sup table tbody td template textarea tfoot th "
    "thead time title tr track u ul var video wbr center font frame frameset marquee nobr tt big "
    "svg g path circle rect line polyline polygon ellipse text tspan use defs symbol image "
    "lineargradient radialgradient stop clippath mask foreignobject"
)
_ROLES: Final = (
    "alert alertdialog application article banner blockquote button caption cell checkbox code "
    "columnheader combobox complementary contentinfo definition deletion dialog directory document "
    "emphasis feed figure form generic grid gridcell group heading img insertion link list listbox "
    "listitem log main marquee math menu menubar menuitem menuitemcheckbox menuitemradio meter "
    "navigation none note option paragraph presentation progressbar radio radiogroup region row "
    "rowgroup rowheader scrollbar search searchbox separator slider spinbutton status strong "
    "subscript superscript switch tab table tablist tabpanel term textbox time timer toolbar "
    "tooltip tree treegrid treeitem"
)
_TYPES: Final = (
    "button checkbox color date datetime-local email file hidden image month number password radio "
    "range reset search submit tel text time url week menu "
    "navigate click input select press human observe assert"
)
VOCABULARY: Final = frozenset(f"{_HTML_TAGS} {_ROLES} {_TYPES}".split())


class TypedValues:
    """The values typed during one recording: memory only, never shown (``repr`` counts them).

    A value is *public* when, at the moment it was first typed, it already appeared in a text the
    user gave before (the start URL, the description, a failure condition) or in the URL of the
    page it was typed on (``seen_in``): the admin user ``admin`` of an app served under
    ``/admin/``. Public values are no secret findings (:func:`scan`) and do not blot out the URLs
    they were already part of (:func:`scrub_url`, link destinations); every other echo rule still
    applies to them (names, texts, selectors), so what was typed stays out of the fingerprints.
    """

    __slots__ = ("_edits", "_encoded", "_originals", "_public", "_values")

    def __init__(self, values: Iterable[str] = (), *, public: Iterable[str] = ()) -> None:
        self._values: list[str] = []
        self._originals: list[str] = []
        self._encoded: list[tuple[str, str]] = []  # (encoded form, the lower-cased value)
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
        self._originals.append(value)
        self._encoded += [(form, folded) for form in encoded_forms(value)]
        if public or any(appears_in(folded, text) for text in seen_in):
            self._public.add(folded)

    def echoes(self, text: str | None) -> bool:
        """True when ``text`` equals (2+ chars) or contains (4+ chars) a typed value, as typed or
        in one of its encoded forms (a form counts as contained when its value has 4+ chars)."""
        return _echoes(self._values, text) or _echoes_forms(self._encoded, text)

    def echoes_private(self, text: str | None) -> bool:
        """:meth:`echoes` over the values that were not public when typed."""
        private = [v for v in self._values if v not in self._public]
        forms = [(f, v) for f, v in self._encoded if v not in self._public]
        return _echoes(private, text) or _echoes_forms(forms, text)

    def values(self) -> tuple[str, ...]:
        """The (lower-cased) values, for the recorder script's own echo checks only."""
        return tuple(self._values)

    def originals(self) -> tuple[str, ...]:
        """The values as typed, for the recorder script's echo checks (it encodes them itself)."""
        return tuple(self._originals)

    def forms(self) -> tuple[str, ...]:
        """Every form a value is compared in (lower-cased and encoded), for hash comparisons."""
        return (*self._values, *(form for form, _ in self._encoded))

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
        self._originals.clear()
        self._encoded.clear()
        self._public.clear()
        self._edits.clear()

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"TypedValues({len(self._values)} values)"


def encoded_forms(value: str) -> tuple[str, ...]:
    """The encodings of a typed value a page could copy instead of the value itself (lower-cased):
    hex of its UTF-8 bytes (as typed and lower-cased) and base64 (with and without padding)."""
    data = value.encode()
    b64 = base64.b64encode(data).decode().lower()
    forms = (data.hex(), value.lower().encode().hex(), b64, b64.rstrip("="))
    return tuple(dict.fromkeys(f for f in forms if f))


def _echoes(values: Iterable[str], text: str | None) -> bool:
    if not text:
        return False
    hay = text.lower()
    whole = hay.strip()
    return any(whole == v or (len(v) >= MIN_CONTAINED and v in hay) for v in values)


def _echoes_forms(forms: Iterable[tuple[str, str]], text: str | None) -> bool:
    """:func:`_echoes` over encoded forms: ``(form, value)``; containment counts for a value of
    :data:`MIN_CONTAINED` characters or more (the same rule as the value itself)."""
    if not text:
        return False
    hay = text.lower()
    whole = hay.strip()
    return any(whole == f or (len(v) >= MIN_CONTAINED and f in hay) for f, v in forms)


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
# A CSS identifier with the sigil before it: "#" id, "." class, "[" attribute name, ":" pseudo-class
# (ours: never page text), none for a tag name. Escapes are kept and decoded by _unescape.
_IDENT = re.compile(r"([#.:\[]?)((?:[A-Za-z0-9_\-\u0080-\U0010ffff]|\\[0-9a-fA-F]{1,6} ?|\\.)+)")
# Attribute names the recorder itself writes into selectors (fingerprint.js), not the page's choice.
_OWN_ATTRIBUTES: Final = frozenset(
    {"data-testid", "data-test", "data-skillreel", "id", "name", "aria-label", "placeholder", "for"}
)
_HEX_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6}) ?|\\(.)")
# The element's own part of a role-name or href candidate (model.locators._HASHED_SELECTORS).
_HASHED_PART = re.compile(r"role=([a-z0-9-]{1,32}) name=[0-9a-f]{16}|link=[0-9a-f]{16}")


def selector_texts(selector: str) -> list[str]:
    """The page-derived texts inside a CSS selector: quoted attribute values and ``#id`` parts."""
    found = [m.group(1) for m in _QUOTED.finditer(selector)]
    found += [m.group(1) for m in _HASH_ID.finditer(selector)]
    return [_ESCAPE.sub(r"\1", text) for text in found]


def selector_parts(selector: str) -> list[str]:
    """Every page-controlled text inside a selector: quoted attribute values, and the ids, class
    names, attribute names and tag names (escapes decoded). Pseudo-classes and their arguments are
    skipped (the recorder writes them), and so are standard tag names (:data:`VOCABULARY`). A scope
    chain is split; a hashed part (``role=ROLE name=HASH``, ``link=HASH``) gives its role word only
    (its hash is compared as a hash, :func:`scrub_bundle`)."""
    found: list[str] = []
    for part in selector.split(SCOPE_SEPARATOR):
        hashed = _HASHED_PART.fullmatch(part)
        if hashed is not None:
            role = hashed.group(1)
            if role is not None and role not in VOCABULARY:
                found.append(role)
            continue
        found += [_ESCAPE.sub(r"\1", m.group(1)) for m in _QUOTED.finditer(part)]
        rest = _QUOTED.sub('""', part)
        for match in _IDENT.finditer(rest):
            sigil, raw = match.groups()
            text = _unescape(raw)
            if sigil == ":" or text.isdigit() or (not sigil and text.lower() in VOCABULARY):
                continue
            if sigil == "[" and text.lower() in _OWN_ATTRIBUTES:
                continue
            found.append(text)
    return found


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            code = int(match.group(1), 16)
            return chr(code) if 0 < code <= 0x10FFFF else "\ufffd"
        return match.group(2)

    return _HEX_ESCAPE.sub(one, text)


def screen_display_name(name: str | None, typed: TypedValues) -> str | None:
    """A display name fit to keep in clear (issue 31), screened as typed values are: it passes
    ``model.display_names.readable_name`` (one short line, no address, nothing high-entropy or
    digits-heavy), echoes no typed value in any form (:meth:`TypedValues.echoes`, public ones
    included) and matches no secret pattern; else None (the target keeps its hashes only)."""
    shown = readable_name(name)
    if shown is None or typed.echoes(shown) or _echoes_compact(typed, shown) or secret_categories(shown):
        return None
    return shown


_NOT_ALNUM: Final = re.compile(r"[\W_]+")


def _echoes_compact(typed: TypedValues, name: str) -> bool:
    """Whether ``name`` holds a typed value once spaces and punctuation are gone from both: a page
    that letter-spaces, hyphenates or joins the value (``M a l l o r y``, ``Mallory-Quinn``)."""
    hay = _NOT_ALNUM.sub("", name.lower())
    compact = (_NOT_ALNUM.sub("", v) for v in typed.values())
    return any(c and (c == hay or (len(c) >= MIN_CONTAINED and c in hay)) for c in compact)


def _screened_name(bundle: LocatorBundle, typed: TypedValues) -> str | None:
    """The bundle's display name when it may keep one: screened, and none on a target chosen by a
    filter, in a row, in a loop's item or in a table's body (its name may be the page's data)."""
    if bundle.display_name is None or (bundle.row, bundle.filter, bundle.within) != (None, None, None):
        return None
    if "tbody" in bundle.fingerprint.parent_path:  # a table's body row: data (recorder.js inDataRow)
        return None
    return screen_display_name(bundle.display_name, typed)


def scrub_bundle(bundle: LocatorBundle, typed: TypedValues, salt: str) -> LocatorBundle | None:
    """The bundle without candidates, strings or hashes that echo a typed value (None: nothing
    left, or the element's tag itself echoes one), its display name screened
    (:func:`screen_display_name`)."""
    shown = _screened_name(bundle, typed)
    if shown != bundle.display_name:
        bundle = bundle.model_copy(update={"display_name": shown})
    if not len(typed):
        return bundle
    hashes = {h for v in typed.forms() if (h := text_hash(salt, v)) is not None}
    kept = tuple(
        c
        for c in bundle.candidates
        if c.text_hash not in hashes and not any(typed.echoes(t) for t in selector_parts(c.selector))
    )
    if not kept:
        return None
    fp = bundle.fingerprint
    changes = page_string_changes(fp, typed, hashes)
    if changes is None:
        return None
    if kept == bundle.candidates and not changes:
        return bundle
    return LocatorBundle(
        candidates=kept,
        fingerprint=fp.model_copy(update=changes),
        row=bundle.row,
        display_name=bundle.display_name,
    )


def scrub_structural(
    bundle: LocatorBundle, typed: TypedValues, salt: str, *, attribute: str | None = None
) -> LocatorBundle | None:
    """:func:`scrub_bundle`, then by structure only (:func:`structure_only`, with the identity a
    mark keeps: its caption and unique id): no candidate that holds a hash of the element's text
    (role-name, href) or, for an attribute read, selects by that attribute. None when nothing is
    left."""
    scrubbed = scrub_bundle(bundle, typed, salt)
    if scrubbed is None:
        return None
    if attribute is None:
        return structural(scrubbed, identity=True)
    return structural(
        scrubbed, lambda c: f"[{attribute}" not in c.selector and c.strategy != attribute, identity=True
    )


def scrub_set(items: ElementSet, typed: TypedValues) -> ElementSet | None:
    """The set without candidates whose selectors echo a typed value in any page-controlled string
    (:func:`selector_parts`), by structure only, its fingerprint's strings checked like
    :func:`scrub_bundle`'s (None: nothing left, or the items' tag itself echoes one)."""
    kept = tuple(c for c in items.candidates if not any(typed.echoes(t) for t in selector_parts(c.selector)))
    if not kept:
        return None
    fingerprint = structure_only(items.fingerprint)
    changes = page_string_changes(fingerprint, typed, set())
    if changes is None:
        return None
    return ElementSet(candidates=kept, fingerprint=fingerprint.model_copy(update=changes))


def scrub_options(options: Iterable[str] | None, typed: TypedValues) -> tuple[str, ...] | None:
    """A ``<select>``'s option values fit to store, or None (then the parameter stays untyped):
    none may echo a typed value or look like a secret."""
    if options is None:
        return None
    values = tuple(options)
    if not values or any(typed.echoes(v) or secret_categories(v) for v in values):
        return None
    return values


def page_string_changes(fp: Fingerprint, typed: TypedValues, hashes: set[str]) -> dict[str, Any] | None:
    """What to clear in a fingerprint so that no string of it echoes a typed value: a hash equal to
    the hash of a typed form, a string (role, type, a parent's tag) or an attribute name that echoes
    one. Every field is walked, so a feature added later is checked too. None when a required field
    (the tag) echoes: the element cannot be described without the value."""
    changes: dict[str, Any] = {}
    for name, info in type(fp).model_fields.items():
        value = getattr(fp, name)
        if isinstance(value, dict):
            kept = {k: v for k, v in value.items() if not _echoing(k, typed, hashes) and v not in hashes}
            if kept != value:
                changes[name] = kept
        elif _echoing(value, typed, hashes):
            if info.is_required():
                return None
            changes[name] = info.get_default(call_default_factory=True)
    return changes


def _echoing(value: Any, typed: TypedValues, hashes: set[str]) -> bool:
    if isinstance(value, str):
        return value in hashes or (value.lower() not in VOCABULARY and typed.echoes(value))
    if isinstance(value, list | tuple):
        return any(_echoing(v, typed, hashes) for v in value)
    if isinstance(value, dict):
        return any(_echoing(k, typed, hashes) or _echoing(v, typed, hashes) for k, v in value.items())
    return False


def scrub_field(field: FieldInfo | None, typed: TypedValues) -> FieldInfo | None:
    """The field with a parameter hint that does not echo a typed value."""
    if field is None or not typed.echoes(field.param_hint):
        return field
    hint = next((h for h in FALLBACK_HINTS if not typed.echoes(h)), "param")
    return field.model_copy(update={"param_hint": hint})


def scrub_url(url: str, typed: TypedValues, rule: QueryRule = DEFAULT_RULE) -> str | None:
    """A navigation URL fit to store: http(s) only, the query pairs ``rule`` strips, the fragment
    and query pairs that echo typed text dropped (kept pairs as written). None when it cannot be
    kept (another scheme, or typed text in the path). A public typed value (one the URLs showed
    before it was typed) is not typed text here."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password:
        return None
    if any(typed.echoes_private(unquote(seg)) for seg in parts.path.split("/") if seg):
        return None
    kept = strip_tokens(url, rule)
    query = "&".join(
        segment
        for segment in urlsplit(kept).query.split("&")
        if segment
        and not any(typed.echoes_private(unquote_plus(part)) for part in segment.partition("=")[::2])
    )
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


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
        "check",
        "reason",
        "key",
        "control",
        "ref",
        "capabilities",
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
# Keys whose values a page chooses (a tag, a role, an input type, an event kind), usually from a
# fixed vocabulary: a word of the vocabulary is no echo; anything else is checked like free text.
_PAGE_WORDS: Final = frozenset({"tag", "type", "role", "parentPath"})
# Strings given by the user before recording began: checked for secret patterns, not for echo.
_PRE_RECORDING: Final = ("environment",)


def secret_categories(text: str) -> list[str]:
    """The secret-pattern categories ``text`` matches."""
    return [category for category, pattern in PATTERNS if pattern.search(text)]


def _strings(value: Any, path: str) -> Iterator[tuple[str, str, str]]:
    """(path, key, text) for every free-text string under ``value``; the names in an ``attributes``
    map are page text too (its values are hashes)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "attributes" and isinstance(inner, dict):
                yield from ((f"{path}.{key}[{i}]", key, name) for i, name in enumerate(inner))
                continue
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
        return selector_parts(text)
    if key in _PAGE_WORDS and text.lower() in VOCABULARY:
        return []
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


def _check(path: str, key: str, text: str, typed: TypedValues, echo: bool, rule: QueryRule) -> list[Finding]:
    found = [Finding(path, category) for category in secret_categories(text)]
    if key == "url" and has_token(text, rule):
        found.append(Finding(path, "url-token"))
    if echo and any(typed.echoes_private(part) for part in _echo_parts(key, text)):
        found.append(Finding(path, "typed-value"))
    return found


def scan(draft: Draft, events: EventsLog | None = None, typed: TypedValues | None = None) -> list[Finding]:
    """Every finding in what would be stored: the draft's fields and the events log's events.
    URLs carry a token when the target's query-key rule would strip one of their pairs."""
    typed = typed or TypedValues()
    target = draft.environment.target
    rule = target.rule if isinstance(target, UrlTarget) else DEFAULT_RULE
    document = draft.to_json()
    if events is not None:
        document["events"] = events.to_json()["events"]
    findings: list[Finding] = []
    for path, key, text in _strings(document, ""):
        findings += _check(path, key, text, typed, not path.startswith(_PRE_RECORDING), rule)
    return findings


def scan_texts(texts: Iterable[tuple[str, str]]) -> list[Finding]:
    """Secret-pattern findings in user-given texts (``(path, text)`` pairs), before recording."""
    return [Finding(path, category) for path, text in texts for category in secret_categories(text)]
