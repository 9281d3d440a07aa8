"""The fingerprint fields of issue 28 (``captionHash``, ``routeHash``) are additive and validated,
and what a content-free target keeps of its element (model/locators.py)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from skillreel.model.locators import Fingerprint, structure_only
from tests.support.fingerprints import fp, h

OLD = {
    "tag": "dd",
    "type": None,
    "role": None,
    "labelHash": None,
    "textHash": None,
    "attributes": {"id": h("total")},
    "parentPath": ["dl", "main"],
    "siblingIndex": 0,
    "siblingCount": 1,
    "stableId": True,
}


def test_a_fingerprint_written_before_captions_keeps_its_exact_wire_form() -> None:
    old = Fingerprint.parse(OLD)
    assert old.caption_hash is None
    assert old.route_hash is None
    assert old.to_json() == OLD


def test_captions_and_routes_are_salted_hashes_only() -> None:
    with pytest.raises(ValidationError):
        Fingerprint.parse({**OLD, "captionHash": "Total"})
    with pytest.raises(ValidationError):
        Fingerprint.parse({**OLD, "routeHash": "#/orders/*/"})
    kept = Fingerprint.parse({**OLD, "captionHash": h("Total"), "routeHash": h("#")})
    assert kept.to_json()["captionHash"] == h("Total")


def test_a_marked_target_keeps_its_caption_and_unique_id_but_no_text() -> None:
    rich = fp(
        "dd",
        type_=None,
        role=None,
        attrs={"id": "total", "class": "amount"},
        text="$12",
        label="x",
        stable=True,
    ).model_copy(update={"caption_hash": h("Total"), "route_hash": h("#/x/")})
    marked = structure_only(rich, identity=True)
    assert marked.attributes == {"id": h("total")}
    assert marked.caption_hash == h("Total")
    assert (marked.text_hash, marked.label_hash, marked.route_hash) == (None, None, None)
    chosen = structure_only(rich)  # a target chosen by a filter, a set's items: structure only
    assert chosen.attributes == {}
    assert chosen.caption_hash is None
    loose = rich.model_copy(update={"stable_id": None})  # an id that was not unique is not kept
    assert structure_only(loose, identity=True).attributes == {}
