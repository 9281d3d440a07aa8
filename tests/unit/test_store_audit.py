"""The audit chain's fast verifier agrees with the model's RFC 8785 digests."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillreel.model.audit import AuditEvent
from skillreel.model.canonical import GENESIS_DIGEST, canonical_json
from skillreel.store import AuditNote, Store
from skillreel.store.audit import _canonical
from tests.support.factory import T1

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(JSON)
def test_fast_canonical_is_rfc8785(value: Any) -> None:
    assert _canonical(value) == canonical_json(value)


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(st.text(alphabet="\U0001f600\u00e9\uffffab", max_size=3), st.integers(0, 9), max_size=5)
)
def test_fast_canonical_handles_keys_outside_ascii(value: dict[str, int]) -> None:
    assert _canonical(value) == canonical_json(value)


def test_the_verifier_recomputes_the_models_digest() -> None:
    event = AuditEvent.build(
        seq=1,
        kind="review",
        name="x",
        revision=2,
        reviewer="alice@example.com",
        digests={"entry": GENESIS_DIGEST, "approval": GENESIS_DIGEST},
        at=T1,
        prev_digest=GENESIS_DIGEST,
    )
    payload = event.digest_payload()
    assert _canonical(payload) == canonical_json(payload)


def test_a_long_chain_verifies(skillreel_home: object) -> None:
    with Store.open() as store:
        for i in range(300):
            store.audit(
                AuditNote(
                    kind="replay",
                    name=f"skill-{i % 7}",
                    revision=1 + i % 3,
                    outcome="failed" if i % 2 else "ok",
                    code="SR_REPLAY_UI_TIMEOUT" if i % 2 else None,
                )
            )
        result = store.verify_audit()
        assert result.to_json() == {"ok": True, "events": 300, "brokenAt": None}
        assert len(store.audit_events("skill-3")) == 43


def test_an_empty_chain_verifies(skillreel_home: object) -> None:
    with Store.open() as store:
        assert store.verify_audit().to_json() == {"ok": True, "events": 0, "brokenAt": None}
