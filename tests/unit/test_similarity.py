"""The Python twin of the in-page comparison (locate/similarity.py): gates, features, weights and
the similarity score, on hand-built fingerprints. resolve.js is held equal to it by
tests/integration/replay/test_resolve_parity.py.
"""

from __future__ import annotations

import pytest

from skillreel.locate.similarity import WEIGHTS, compare, lcs_length, similarity
from tests.support.fingerprints import SAVE, fp


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
