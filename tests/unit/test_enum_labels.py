"""Pre-flight of an enum input given as an option's label (issue 33, defect 8a): with the labels'
salted hashes kept beside the values, a label is told from a wrong value without the skill keeping
page text; an older parameter (no hashes) lets any text through to the page, as before."""

from __future__ import annotations

import pytest

from skillreel.errors import ReplayError
from skillreel.model.actions import NavigateAction, SelectAction
from skillreel.model.draft import Parameter
from skillreel.model.locators import text_hash
from skillreel.model.refs import ParameterRef
from skillreel.services.preflight import label_inputs, typed_values
from tests.support import factory
from tests.support.factory import SALT

VALUES = ("new", "shp")


def draft(hashes: tuple[str, ...] | None) -> object:
    select = SelectAction(
        id="a2", target=factory.target("#status", tag="select"), value=ParameterRef(name="status")
    )
    status = Parameter(name="status", type="enum", values=VALUES, label_hashes=hashes)
    return factory.graph_draft(
        [NavigateAction(id="a1", url="https://app.test/"), select], parameters=[status]
    )


HASHES = tuple(sorted(text_hash(SALT, t) or "" for t in ("New", "Shipped")))


@pytest.mark.parametrize(("given", "label"), [("shp", False), ("Shipped", True), ("  shipped ", True)])
def test_a_value_or_a_label_passes(given: str, label: bool) -> None:
    d = draft(HASHES)
    assert ("status" in label_inputs(d, {"status": given})) is label  # type: ignore[arg-type]
    assert typed_values(d, {"status": given})["status"]  # type: ignore[arg-type]


def test_a_value_that_is_neither_is_refused_before_any_browser() -> None:
    with pytest.raises(ReplayError) as err:
        typed_values(draft(HASHES), {"status": "zzz"})  # type: ignore[arg-type]
    assert err.value.code == "SR_REPLAY_PARAMETER_INVALID"
    assert "zzz" not in str(err.value)


def test_an_older_parameter_without_hashes_lets_text_through_to_the_page() -> None:
    assert label_inputs(draft(None), {"status": "zzz"}) == {"status"}  # type: ignore[arg-type]


def test_the_hashes_are_left_out_of_the_wire_form_when_unset() -> None:
    plain = Parameter(name="status", type="enum", values=VALUES)
    assert "labelHashes" not in plain.to_json()
    kept = Parameter(name="status", type="enum", values=VALUES, label_hashes=HASHES)
    assert kept.to_json()["labelHashes"] == list(HASHES)
    assert kept.v2_fields() == ["type", "values", "labelHashes"]
    with pytest.raises(ValueError, match="only an enum parameter"):
        Parameter(name="status", label_hashes=HASHES)
