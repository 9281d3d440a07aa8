"""The store's memo of validated documents (``store.entries._Validated``): keyed by the exact bytes
read, bounded by count and bytes, a changed byte is validated afresh (and refused when corrupt)."""

from __future__ import annotations

import pytest

from skillreel.errors import StoreError
from skillreel.model.entry import StoreEntry
from skillreel.store import entries
from skillreel.store.entries import _Validated, parse_document
from tests.support.factory import entry


def document(name: str = "search-invoices") -> tuple[bytes, StoreEntry]:
    e = entry(name)
    return e.model_dump_json(by_alias=True).encode(), e


def test_the_same_bytes_give_the_entry_validated_before() -> None:
    data, expected = document()
    entries._VALIDATED.clear()
    first = parse_document(expected.name, expected.revision, data)
    again = parse_document(expected.name, expected.revision, bytes(bytearray(data)))  # an equal copy
    assert first == expected
    assert again is first


def test_a_changed_byte_is_validated_again_and_refused() -> None:
    data, expected = document()
    entries._VALIDATED.clear()
    parse_document(expected.name, expected.revision, data)
    changed = data.replace(b"search-invoices", b"search-invoicez", 1)
    with pytest.raises(StoreError) as raised:
        parse_document(expected.name, expected.revision, changed)
    assert raised.value.code == "SR_RECORD_STORE_CORRUPT"


def test_the_row_check_still_applies_to_a_remembered_document() -> None:
    data, expected = document()
    entries._VALIDATED.clear()
    parse_document(expected.name, expected.revision, data)
    with pytest.raises(StoreError) as raised:
        parse_document(expected.name, expected.revision + 1, data)
    assert raised.value.code == "SR_RECORD_STORE_CORRUPT"


def test_the_memo_is_bounded_by_count_and_bytes() -> None:
    kept = _Validated(items=2, budget=10_000)
    docs = [document(f"skill-{i}") for i in range(3)]
    for data, e in docs:
        kept.keep(data, e)
    assert kept.get(docs[0][0]) is None  # the oldest went first
    assert kept.get(docs[1][0]) is docs[1][1]
    assert kept.get(docs[2][0]) is docs[2][1]

    small = _Validated(items=16, budget=len(docs[0][0]) * 4)
    small.keep(docs[0][0], docs[0][1])
    small.keep(docs[1][0], docs[1][1])
    assert small.get(docs[0][0]) is docs[0][1]

    tiny = _Validated(items=16, budget=len(docs[0][0]) * 2)  # a document over a quarter is not kept
    tiny.keep(docs[0][0], docs[0][1])
    assert tiny.get(docs[0][0]) is None
