"""How one page element compares with the recorded fingerprint, and how similar it is: the Python
twin of ``compare`` in ``resolve.js`` (ARCHITECTURE 5). Pure: plain data in, plain data out; the
decision over these comparisons is :mod:`skillreel.locate.heal`.

**The identity model: what a fingerprint holds** (``locate/element.js`` and ``fingerprint.js``;
page text only as salted hashes, never from a field's value, a ``<select>``'s options or editable
content):

* *kind* — tag, type and role (explicit ``role`` or the implicit one of the tag);
* *accessible name* (``nameHash``) — computed like the browser's accessibility tree (accname, as
  Playwright's ``roleUtils`` does it, simplified): ``aria-labelledby``, ``aria-label``, the native
  source (a button-like input's ``value``, ``<label>`` elements, ``alt``, ``legend``, ``caption``),
  the content for roles named from content (buttons, links, check boxes, cells...), then ``title``;
  never the text of ``aria-hidden`` elements nor an icon font's ligature word (one lower-case word
  in an element set in an icon font, by computed font family or icon class; an icon-only button
  keeps it), and a ``<label>`` around a ``<select>`` gives its own words, never the options';
  also the first version's *label* (``labelHash``) and *own text* (``textHash``);
* *button value* (``valueHash``) — the ``value`` of ``<input type=submit|button|reset>``;
* *link destination* (``linkHash``) — the ``href`` resolved and normalised: its path, with
  record-naming segments (numbers, uuids, hashes) as ``*``, behind the origin when it is another;
  the query is left out (versions add and drop query keys on links that lead to the same place);
* *route* (``routeHash``) — a hash-route link's route fragment (``#/…``, ``#!/…``) with
  record-naming segments as ``*`` and no trailing slash (``#/ticket`` and ``#/ticket/`` are one
  route); ``#`` for a bare
  ``#``; compared with the destination: another route is another link;
* *row context* (``rowHash``) — the header cell of the table or ARIA row the element sits in (its
  first header cell with text, else its first other cell with text);
* *caption* (``captionHash``) — the words that label it from outside: ``aria-labelledby``, its
  ``<label>``, the ``<dt>`` of a ``<dd>``, the column header of its cell, else a short label-like
  element just before it (or before the wrapper it is the only child of); what an extraction,
  wait or assert target keeps beside its structure and unique id;
* *stable keys* — hashed attributes (ids, names, test ids, classes...), whether the id is
  developer-made and unique in its scope (``stableId``), whether a form field's ``name`` is unique
  in its scope (``stableName``);
* *place* — the parent tag path (crossing into shadow hosts and frame elements), sibling index and
  count among same-tag siblings, and the number of shadow-root or frame ``boundaries`` around it.

A feature the fingerprint does not hold — missing on the recorded element, or redacted because it
echoed a typed value — is *neutral*: it weighs nothing either way. Features the page offers beyond
the recording (an ``aria-label`` added by a newer version) are neutral too.

**Comparing an element with the fingerprint** (:func:`compare`, twinned in ``resolve.js``):

* *Gates* — tag equal up to its kind (a ``<button>`` and an ``<input type=submit|button|reset>``
  are one kind); type and role equal up to their kind (text, search, email, url and tel
  inputs are one kind, ``searchbox`` and ``textbox`` too, ``submit`` and ``button`` too; a
  password field only ever matches a password field; ``link``, ``button`` and ``menuitem`` are
  all pressed, so an ``<a>`` that gained ``role=button`` is the same anchor; a role that makes no
  control, such as ``alert`` or ``region``, is no kind at all); and a recorded link destination
  (with its route) must not have *changed*: a link to another place is another link, whatever its
  name. An element failing a gate scores 0.
* *Features* — each recorded hashed feature is ``same``, ``changed`` or ``absent`` on the element;
  the accessible names are ``alias`` when they differ but one equals another source of the other
  (an ``aria-label`` added over a visible caption), ``contains`` when the element's name holds the
  recorded one's words in order as a run of whole words (an icon's word or a badge beside them;
  resolve.js hashes every run of up to 12 words); the stable keys agree or not; the parent path
  counts its longest common subsequence over the longer path, and a unique id that agrees places
  the element: path and position then count as agreeing (wrappers around it do not move it). A
  unique-id flag recorded without the id's hash (a content-free target of an older version) is
  neutral.

**Similarity** (:func:`similarity`) is the weighted share of the *recorded* features that agree::

    score = sum(weight of agreeing recorded features) / sum(weight of recorded features)

with the weights of :data:`WEIGHTS`: the accessible name 6 (an alias or a name holding its words
earns 0.75 of it; a name that came from a placeholder or title is a hint and weighs 2); beside a
recorded name, the label, own text, caption and button value support it at 2 each (a fingerprint
without a name, from the first version or a content-free target, weighs its label, text and
caption 6 each); the link destination (with its route) 3; test ids 3; id, name and aria-label
attributes 2, a unique id 2 more, a unique form-field name 2 more; the row header 2; placeholder,
href and autocomplete 1.5; class, title, alt and for 1; role 0.5 (type 0: the gate compares it);
the parent path 2 (times the share in common), sibling index and count 0.5 each. What a person
reads weighs most, developer keys next (a unique one counts double), context least: a redesign
renames classes and moves things far more often than it renames what a button says or where a link
leads, and no context feature can carry an element past a bar on its own.

The normalisations behind the hashes (accessible name, link destination, row header) are part of
the stored format: changing one makes every recorded hash ``changed``, so a change needs a new
fingerprint field, not an edit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ..model.locators import Fingerprint

Match = Literal["same", "changed", "absent"]
NameMatch = Literal["same", "alias", "contains", "changed", "absent"]
OtherName = Literal["same", "contains"]  # how a name with other words in it compares


@dataclass(frozen=True)
class Weights:
    """How much each recorded feature weighs (see the module docstring)."""

    attributes: Mapping[str, float]
    default_attribute: float
    label: float  # label and own text of a fingerprint without an accessible name (v1)
    text: float
    name: float  # the accessible name
    support: float  # label, own text and button value beside a recorded name
    alias: float  # the share of ``name`` an alias match earns
    link: float
    row: float
    caption: float  # the caption of a fingerprint without an accessible name (else ``support``)
    stable_id: float
    stable_name: float
    path: float
    sibling_index: float
    sibling_count: float

    def attribute(self, name: str) -> float:
        return self.attributes.get(name, self.default_attribute)

    def to_json(self) -> dict[str, Any]:
        return {
            "attributes": dict(self.attributes),
            "defaultAttribute": self.default_attribute,
            "label": self.label,
            "text": self.text,
            "name": self.name,
            "support": self.support,
            "alias": self.alias,
            "link": self.link,
            "row": self.row,
            "caption": self.caption,
            "stableId": self.stable_id,
            "stableName": self.stable_name,
            "path": self.path,
            "siblingIndex": self.sibling_index,
            "siblingCount": self.sibling_count,
        }


WEIGHTS: Final = Weights(
    attributes={
        "data-testid": 3.0,
        "data-test": 3.0,
        "data-skillreel": 3.0,
        "id": 2.0,
        "name": 2.0,
        "aria-label": 2.0,
        "placeholder": 1.5,
        "href": 1.5,
        "autocomplete": 1.5,
        "class": 1.0,
        "title": 1.0,
        "alt": 1.0,
        "for": 1.0,
        "role": 0.5,
        "type": 0.0,
    },
    default_attribute=0.5,
    label=6.0,
    text=6.0,
    name=6.0,
    support=2.0,
    alias=0.75,
    link=3.0,
    row=2.0,
    caption=6.0,
    stable_id=2.0,
    stable_name=2.0,
    path=2.0,
    sibling_index=0.5,
    sibling_count=0.5,
)

# Context features: they say where an element is and how it looks, not which element it is.
CONTEXT_ATTRIBUTES: Final = frozenset({"class", "role", "type"})


@dataclass(frozen=True)
class Comparison:
    """How one page element compares with the recorded fingerprint (no content, only outcomes).

    A feature the fingerprint does not hold is ``None`` (not compared, neutral); ``attributes``
    holds the recorded attributes only."""

    tag: bool
    type: bool
    role: bool
    attributes: Mapping[str, Match] = field(default_factory=dict)
    label: Match | None = None
    text: Match | None = None
    name: NameMatch | None = None
    value: Match | None = None
    link: Match | None = None
    row: Match | None = None
    caption: Match | None = None
    stable_id: bool | None = None
    stable_name: bool | None = None
    path_common: int = 0
    path_length: int = 0
    sibling_index: bool = False
    sibling_count: bool = False

    @property
    def gates(self) -> bool:
        """Tag, type and role are equal, and a recorded link destination did not change."""
        return self.tag and self.type and self.role and self.link != "changed"

    def identity_agrees(self) -> bool:
        """At least one identity feature agrees: a stable attribute, the unique id, the accessible
        name (an alias of it, or a name holding its words), the label, the caption, the text, a
        button's value or a link's destination."""
        if self.stable_id or self.stable_name or self.name in ("same", "alias", "contains"):
            return True
        if "same" in (self.label, self.caption, self.text, self.value, self.link):
            return True
        return any(
            m == "same"
            for name, m in self.attributes.items()
            if name not in CONTEXT_ATTRIBUTES and WEIGHTS.attribute(name) > 0
        )


# Input types and roles the gates treat as one kind (twin of kindOfType/kindOfRole in
# element.js): typing into a field whose type went from "search" to "text" is the same action;
# a link, a button and a menu item are all pressed (an <a> that gained role=button is the same
# <a>); a role that makes no control (alert, region, group...) is no kind at all. A password field
# is never of the text kind.
TEXT_ENTRY: Final = frozenset({"text", "search", "email", "url", "tel"})
BUTTON_TYPES: Final = frozenset({"submit", "button", "reset"})
PRESSED: Final = frozenset({"button", "link", "menuitem"})
CONTROL_ROLES: Final = frozenset(
    {
        "checkbox",
        "radio",
        "switch",
        "textbox",
        "combobox",
        "listbox",
        "option",
        "slider",
        "spinbutton",
        "tab",
        "treeitem",
        "gridcell",
        "menuitemcheckbox",
        "menuitemradio",
        "scrollbar",
    }
)


def kind_of_type(type_: str | None) -> str | None:
    if type_ in TEXT_ENTRY:
        return "text"
    return "button" if type_ == "submit" else type_


def kind_of_tag(tag: str, type_: str | None) -> str:
    """A ``<button>`` and an ``<input type=submit|button|reset>`` are one kind (twin of kindOfTag)."""
    return "button" if tag == "input" and type_ in BUTTON_TYPES else tag


def tags_of_kind(tag: str, type_: str | None) -> tuple[str, ...]:
    """The tags an element of this tag and type may have become (twin of tagsOfKind)."""
    return ("button", "input") if kind_of_tag(tag, type_) == "button" else (tag,)


def kind_of_role(role: str | None) -> str | None:
    if role == "searchbox":
        return "textbox"
    if role in PRESSED:
        return "press"
    return role if role in CONTROL_ROLES else None


def _match(recorded: str | None, observed: str | None) -> Match | None:
    if recorded is None:
        return None
    if observed is None:
        return "absent"
    return "same" if recorded == observed else "changed"


def _name_match(
    recorded: Fingerprint, observed: Fingerprint, other_names: Mapping[str, OtherName]
) -> NameMatch | None:
    """The accessible names; ``alias`` when they differ but one is another source of the other's
    name (its label, own text or button value): an aria-label added or removed, for one; else the
    observed name with other words in it (``other_names``, resolve.js's ``otherNames``: the hashes
    of the names it may have been recorded with, each ``contains`` (a run of its whole words) or
    ``same`` (a picker's name with the option it shows masked))."""
    m = _match(recorded.name_hash, observed.name_hash)
    if m == "same" or m is None:
        return m
    if recorded.name_hash in (observed.label_hash, observed.text_hash, observed.value_hash):
        return "alias"
    if observed.name_hash is not None and observed.name_hash in (
        recorded.label_hash,
        recorded.text_hash,
        recorded.value_hash,
    ):
        return "alias"
    if m == "changed" and recorded.name_hash is not None and recorded.name_hash in other_names:
        return other_names[recorded.name_hash]
    return m


def _link_match(recorded: Fingerprint, observed: Fingerprint) -> Match | None:
    """Where a link leads: its path, and its route fragment when one was recorded (twin of
    linkMatch): another path or another route is another link."""
    path = _match(recorded.link_hash, observed.link_hash)
    if recorded.route_hash is None or path == "changed":
        return path
    route = _match(recorded.route_hash, observed.route_hash)
    if route == "changed":
        return route
    return route if path is None else path


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Longest common subsequence of two short tag paths (at most 8 entries each)."""
    row = [0] * (len(b) + 1)
    for x in a:
        prev = 0
        for j, y in enumerate(b, start=1):
            cur = row[j]
            row[j] = prev + 1 if x == y else max(row[j], row[j - 1])
            prev = cur
    return row[len(b)]


def compare(
    recorded: Fingerprint, observed: Fingerprint, *, other_names: Mapping[str, OtherName] | None = None
) -> Comparison:
    """Python twin of ``compare`` in resolve.js, over two fingerprints (``other_names``: see
    :func:`_name_match`)."""
    attrs = {n: m for n, h in recorded.attributes.items() if (m := _match(h, observed.attributes.get(n)))}
    stable = keyed = None
    if recorded.stable_id and "id" in recorded.attributes:
        stable = bool(observed.stable_id) and attrs.get("id") == "same"
    if recorded.stable_name:
        keyed = bool(observed.stable_name) and attrs.get("name") == "same"
    # the unique id it was recorded with places it: wrappers around it do not move it
    placed = bool(stable)
    common = lcs_length(recorded.parent_path, observed.parent_path)
    return Comparison(
        tag=kind_of_tag(recorded.tag, recorded.type) == kind_of_tag(observed.tag, observed.type),
        type=kind_of_type(recorded.type) == kind_of_type(observed.type),
        role=kind_of_role(recorded.role) == kind_of_role(observed.role),
        attributes=attrs,
        label=_match(recorded.label_hash, observed.label_hash),
        text=_match(recorded.text_hash, observed.text_hash),
        name=_name_match(recorded, observed, other_names or {}),
        value=_match(recorded.value_hash, observed.value_hash),
        link=_link_match(recorded, observed),
        row=_match(recorded.row_hash, observed.row_hash),
        caption=_match(recorded.caption_hash, observed.caption_hash),
        stable_id=stable,
        stable_name=keyed,
        path_common=max(len(recorded.parent_path), len(observed.parent_path)) if placed else common,
        path_length=len(observed.parent_path),
        sibling_index=placed or recorded.sibling_index == observed.sibling_index,
        sibling_count=placed or recorded.sibling_count == observed.sibling_count,
    )


def name_weight(recorded: Fingerprint, weights: Weights = WEIGHTS) -> float:
    """The accessible name's weight: a name taken from a placeholder or a title (a hint, not a
    label) weighs like the other supporting sources."""
    hints = (recorded.attributes.get("placeholder"), recorded.attributes.get("title"))
    hinted = recorded.name_hash is not None and recorded.name_hash in hints
    return weights.support if hinted else weights.name


def similarity(recorded: Fingerprint, c: Comparison, weights: Weights = WEIGHTS) -> float:
    """Weighted share of the recorded features that agree, 0 when a gate fails. See the module
    docstring: a feature the fingerprint does not hold weighs nothing either way."""
    if not c.gates:
        return 0.0
    num = den = 0.0
    for name, m in c.attributes.items():
        w = weights.attribute(name)
        den += w
        num += w if m == "same" else 0.0
    named = c.name is not None
    hashed = (
        (weights.support if named else weights.label, c.label),
        (weights.support if named else weights.text, c.text),
        (weights.support, c.value),
        (weights.link, c.link),
        (weights.row, c.row),
        (weights.support if named else weights.caption, c.caption),
    )
    for w, state in hashed:
        if state is not None:
            den += w
            num += w if state == "same" else 0.0
    if c.name is not None:
        w = name_weight(recorded, weights)
        den += w
        share = 1.0 if c.name == "same" else weights.alias if c.name in ("alias", "contains") else 0.0
        num += w * share
    for w, agrees in ((weights.stable_id, c.stable_id), (weights.stable_name, c.stable_name)):
        if agrees is not None:
            den += w
            num += w if agrees else 0.0
    longest = max(len(recorded.parent_path), c.path_length)
    den += weights.path
    num += weights.path * (c.path_common / longest if longest else 1.0)
    den += weights.sibling_index + weights.sibling_count
    num += weights.sibling_index if c.sibling_index else 0.0
    num += weights.sibling_count if c.sibling_count else 0.0
    return round(num / den, 6) if den else 0.0
