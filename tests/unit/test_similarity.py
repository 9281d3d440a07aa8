"""The Python twin of the in-page comparison (locate/similarity.py): gates, features, weights and
the similarity score, on hand-built fingerprints. resolve.js is held equal to it by
tests/integration/replay/test_resolve_parity.py.
"""

from __future__ import annotations

import pytest

from skillreel.locate.similarity import WEIGHTS, OtherName, compare, lcs_length, similarity
from skillreel.model.locators import Fingerprint
from tests.support.fingerprints import SAVE, fp, h


def test_similarity_bounds() -> None:
    rec = fp(**SAVE)
    assert similarity(rec, compare(rec, rec)) == 1.0
    other = fp("a", type_=None, role="link")
    assert similarity(rec, compare(rec, other)) == 0.0


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
    assert lcs_length(a, b) == n


def test_features_not_recorded_weigh_nothing_either_way() -> None:
    bare = fp(attrs={"id": "go"}, sib=(0, 1))
    rich = fp(
        attrs={"id": "go", "class": "x", "aria-label": "Go"},
        name="Go",
        text="Go",
        value="Go",
        link="/x",
        row="Row",
        label="Go",
        stable=True,
        sib=(0, 1),
    )
    c = compare(bare, rich)
    assert (c.name, c.text, c.label, c.value, c.link, c.row, c.stable_id) == (None,) * 7
    assert dict(c.attributes) == {"id": "same"}
    assert similarity(bare, c) == 1.0


def test_the_name_weighs_most_and_its_sources_support_it() -> None:
    w = WEIGHTS
    assert w.name >= max(w.attributes.values()) * 2
    assert w.support < w.name
    assert w.alias < 1.0
    # Beside a recorded name, a changed own text costs the support weight, not the v1 text weight.
    recorded = fp(name="Save", text="Save", sib=(0, 1))
    c = compare(recorded, fp(name="Save", text="Save now", sib=(0, 1)))
    den = w.name + w.support + w.path + w.sibling_index + w.sibling_count
    assert similarity(recorded, c) == pytest.approx(1 - w.support / den, abs=1e-6)


@pytest.mark.parametrize(
    ("recorded", "observed", "passes"),
    [
        ("link", "button", True),  # Flask-Admin 2.x: <a class="dropdown-toggle" role="button">
        ("button", "menuitem", True),
        (None, "alert", True),  # a message container that gained role="alert"
        ("region", None, True),
        ("textbox", "searchbox", True),
        ("link", "checkbox", False),
        ("button", "textbox", False),
        ("checkbox", "radio", False),
        ("switch", "checkbox", False),
    ],
)
def test_roles_gate_by_kind(recorded: str | None, observed: str | None, passes: bool) -> None:
    a = fp("a", type_=None, role=recorded)
    b = fp("a", type_=None, role=observed)
    assert compare(a, b).gates is passes
    assert compare(b, a).gates is passes


# ---- issue 28: names as people read them, identity that survives wrappers ----


def test_a_name_holding_the_recorded_words_is_strong_evidence() -> None:
    rec = fp(name="Log in", text="Log in", attrs={"class": "btn"})
    themed = fp(name="Log in arrow_forward", text="Log in arrow_forward", attrs={"class": "mdc"})
    contains: OtherName = "contains"
    words = dict.fromkeys(
        [h("log"), h("in"), h("log in"), h("in arrow_forward"), h("arrow_forward")], contains
    )
    c = compare(rec, themed, other_names=words)
    assert c.name == "contains"
    assert c.identity_agrees()
    assert similarity(rec, c) > 0.55
    other = compare(
        rec, fp(name="Log out arrow_forward"), other_names=dict.fromkeys([h("log"), h("out")], contains)
    )
    assert other.name == "changed"
    assert not other.identity_agrees()


def test_a_pickers_name_with_its_shown_option_masked_is_the_same_name() -> None:
    """The one rule's other case: a picker recorded by its name without the option it showed."""
    rec = fp(name="selected \u2026. priority")
    shown = fp(name="Selected Medium. Priority")
    masked: dict[str, OtherName] = {h("selected \u2026. priority"): "same", h("selected"): "contains"}
    assert compare(rec, shown, other_names=masked).name == "same"
    assert compare(rec, shown).name == "changed"


def test_a_button_and_a_submit_input_are_one_kind() -> None:
    button = fp(name="Sign in", text="Sign in")
    submit = fp("input", type_="submit", name="Sign in", value="Sign in")
    assert compare(button, submit).gates
    assert compare(submit, button).gates
    assert compare(button, fp("input", type_="button", name="Sign in")).gates
    assert not compare(button, fp("input", type_="reset", name="Sign in")).gates
    assert not compare(button, fp("input", type_="text", role="textbox", name="Sign in")).gates


def test_a_unique_id_places_its_element_whatever_wraps_it() -> None:
    rec = fp("span", type_=None, role=None, attrs={"id": "balance"}, stable=True, sib=(0, 1))
    wrapped = fp(
        "span",
        type_=None,
        role=None,
        attrs={"id": "balance"},
        stable=True,
        path=("p", "div", "div", "main", "body", "html"),
        sib=(1, 3),
    )
    c = compare(rec, wrapped)
    assert c.stable_id
    assert similarity(rec, c) == 1.0
    # a content-free target of an older version kept the flag without the id's hash: neutral
    flag_only = rec.model_copy(update={"attributes": {}})
    assert compare(flag_only, wrapped).stable_id is None


def test_a_caption_identifies_a_content_free_target() -> None:
    def dd(caption: str, path: tuple[str, ...], sib: tuple[int, int], id_: str) -> Fingerprint:
        base = fp("dd", type_=None, role=None, attrs={"id": id_}, stable=True, path=path, sib=sib)
        return base.model_copy(update={"caption_hash": h(caption)})

    rec = dd("Total", ("dl", "main", "body", "html"), (2, 3), "total")
    moved = ("div", "dl", "section", "main", "body", "html")
    total, subtotal = dd("Total", moved, (0, 1), "sum-total"), dd("Subtotal", moved, (0, 1), "sum-sub")
    assert compare(rec, total).caption == "same"
    assert compare(rec, total).identity_agrees()
    assert similarity(rec, compare(rec, total)) >= 0.55
    assert compare(rec, subtotal).caption == "changed"
    assert not compare(rec, subtotal).identity_agrees()
    assert similarity(rec, compare(rec, subtotal)) < 0.3


def test_a_route_fragment_tells_hash_links_apart() -> None:
    def link(route: str | None) -> Fingerprint:
        base = fp("a", type_=None, role="link", name="View", link="/shop")
        return base.model_copy(update={"route_hash": h(route) if route else None})

    category = link("#/category/*/")
    assert compare(category, link("#/category/*/")).link == "same"
    assert not compare(category, link("#/product/*/")).gates
    assert not compare(category, link("#")).gates
    assert not compare(link("#"), category).gates
    assert compare(category, link(None)).link == "same"  # the route left the link: its path decides
    assert compare(link(None), category).link == "same"  # recorded before routes were kept
