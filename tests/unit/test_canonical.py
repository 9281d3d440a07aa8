"""``canonical_json`` is RFC 8785 byte for byte, whichever encoder writes it: generated values
(the awkward corners included: control characters, surrogates, characters beyond the Basic
Multilingual Plane in keys, integers at and past the safe range, floats) give exactly the reference
implementation's bytes, or the same error."""

from __future__ import annotations

from typing import Any

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from skillreel.model.canonical import _plain, canonical_json

SAFE = 2**53 - 1
AWKWARD = '\ud800\udfff\x00\x01\x1f\x7f"\\/\b\f\n\r\t\u2028\u2029\ue000\uffff\U00010000\U0001f600é'

texts = st.text(alphabet=st.characters(codec=None) | st.sampled_from(AWKWARD), max_size=12)
keys = st.text(alphabet=st.sampled_from('ab\ue000\uffff\U00010000\U0001f600\x00"é'), max_size=4) | texts
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-SAFE - 2, max_value=SAFE + 2)
    | st.integers(min_value=-SAFE, max_value=SAFE)
    | st.floats(allow_nan=True, allow_infinity=True)
    | texts
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(keys, inner, max_size=5)
    ),
    max_leaves=30,
)


def reference(value: Any) -> bytes | type[Exception]:
    try:
        return bytes(rfc8785.dumps(value))
    except Exception as exc:  # the exception's type is what must agree
        return type(exc)


def ours(value: Any) -> bytes | type[Exception]:
    try:
        return canonical_json(value)
    except Exception as exc:
        return type(exc)


@settings(max_examples=600, deadline=None)
@given(values)
def test_generated_values_give_the_reference_bytes_or_its_error(value: Any) -> None:
    assert ours(value) == reference(value)


@pytest.mark.parametrize(
    "value",
    [
        {"\ue000": 1, "\U0001f600": 2},  # code point order differs from UTF-16 order here
        {"b": 1, "a": [SAFE, -SAFE, True, False, None, "x\u2028\x00"]},
        {"k": "\ud800"},  # a lone surrogate
        [SAFE + 1],
        {"n": 1.5},
        {1: "non-string key"},
        ("tuple", ["list"]),
    ],
)
def test_the_corners_agree(value: Any) -> None:
    assert ours(value) == reference(value)


def test_a_store_like_document_takes_the_fast_path() -> None:
    document: dict[str, Any] = {"kind": "x", "steps": [{"id": "a1", "n": 3, "ok": True, "v": None}], "é": "ü"}
    assert _plain(document)
    assert canonical_json(document) == bytes(rfc8785.dumps(document))
    assert not _plain({"\U0001f600": 1})
    assert not _plain({"n": 0.5})
    assert not _plain([2**53])
