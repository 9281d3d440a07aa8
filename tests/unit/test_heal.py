"""The pure decision rule of replay resolution (locate/heal.py), on hand-built fingerprints.

Each drift case of issue 4 is modelled as the recorded fingerprint plus the page after the change
(a list of elements with the bundle selectors that still designate them). The real-page twins of
these cases run in tests/integration/replay/test_drift.py.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, Unpack

import pytest

from skillreel.locate import heal
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate, text_hash
from tests.factory import SALT


def h(text: str) -> str:
    value = text_hash(SALT, text)
    assert value is not None
    return value


def fp(
    tag: str = "button",
    *,
    type_: str | None = "submit",
    role: str | None = "button",
    attrs: dict[str, str] | None = None,
    path: tuple[str, ...] = ("form", "main", "body", "html"),
    sib: tuple[int, int] = (0, 1),
    label: str | None = None,
    text: str | None = None,
) -> Fingerprint:
    return Fingerprint(
        tag=tag,
        type=type_,
        role=role,
        attributes={k: h(v) for k, v in (attrs or {}).items()},
        parent_path=path,
        sibling_index=sib[0],
        sibling_count=sib[1],
        label_hash=h(label) if label else None,
        text_hash=h(text) if text else None,
    )


def bundle(recorded: Fingerprint, *selectors: str) -> LocatorBundle:
    return LocatorBundle(
        candidates=tuple(LocatorCandidate(strategy="css", selector=s, match_count=1) for s in selectors),
        fingerprint=recorded,
    )


@dataclass
class El:
    fingerprint: Fingerprint
    selectors: set[str] = field(default_factory=set)
    visible: bool = True


def probe(b: LocatorBundle, page: list[El]) -> heal.Probe:
    """What resolve.js reports for this page (the same computation as FakeDriver.probe)."""
    rec = b.fingerprint
    hits = []
    for rank, c in enumerate(b.candidates):
        found = [i for i, e in enumerate(page) if c.selector in e.selectors]
        visible = [i for i in found if page[i].visible]
        only = visible[0] if len(visible) == 1 else None
        hits.append(heal.CandidateHit(rank, len(found), len(visible), only))
    observed = {i: heal.Observed(i, e.visible, heal.compare(rec, e.fingerprint)) for i, e in enumerate(page)}
    scores = {i: heal.similarity(rec, o.comparison) for i, o in observed.items()}
    pool = sorted(
        (
            i
            for i, e in enumerate(page)
            if e.visible and observed[i].comparison.gates and scores[i] >= heal.FLOOR
        ),
        key=lambda i: -scores[i],
    )[: heal.TOP_K]
    return heal.Probe("t", tuple(hits), observed, tuple(pool), len(page))


def decide(b: LocatorBundle, page: list[El], allow_heal: bool = True) -> heal.Resolution:
    return heal.decide(b.fingerprint, probe(b, page), allow_heal=allow_heal)


# ---- a small page: an e-mail field, a password field, Save and Cancel buttons -------------------


class Shape(TypedDict, total=False):
    """Keyword arguments of :func:`fp` but the attributes."""

    tag: str
    type_: str | None
    role: str | None
    path: tuple[str, ...]
    sib: tuple[int, int]
    label: str | None
    text: str | None


class Spec(Shape, total=False):
    """Every keyword argument of :func:`fp`: one element of the page."""

    attrs: dict[str, str]


EMAIL = Spec(
    tag="input",
    type_="text",
    role="textbox",
    label="Email",
    attrs={"id": "email", "name": "email", "class": "field", "placeholder": "Email", "type": "text"},
    sib=(0, 2),
)
PASSWORD = Spec(
    tag="input",
    type_="password",
    role="textbox",
    label="Password",
    attrs={"id": "pw", "name": "pw", "class": "field", "type": "password"},
    sib=(1, 2),
)
SAVE = Spec(attrs={"id": "save", "class": "btn primary"}, text="Save", sib=(0, 2))
CANCEL = Spec(attrs={"id": "cancel", "class": "btn"}, text="Cancel", sib=(1, 2))


def variant(
    base: Spec, *, attrs: Mapping[str, str | None] | None = None, **changes: Unpack[Shape]
) -> Fingerprint:
    """``base`` with these changes; an attribute changed to None is removed."""
    merged: Spec = {**base, **changes}
    if attrs is not None:
        kept = dict(base.get("attrs", {}))
        for k, v in attrs.items():
            if v is None:
                kept.pop(k, None)
            else:
                kept[k] = v
        merged["attrs"] = kept
    return fp(**merged)


SAVE_B = bundle(fp(**SAVE), "#save", "form > button:nth-of-type(1)")
EMAIL_B = bundle(fp(**EMAIL), "#email", "form > input:nth-of-type(1)")


def test_unchanged_page_resolves_exactly_by_the_first_candidate() -> None:
    page = [
        El(fp(**SAVE), {"#save", "form > button:nth-of-type(1)"}),
        El(fp(**CANCEL), {"#cancel", "form > button:nth-of-type(2)"}),
    ]
    d = decide(SAVE_B, page)
    assert (d.outcome, d.element, d.rank, d.score) == ("exact", 0, 0, 1.0)


@pytest.mark.parametrize(
    ("case", "save_after", "selectors", "outcome"),
    [
        ("id renamed", variant(SAVE, attrs={"id": "save-btn"}), {"form > button:nth-of-type(1)"}, "exact"),
        ("id renamed, no css either", variant(SAVE, attrs={"id": "save-btn"}), set(), "healed"),
        ("classes changed", variant(SAVE, attrs={"class": "button button--primary"}), {"#save"}, "exact"),
        (
            "classes changed, no selector",
            variant(SAVE, attrs={"class": "button button--primary"}),
            set(),
            "healed",
        ),
        (
            "wrapper added",
            variant(SAVE, path=("span", "form", "main", "body", "html"), sib=(0, 1)),
            set(),
            "healed",
        ),
        ("sibling inserted before", variant(SAVE, sib=(1, 3)), set(), "healed"),
        (
            "moved to another container",
            variant(SAVE, path=("div", "aside", "body", "html"), sib=(0, 1)),
            set(),
            "healed",
        ),
        ("label text changed", variant(SAVE, text="Save changes"), {"#save"}, "exact"),
        (
            "layout changed",
            variant(
                SAVE, attrs={"class": "col-4 btn"}, path=("div", "div", "form", "main", "body"), sib=(0, 1)
            ),
            set(),
            "healed",
        ),
    ],
)
def test_drift_that_must_heal(case: str, save_after: Fingerprint, selectors: set[str], outcome: str) -> None:
    cancel = El(fp(**CANCEL), {"#cancel"})
    page = [cancel, El(save_after, selectors)]
    d = decide(SAVE_B, page)
    assert (d.outcome, d.element) == (outcome, 1), (case, d)


@pytest.mark.parametrize(
    ("case", "changes"),
    [
        ("id renamed", {"attrs": {"id": "e-mail"}}),
        ("classes changed", {"attrs": {"class": "input input--lg"}}),
        ("wrapper added", {"path": ("div", "form", "main", "body", "html"), "sib": (0, 1)}),
        ("sibling inserted before", {"sib": (1, 3)}),
        ("moved", {"path": ("fieldset", "section", "body", "html"), "sib": (0, 1)}),
        (
            "layout changed",
            {
                "path": ("div", "div", "div", "form", "main", "body", "html"),
                "sib": (0, 1),
                "attrs": {"class": "form-control"},
            },
        ),
    ],
)
def test_field_drift_heals_without_selectors(case: str, changes: dict[str, Any]) -> None:
    page = [El(variant(PASSWORD)), El(variant(EMAIL, **changes))]
    d = decide(EMAIL_B, page)
    assert (d.outcome, d.element) == ("healed", 1), (case, d)


def test_field_label_changed_still_resolves_by_its_locator() -> None:
    changed = variant(EMAIL, label="E-mail address", attrs={"placeholder": "you@example.com"})
    d = decide(EMAIL_B, [El(variant(PASSWORD)), El(changed, {"#email"})])
    assert (d.outcome, d.element) == ("exact", 1)


def test_a_redesign_that_keeps_only_visible_labels_heals() -> None:
    """Ids, names, classes and test ids all renamed, a wrapper added: the visible text still identifies."""
    recorded = fp(
        attrs={"data-testid": "approve", "class": "approve"},
        text="Approve",
        path=("li", "ul", "section", "main", "body", "html"),
        sib=(0, 1),
    )
    redesigned = fp(
        attrs={"data-testid": "approve-invoice", "class": "btn btn-approve"},
        text="Approve",
        path=("li", "ul", "section", "div", "main", "body", "html"),
        sib=(0, 1),
    )
    other = fp(
        attrs={"class": "btn"},
        text="Reject",
        path=("li", "ul", "section", "div", "main", "body", "html"),
        sib=(0, 1),
    )
    d = decide(bundle(recorded, "[data-testid=approve]"), [El(other), El(redesigned)])
    assert (d.outcome, d.element) == ("healed", 1)


def test_target_removed_fails_closed() -> None:
    page = [El(fp(**CANCEL), {"#cancel", "form > button:nth-of-type(1)"})]
    d = decide(SAVE_B, page)
    assert d.outcome == "not-found"
    assert d.element is None


def test_neighbour_taking_the_structural_slot_is_not_the_target() -> None:
    """Save removed: Cancel now sits where Save was and the CSS path designates it."""
    cancel_now = variant(CANCEL, sib=(0, 1))
    page = [El(cancel_now, {"#cancel", "form > button:nth-of-type(1)"})]
    assert decide(SAVE_B, page).outcome == "not-found"


def test_two_identical_candidates_are_ambiguous() -> None:
    twin = variant(SAVE, attrs={"id": None}, sib=(0, 3))
    page = [
        El(twin, {"form > button:nth-of-type(1)"}),
        El(variant(SAVE, attrs={"id": None}, sib=(1, 3))),
        El(variant(CANCEL, sib=(2, 3))),
    ]
    d = decide(SAVE_B, page)
    assert d.outcome == "ambiguous"
    assert d.element is None


def test_exact_hit_with_an_equal_twin_elsewhere_is_ambiguous() -> None:
    """The structural path still designates one button, but an identical one appeared beside it."""
    b = bundle(fp(**variant_dict(SAVE, attrs={}, sib=(0, 2))), "form > button:nth-of-type(1)")
    same = fp(**variant_dict(SAVE, attrs={}, sib=(0, 2)))
    other = fp(**variant_dict(SAVE, attrs={}, sib=(1, 2)))
    page = [El(same, {"form > button:nth-of-type(1)"}), El(other)]
    assert decide(b, page).outcome == "ambiguous"


def variant_dict(base: Spec, **changes: Unpack[Spec]) -> Spec:
    return {**base, **changes}


def test_decoy_that_took_the_old_id_is_not_a_match() -> None:
    decoy = fp(
        attrs={"id": "save", "class": "btn danger"},
        text="Delete everything",
        path=("div", "aside", "body", "html"),
        sib=(2, 3),
    )
    page = [El(decoy, {"#save"}), El(fp(**CANCEL), {"#cancel"})]
    assert decide(SAVE_B, page).outcome == "not-found"
    assert decide(SAVE_B, page, allow_heal=False).outcome == "not-found"


def test_decoy_is_passed_over_for_the_real_target_that_lost_its_id() -> None:
    decoy = fp(
        attrs={"id": "save", "class": "btn danger"},
        text="Delete everything",
        path=("div", "aside", "body", "html"),
        sib=(2, 3),
    )
    real = variant(SAVE, attrs={"id": "store"})
    page = [El(decoy, {"#save"}), El(real), El(fp(**CANCEL))]
    d = decide(SAVE_B, page)
    assert (d.outcome, d.element) == ("healed", 1)


def test_a_better_element_beating_the_hit_by_the_margin_sends_resolution_to_healing() -> None:
    weak = variant(EMAIL, attrs={"name": "mail"}, label="Mail")
    real = variant(EMAIL, attrs={"id": "e-mail"})
    page = [El(real), El(weak, {"#email"})]
    rec = EMAIL_B.fingerprint
    assert heal.similarity(rec, heal.compare(rec, weak)) >= heal.EXACT_MIN
    d = decide(EMAIL_B, page)
    assert (d.outcome, d.element) == ("healed", 0)
    assert decide(EMAIL_B, page, allow_heal=False).outcome == "not-found"


def test_heal_off_refuses_healing() -> None:
    page = [El(variant(SAVE, attrs={"id": "save-btn"})), El(fp(**CANCEL))]
    assert decide(SAVE_B, page).outcome == "healed"
    d = decide(SAVE_B, page, allow_heal=False)
    assert d.outcome == "not-found"
    assert "healing is off" in d.reason


def test_position_and_classes_alone_never_heal() -> None:
    bare = fp(attrs={"class": "icon"}, sib=(0, 2))
    b = bundle(bare, "#gone")
    page = [El(fp(attrs={"class": "icon"}, sib=(0, 2)))]
    assert decide(b, page).outcome == "not-found"


def test_hidden_elements_are_never_chosen() -> None:
    page = [El(fp(**SAVE), {"#save"}, visible=False), El(fp(**CANCEL))]
    assert decide(SAVE_B, page).outcome == "not-found"


def test_hidden_duplicate_does_not_make_a_selector_ambiguous() -> None:
    page = [El(fp(**SAVE), {"#save"}, visible=False), El(fp(**SAVE), {"#save"})]
    d = decide(SAVE_B, page)
    assert (d.outcome, d.element) == ("exact", 1)


def test_gates_type_and_role() -> None:
    link = fp("a", type_=None, role="link", attrs={"id": "save"}, text="Save")
    page = [El(link, {"#save"})]
    assert decide(SAVE_B, page).outcome == "not-found"
    reset = variant(SAVE, type_="reset")
    assert decide(SAVE_B, [El(reset, {"#save"})]).outcome == "not-found"


def test_similarity_bounds() -> None:
    rec = fp(**SAVE)
    assert heal.similarity(rec, heal.compare(rec, rec)) == 1.0
    other = fp("a", type_=None, role="link")
    assert heal.similarity(rec, heal.compare(rec, other)) == 0.0


def test_floor_is_below_every_bar() -> None:
    assert pytest.approx(min(heal.EXACT_MIN, heal.HEAL_MIN) - heal.MARGIN) == heal.FLOOR
    assert heal.HEAL_MIN >= heal.EXACT_MIN


@pytest.mark.parametrize(
    ("a", "b", "n"),
    [
        ((), (), 0),
        (("a",), ("a",), 1),
        (("div", "form", "body"), ("form", "body"), 2),
        (("a", "b", "c"), ("c", "b", "a"), 1),
    ],
)
def test_lcs(a: tuple[str, ...], b: tuple[str, ...], n: int) -> None:
    assert heal.lcs_length(a, b) == n


def test_probe_from_json_round_trip_and_refusals() -> None:
    data: dict[str, Any] = {
        "token": "p1",
        "hits": [{"rank": 0, "total": 1, "visible": 1, "element": 0}],
        "observed": [
            {
                "element": 0,
                "visible": True,
                "comparison": {
                    "tag": True,
                    "type": True,
                    "role": True,
                    "attributes": {"id": "same"},
                    "label": None,
                    "text": "changed",
                    "pathCommon": 3,
                    "pathLength": 4,
                    "siblingIndex": True,
                    "siblingCount": False,
                },
            }
        ],
        "pool": [0],
        "scored": 5,
    }
    p = heal.probe_from_json(data)
    assert p.hits[0].element == 0
    assert p.observed[0].comparison.text == "changed"
    with pytest.raises(heal.ProbeShapeError):
        heal.probe_from_json({**data, "pool": [3]})
    with pytest.raises(heal.ProbeShapeError):
        heal.probe_from_json({**data, "hits": [{"rank": -1, "total": 1, "visible": 1}]})
    bad = {**data, "observed": [{**data["observed"][0], "comparison": {"tag": "yes"}}]}
    with pytest.raises(heal.ProbeShapeError):
        heal.probe_from_json(bad)


def test_heal_module_is_pure() -> None:
    source = Path(heal.__file__).read_text()
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    imported |= {
        (node.module or "").split(".")[0]
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.level == 0
    }
    assert not imported & {"playwright", "sqlite3", "os", "subprocess", "socket", "pathlib"}


def test_not_found_says_whether_there_was_any_candidate() -> None:
    recorded = Fingerprint(tag="button", type="submit")
    empty = heal.Probe(token="t", hits=(), observed={}, pool=(), scored=0)
    assert (
        heal.decide(recorded, empty, allow_heal=True).reason == "no element of the same kind is on the page"
    )
    below_floor = heal.Probe(token="t", hits=(), observed={}, pool=(), scored=7)
    reason = heal.decide(recorded, below_floor, allow_heal=True).reason
    assert reason == "7 candidate(s) of the same kind, none close enough to the recorded element"
    assert "same kind is on" not in heal.none_close_enough(1)
