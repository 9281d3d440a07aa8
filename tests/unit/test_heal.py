"""The pure decision rule of replay resolution (locate/heal.py, over locate/similarity.py and
locate/probe.py), on hand-built fingerprints.

Each drift case of issue 4 is modelled as the recorded fingerprint plus the page after the change
(a list of elements with the bundle selectors that still designate them). The real-page twins of
these cases run in tests/integration/replay/test_drift.py.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Unpack

import pytest

from skillreel.locate import heal
from skillreel.locate import probe as probe_module
from skillreel.locate import similarity as similarity_module
from skillreel.locate.probe import CandidateHit, Observed, Probe
from skillreel.locate.similarity import WEIGHTS, compare, name_weight, similarity
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate
from tests.support.fingerprints import CANCEL, EMAIL, PASSWORD, SAVE, Spec, fp, h, variant


def bundle(recorded: Fingerprint, *selectors: str) -> LocatorBundle:
    """A bundle of CSS candidates; a selector ``role=... name=...`` or ``link=...`` is a hashed one."""

    def strategy(s: str) -> str:
        return "role-name" if s.startswith("role=") else "href" if s.startswith("link=") else "css"

    return LocatorBundle(
        candidates=tuple(
            LocatorCandidate(strategy=strategy(s), selector=s, match_count=1)  # type: ignore[arg-type]
            for s in selectors
        ),
        fingerprint=recorded,
    )


@dataclass
class El:
    fingerprint: Fingerprint
    selectors: set[str] = field(default_factory=set)
    visible: bool = True


def probe(b: LocatorBundle, page: list[El]) -> Probe:
    """What resolve.js reports for this page (the same computation as FakeDriver.probe)."""
    rec = b.fingerprint
    hits = []
    for rank, c in enumerate(b.candidates):
        found = [i for i, e in enumerate(page) if c.selector in e.selectors]
        visible = [i for i in found if page[i].visible]
        only = visible[0] if len(visible) == 1 else None
        hits.append(CandidateHit(rank, len(found), len(visible), only))
    observed = {i: Observed(i, e.visible, compare(rec, e.fingerprint)) for i, e in enumerate(page)}
    return Probe("t", tuple(hits), observed, heal.pool(rec, observed), len(page))


def decide(b: LocatorBundle, page: list[El], allow_heal: bool = True) -> heal.Resolution:
    return heal.decide(b.fingerprint, probe(b, page), allow_heal=allow_heal)


# ---- a small page (tests/support/fingerprints.py): e-mail, password, Save and Cancel -------------


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


def test_a_read_by_position_takes_the_designated_element_despite_a_twin_but_not_a_better_one() -> None:
    """An extraction (``positional``) reads what its ranked locator designates when a look-alike
    ties it; an element that beats the hit by more than the margin still means a decoy."""
    b = bundle(fp(**variant_dict(SAVE, attrs={}, sib=(0, 2))), "form > button:nth-of-type(1)")
    same = fp(**variant_dict(SAVE, attrs={}, sib=(0, 2)))
    other = fp(**variant_dict(SAVE, attrs={}, sib=(1, 2)))
    page = [El(same, {"form > button:nth-of-type(1)"}), El(other)]
    read = heal.decide(b.fingerprint, probe(b, page), allow_heal=False, positional=True)
    assert (read.outcome, read.element) == ("exact", 0)
    cancel_now = variant(CANCEL, sib=(0, 1))
    decoy = [El(cancel_now, {"#cancel", "form > button:nth-of-type(1)"})]
    assert heal.decide(
        SAVE_B.fingerprint, probe(SAVE_B, decoy), allow_heal=True, positional=True
    ).outcome == ("not-found")


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
    assert similarity(rec, compare(rec, weak)) >= heal.EXACT_MIN
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


def test_floor_is_below_every_bar() -> None:
    assert pytest.approx(min(heal.EXACT_MIN, heal.HEAL_MIN) - heal.MARGIN) == heal.FLOOR
    assert heal.HEAL_MIN >= heal.EXACT_MIN


@pytest.mark.parametrize("module", [heal, similarity_module, probe_module])
def test_heal_module_is_pure(module: ModuleType) -> None:
    source = Path(module.__file__ or "").read_text()
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


def test_pool_is_the_visible_gate_passing_elements_above_the_floor_best_first() -> None:
    rec = fp(**SAVE)
    page = [
        El(fp(**CANCEL)),
        El(variant(SAVE, attrs={"id": "x"})),
        El(fp(**SAVE), visible=False),
        El(fp(**SAVE)),
        El(fp("a", type_=None, role="link", text="Save")),
    ]
    observed = {i: Observed(i, e.visible, compare(rec, e.fingerprint)) for i, e in enumerate(page)}
    scores = {i: similarity(rec, o.comparison) for i, o in observed.items()}
    assert scores[3] > scores[1] > heal.FLOOR > scores[0]
    assert heal.pool(rec, observed) == (3, 1)
    many = {i: Observed(i, True, compare(rec, rec)) for i in range(heal.TOP_K + 3)}
    assert heal.pool(rec, many) == tuple(range(heal.TOP_K))


# ---- issue 10: what real pages offer (Django-admin-like markup) --------------------------------
#
# Each case below is one defect seen on a real admin application. The fingerprints are written the
# way today's recorder describes those elements (fingerprint.js): accessible name, button value,
# link destination, row header and stable id when the page offers them.


def role_name(role: str, name: str) -> str:
    return f"role={role} name={h(name)}"


ROW = ("tr", "tbody", "table", "div", "main", "body", "html")


def message(text: str | None) -> Fingerprint:
    """A success message ``<li class="success">The book “X” was added.</li>`` (no accessible name)."""
    return fp(
        "li",
        type_=None,
        role=None,
        attrs={"class": "success"},
        text=text,
        path=("ul", "div", "main", "body", "html"),
    )


def test_a_redacted_text_is_neutral_not_a_mismatch() -> None:
    """Defect 1: the message held the typed title, so the recorder kept no text hash; the page's
    message (with another title) must not count against it."""
    recorded = message(None)
    page = [
        El(
            fp(
                "li",
                type_=None,
                role=None,
                attrs={"class": "info"},
                text="Welcome",
                path=("ul", "div", "main", "body", "html"),
            ),
            {"ul > li"},
        ),
        El(message("The book “A Replayed Almanac” was added."), {"ul > li.success"}),
    ]
    d = decide(bundle(recorded, "ul > li.success"), page)
    assert (d.outcome, d.element, d.score) == ("exact", 1, 1.0)


def test_a_search_result_link_whose_name_was_typed_is_found_by_its_destination() -> None:
    """Defect 1 again: the result link's text is the searched title (redacted); its destination
    (a record path, the record's id as "*", the query keys) still names the kind of link."""
    recorded = fp(
        "a", type_=None, role="link", link="/admin/library/book/*/change/", path=("th", *ROW), sib=(0, 1)
    )
    result = fp(
        "a",
        type_=None,
        role="link",
        name="Walden",
        text="Walden",
        link="/admin/library/book/*/change/",
        path=("th", *ROW),
    )
    sort_link = fp(
        "a",
        type_=None,
        role="link",
        name="Title",
        text="Title",
        link="/admin/library/book/",
        path=("th", "tr", "thead", "table", "div", "main", "body", "html"),
    )
    d = decide(
        bundle(recorded, "#result_list > tbody > tr > th > a"),
        [El(sort_link), El(result, {"#result_list > tbody > tr > th > a"})],
    )
    assert (d.outcome, d.element) == ("exact", 1)
    assert decide(bundle(recorded, "#gone"), [El(sort_link), El(result)]).element == 1


SUBMIT_ROW = ("div", "form", "div", "main", "body", "html")


def submit(value: str, name: str, index: int, count: int = 3) -> Fingerprint:
    return fp(
        "input",
        type_="submit",
        attrs={"name": name, "type": "submit"},
        name=value,
        value=value,
        path=SUBMIT_ROW,
        sib=(index, count),
    )


def test_a_submit_input_is_known_by_its_value_not_its_position() -> None:
    """Defect 2: ``<input type=submit value="Save">`` had no identity; one more input before it
    moves the structural path onto another button."""
    recorded = submit("Save", "_save", 0)
    b = bundle(recorded, role_name("button", "Save"), "div > input:nth-of-type(1)")
    hidden = submit("Save and add another", "_addanother", 0, 4)
    page = [
        El(hidden, {"div > input:nth-of-type(1)"}),
        El(submit("Save", "_save", 1, 4), {role_name("button", "Save")}),
        El(submit("Save and continue editing", "_continue", 2, 4)),
    ]
    d = decide(b, page)
    assert (d.outcome, d.element, d.rank) == ("exact", 1, 0)
    # Without the role-name candidate, the structural hit is refused and the fingerprint heals.
    d = decide(bundle(recorded, "div > input:nth-of-type(1)"), page)
    assert (d.outcome, d.element) == ("healed", 1)


def test_log_in_submit_without_name_or_id_heals_by_its_value() -> None:
    recorded = fp(
        "input",
        type_="submit",
        attrs={"type": "submit"},
        name="Log in",
        value="Log in",
        path=("div", "form", "div", "div", "body", "html"),
        sib=(2, 3),
    )
    moved = fp(
        "input",
        type_="submit",
        attrs={"type": "submit", "class": "btn"},
        name="Log in",
        value="Log in",
        path=("div", "div", "form", "div", "div", "body", "html"),
        sib=(0, 1),
    )
    other = fp(
        "input",
        type_="submit",
        attrs={"type": "submit"},
        name="Search",
        value="Search",
        path=("form", "div", "body", "html"),
    )
    d = decide(bundle(recorded, "form > div:nth-of-type(3) > input"), [El(other), El(moved)])
    assert (d.outcome, d.element) == ("healed", 1)


CHECKBOX_PATH = ("th", "tr", "thead", "table", "div", "form", "div", "main")
TOGGLE = {"id": "action-toggle", "type": "checkbox"}


def test_an_added_accessible_name_does_not_outweigh_an_unchanged_unique_id() -> None:
    """Defect 3: the newer version adds ``aria-label`` to a checkbox whose id did not change."""
    recorded = fp("input", type_="checkbox", role="checkbox", attrs=TOGGLE, path=CHECKBOX_PATH, stable=True)
    newer = fp(
        "input",
        type_="checkbox",
        role="checkbox",
        attrs={"id": "action-toggle", "type": "checkbox", "aria-label": "Select all objects"},
        label="Select all objects",
        name="Select all objects",
        path=CHECKBOX_PATH,
        stable=True,
    )
    row = fp(
        "input",
        type_="checkbox",
        role="checkbox",
        attrs={
            "type": "checkbox",
            "class": "action-select",
            "name": "_selected_action",
            "aria-label": "Select this object",
        },
        name="Select this object",
        label="Select this object",
        path=("td", *ROW),
    )
    d = decide(bundle(recorded, "#action-toggle"), [El(row), El(newer, {"#action-toggle"})])
    assert (d.outcome, d.element, d.score) == ("exact", 1, 1.0)


def test_a_renamed_label_beside_an_unchanged_unique_id_still_resolves() -> None:
    """A label "Select all" replaced by an aria-label: the name changed, the unique id did not."""
    recorded = fp(
        "input",
        type_="checkbox",
        role="checkbox",
        attrs=TOGGLE,
        label="Select all",
        name="Select all",
        path=CHECKBOX_PATH,
        stable=True,
    )
    newer = fp(
        "input",
        type_="checkbox",
        role="checkbox",
        attrs={"id": "action-toggle", "type": "checkbox", "aria-label": "Select all objects"},
        label="Select all objects",
        name="Select all objects",
        path=CHECKBOX_PATH,
        stable=True,
    )
    d = decide(bundle(recorded, "#action-toggle"), [El(newer, {"#action-toggle"})])
    assert (d.outcome, d.element) == ("exact", 0)
    assert d.score >= heal.EXACT_MIN


def add_link(model: str, index: int, *, count: int = 3) -> Fingerprint:
    return fp(
        "a",
        type_=None,
        role="link",
        attrs={"class": "addlink", "href": f"/admin/auth/{model}/add/"},
        name="Add",
        text="Add",
        link=f"/admin/auth/{model}/add/",
        row=model.title() + "s",
        path=("td", "tr", "tbody", "table", "div", "div", "main", "body"),
        sib=(0, 1),
    )


def test_links_that_differ_only_by_their_target() -> None:
    """Defect 4: three "Add" links in a table differ by href (and row) only."""
    recorded = add_link("group", 0)
    models = ["user", "group", "permission"]  # a newer version lists one more model first
    page = [El(add_link(m, i), {f"link={h('/admin/auth/' + m + '/add/')}"}) for i, m in enumerate(models)]
    d = decide(bundle(recorded, f"link={h('/admin/auth/group/add/')}", "tr:nth-of-type(1) a"), page)
    assert (d.outcome, d.element, d.rank) == ("exact", 1, 0)
    # Only the positional path left (it now designates the first row): a link to another place is
    # never this link (a changed destination fails the gates), and the fingerprint heals.
    page[0].selectors.add("tr:nth-of-type(1) a")
    d = decide(bundle(recorded, "tr:nth-of-type(1) a"), page)
    assert (d.outcome, d.element, d.runner_up) == ("healed", 1, None)
    assert not compare(recorded, page[0].fingerprint).gates


def test_the_only_add_link_left_leads_elsewhere_and_is_not_clicked() -> None:
    """The model's row is gone; the one "Add" link left (same name, class and place) adds another
    kind of record: nothing is clicked, healing or not."""
    recorded = add_link("group", 0)
    page = [El(add_link("user", 0), {"tr:nth-of-type(1) a"})]
    for allow in (True, False):
        assert decide(bundle(recorded, "tr:nth-of-type(1) a"), page, allow_heal=allow).outcome == "not-found"


def test_two_links_with_the_same_destination_and_row_are_ambiguous() -> None:
    recorded = add_link("group", 0)
    page = [El(add_link("group", 0)), El(add_link("group", 1))]
    assert decide(bundle(recorded, "#gone"), page).outcome == "ambiguous"


def test_an_aria_label_added_to_a_named_button_is_an_alias_of_its_name() -> None:
    recorded = fp(attrs={"class": "default"}, name="Save", text="Save", sib=(0, 2))
    labelled = fp(
        attrs={"class": "default", "aria-label": "Save the book"},
        name="Save the book",
        label="Save the book",
        text="Save",
        sib=(0, 2),
    )
    other = fp(attrs={"class": "default"}, name="Delete", text="Delete", sib=(1, 2))
    rec = recorded
    assert compare(rec, labelled).name == "alias"
    assert compare(labelled, recorded).name == "alias"  # and the other way round
    assert compare(rec, other).name == "changed"
    d = decide(bundle(recorded, "#gone"), [El(other), El(labelled)])
    assert (d.outcome, d.element) == ("healed", 1)


def test_a_search_box_that_became_a_text_field_is_the_same_kind() -> None:
    """Flask-Admin 1.6 -> 2.x: ``<input type=search name=search>`` became ``type=text``."""
    recorded = fp(
        "input", type_="search", role="searchbox", attrs={"name": "search", "type": "search"}, sib=(0, 1)
    )
    newer = fp("input", type_="text", role="textbox", attrs={"name": "search", "type": "text"}, sib=(0, 1))
    assert compare(recorded, newer).gates
    password = fp("input", type_="password", role="textbox", attrs={"name": "search"}, sib=(0, 1))
    assert not compare(fp("input", type_="text", role="textbox"), password).gates
    assert not compare(password, fp("input", type_="text", role="textbox")).gates
    assert not compare(recorded, fp("input", type_="number", role="textbox")).gates


def test_a_search_field_with_a_reworded_placeholder_is_kept_by_its_unique_form_name() -> None:
    """Flask-Admin 1.6 -> 2.x: the list's search field changed type, class and placeholder; its form
    name ``search`` (unique on the page) and its place did not. A name taken from a placeholder is
    a hint and weighs like one."""
    path = ("div", "form", "li", "ul", "div", "body", "html")
    recorded = Fingerprint(
        tag="input",
        type="search",
        role="searchbox",
        parent_path=path,
        attributes={
            "name": h("search"),
            "class": h("form-control"),
            "placeholder": h("Search: name, city"),
            "type": h("search"),
        },
        label_hash=h("Search: name, city"),
        name_hash=h("Search: name, city"),
        stable_name=True,
    )
    newer = Fingerprint(
        tag="input",
        type="text",
        role="textbox",
        parent_path=path,
        attributes={
            "name": h("search"),
            "class": h("col-auto form-control"),
            "placeholder": h("name, city"),
            "type": h("text"),
        },
        label_hash=h("name, city"),
        name_hash=h("name, city"),
        stable_name=True,
    )
    page_size = fp(
        "input", type_="text", role="textbox", attrs={"name": "page_size"}, path=path, name="Page size"
    )
    d = decide(bundle(recorded, 'input[name="search"]'), [El(page_size), El(newer, {'input[name="search"]'})])
    assert (d.outcome, d.element) == ("exact", 1)
    assert name_weight(recorded) == WEIGHTS.support
    # The same field recorded with a real label keeps the full weight of its name.
    labelled = recorded.model_copy(update={"name_hash": h("Search")})
    assert name_weight(labelled) == WEIGHTS.name


def test_not_found_says_whether_there_was_any_candidate() -> None:
    recorded = Fingerprint(tag="button", type="submit")
    empty = Probe(token="t", hits=(), observed={}, pool=(), scored=0)
    assert (
        heal.decide(recorded, empty, allow_heal=True).reason == "no element of the same kind is on the page"
    )
    below_floor = Probe(token="t", hits=(), observed={}, pool=(), scored=7)
    reason = heal.decide(recorded, below_floor, allow_heal=True).reason
    assert reason == "7 candidate(s) of the same kind, none close enough to the recorded element"
    assert "same kind is on" not in heal.none_close_enough(1)
