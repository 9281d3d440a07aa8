"""The rules of a read (model/reads.py), through the ``extract`` step that holds one: an attribute
read names an allowed attribute, a pattern has exactly one group, a presence or count read has its
natural type, an enum lists its values, and an extraction target keeps no hash of its text.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from skillreel.model.actions import ExtractAction
from tests.support import factory
from tests.support.factory import target


def test_extract_shapes() -> None:
    ok = ExtractAction(
        id="x1", output="when", target=target("time", tag="time"), read="attribute", attribute="datetime"
    )
    assert ok.value_type == "string"
    for bad in (
        {"read": "attribute", "attribute": "onclick"},
        {"read": "attribute"},
        {"read": "text", "pattern": "no group"},
        {"read": "text", "pattern": "(a)(b)"},
        {"read": "text", "pattern": "(unclosed"},
        {"read": "presence", "type": "string"},
        {"read": "count"},  # a count has items, not a target
        {"read": "text", "type": "enum"},  # without values
    ):
        with pytest.raises(ValidationError):
            ExtractAction.model_validate({"id": "x1", "output": "v", "target": target("#v").to_json(), **bad})
    with pytest.raises(ValidationError, match="keeps no hash of its text"):
        ExtractAction(
            id="x1",
            output="v",
            target=factory.bundle("#v").model_copy(
                update={
                    "fingerprint": factory.bundle("#v").fingerprint.model_copy(update={"text_hash": "0" * 16})
                }
            ),
        )
