"""Golden digests: the byte format of every document kind is pinned.

If one of these changes, every stored skill, export and audit chain written before would stop
verifying: that needs a new schema version (and a digest tag ``/v2``), never a silent edit.
The documents are built with fixed inputs through ``tests/support/factory.py`` and the model API.
"""

from __future__ import annotations

import hashlib

import pytest
from pydantic import ValidationError

from skillreel.model import lifecycle
from skillreel.model.audit import AuditEvent
from skillreel.model.canonical import GENESIS_DIGEST, bytes_digest, canonical_json, tagged_digest
from skillreel.model.draft import Draft
from skillreel.model.entry import StoreEntry
from skillreel.model.environment import Environment, build_url_target, query_keys
from skillreel.model.export import ExportDocument
from skillreel.model.policy import Policy, PolicySettings
from skillreel.model.runs import Lease, StepTally, finish_run, start_run
from tests.support import factory
from tests.support.factory import T1, report_for


def test_canonical_json_is_rfc8785() -> None:
    value = {"b": 1, "a": [True, None, "é"], "c": {"z": "", "y": -3}, "\u20ac": "\n\x01"}
    assert canonical_json(value) == (
        b'{"a":[true,null,"\xc3\xa9"],"b":1,"c":{"y":-3,"z":""},"\xe2\x82\xac":"\\n\\u0001"}'
    )


def test_tagged_digest_formula() -> None:
    payload = {"b": 1, "a": [True, None, "é"]}
    expected = hashlib.sha256(b"skillreel.draft/v1\x00" + b'{"a":[true,null,"\xc3\xa9"],"b":1}').hexdigest()
    assert tagged_digest("skillreel.draft/v1", payload) == "sha256:" + expected
    assert expected == "23a6a74f16da3a1c164bbf8d858aeed89be7462a3279ff4be21dc96b318949fe"


def test_the_tag_separates_domains() -> None:
    payload = {"name": "x"}
    assert tagged_digest("skillreel.draft/v1", payload) != tagged_digest("skillreel.approval/v1", payload)
    with pytest.raises(ValueError, match="unknown digest tag"):
        tagged_digest("skillreel.nope/v1", payload)


def test_bytes_digest_golden() -> None:
    assert bytes_digest("skillreel.html-fixture/v1", b"<html><body>fixture</body></html>") == (
        "sha256:91e5a84b5a9e468d44da69f2830ddb94252f9639dc2da0b01ac9eaeda25e8a8a"
    )


GOLDEN = {
    "html-environment": "sha256:79efb195312d2412c39458b0130b166876c0b1096990e1c0ea8caa23bb22d8da",
    "url-environment": "sha256:f048550a55d77bb4672376dc79dde7f371814a446337612b2532f3758c0fb8fa",
    "events": "sha256:dae3a87b35b6d393ce46a4abb7c2c4f3b969a5784bdea6ec9ed9e3b747345e22",
    "draft": "sha256:011ef139b223a9ed5889a5010b92d89e4a079be2c7e614a76a3cf0a8132d278b",
    "entry": "sha256:ac248401070f3b16f5b3753866c95b2f2c8421e7716b5a5cc30f87077280a8ef",
    "approval": "sha256:d9b72a9db2107f4275d89659584e11ebcdf0be51efc6f5b684fba0f8c80c2185",
    "approved-entry": "sha256:1ec01516311cf823a873dcd9bd879eb972ff090ca8348d19afa2df3152735403",
    "report": "sha256:dc661ef3dd132975955fb68567c56a56c245fc7d3829b7204f69b878423ff8fe",
    "policy": "sha256:5bf1baed19f631c4b9110666ed7b9a35671e5af5e6e36bc9315b037184e379a9",
    "audit-event": "sha256:2ff925a8f0efa8e500b6a2b386b09d17b5f7be8ab6d7df81178dbf89454a52df",
    "export": "sha256:80b837376abf82102aca3fa8e92107f3a7cc29b460da53c9f61458fcc42c6d65",
    # an approval with its version record (issue 13); entries without one keep the digests above
    "versioned-entry": "sha256:579176a72046b3ad3a1c5db0217dd8e17765bd8c084fac6d872f1da83fd8705f",
    "portable-environment": "sha256:2449f01e0fad9c36982f0517e0d7f3cc868ed64e4ea98d0fc5449e33047f596d",
    "approval-with-environments": "sha256:cbdd57820846f6e3627ee7e699ca6a607bb57671ee80cef4fb61ed0c8c1094a2",
    "run": "sha256:27d710c37844f2ecd1edf5b51fd71d48244796abf112570ed05c64cece462269",
    "finished-run": "sha256:e6070d45be034344ab1358abb7d86bd653937c354e0f7f44be389ba43cfdc4f2",
    "audit-event-of-a-run": "sha256:1d5fcc95e4002679a5d0e50512ff60c17d43986e48fbe5b857676e5c1870a8b9",
    "bounded-policy": "sha256:a67bcdf3bad9ea1805209e0996405d00bd6ab7b5db6d0f45fa02a4fd189531d0",
}


def _digests() -> dict[str, str]:
    approved = lifecycle.approve(factory.entry(), "alice", T1)
    assert approved.approval is not None
    event = AuditEvent.build(
        seq=1,
        kind="record",
        name="search-invoices",
        revision=1,
        digests={"entry": factory.entry().entry_digest},
        at=factory.T0,
        prev_digest=GENESIS_DIGEST,
    )
    run = start_run(
        "0123456789abcdef0123456789abcdef",
        "search-invoices",
        2,
        approved.draft.draft_digest,
        4,
        3,
        "mcp",
        Lease(pid=4242, boot_id="0b4e2f1c-6a0d-4c1e-9a57-2d3b1f0e9c11", process_start=123456),
        T1,
    )
    finished = finish_run(
        run,
        "succeeded",
        factory.T2,
        tally=StepTally(steps_run=4, steps_acted=3, healed_steps=("a4",)),
        report_digest=report_for(approved, T1).report_digest,
    )
    run_event = AuditEvent.build(
        seq=2,
        kind="run-end",
        name="search-invoices",
        revision=2,
        digests={"run": finished.run_digest},
        actor="mcp",
        run=run.run_id,
        suppressed=3,
        at=factory.T2,
        prev_digest=event.event_digest,
    )
    return {
        "run": run.run_digest,
        "finished-run": finished.run_digest,
        "audit-event-of-a-run": run_event.event_digest,
        "bounded-policy": Policy.from_settings(PolicySettings(max_store_bytes=1024 * 1024)).policy_digest,
        "html-environment": factory.html_environment().environment_digest,
        "url-environment": factory.v1_url_environment().environment_digest,
        "events": factory.events_log().events_digest,
        "draft": factory.draft().draft_digest,
        "entry": factory.entry().entry_digest,
        "approval": approved.approval.approval_digest,
        "approved-entry": approved.entry_digest,
        "report": report_for(approved, T1).report_digest,
        "policy": Policy.default().policy_digest,
        "audit-event": event.event_digest,
        "export": ExportDocument.build(entry=factory.entry(), exported_at=T1).export_digest,
        "versioned-entry": lifecycle.stamp_version(approved, None, factory.entry()).entry_digest,
        "portable-environment": _portable().environment_digest,
        "approval-with-environments": _approval_with_environments(),
    }


def _portable() -> Environment:
    """A URL environment with everything added after v1: query-key choices, a session, a named
    environment."""
    target = build_url_target("http://127.0.0.1:8000/app?state=open&token=t", (), query_keys(keep=["id"]))
    return Environment.build(target=target, login="shop-login", environments=(factory.staging(),))


def _approval_with_environments() -> str:
    entry = factory.entry(
        environment=_portable(),
        actions=factory.draft().actions[:1],
        parameters=(),
        capabilities=("net.navigate",),
    )
    approval = lifecycle.approve(entry, "alice", T1).approval
    assert approval is not None
    return approval.approval_digest


@pytest.mark.parametrize("kind", sorted(GOLDEN))
def test_golden_digest(kind: str) -> None:
    assert _digests()[kind] == GOLDEN[kind]


def test_a_digest_is_recomputed_from_the_canonical_payload() -> None:
    entry = factory.entry()
    payload = entry.to_json()
    del payload["entryDigest"]
    assert entry.entry_digest == tagged_digest("skillreel.store-entry/v1", payload)
    draft = factory.draft()
    assert draft.compute_digest() == draft.draft_digest


def test_the_same_inputs_build_the_same_documents() -> None:
    assert factory.draft() == factory.draft()
    assert Draft.parse(factory.draft().to_json()) == factory.draft()
    assert StoreEntry.parse(factory.entry().to_json()).entry_digest == GOLDEN["entry"]


def test_an_export_signature_is_outside_its_digest() -> None:
    from skillreel.model.export import Signature

    unsigned = ExportDocument.build(entry=factory.entry(), exported_at=T1)
    signed = ExportDocument.build(
        entry=factory.entry(), exported_at=T1, signature=Signature(key_id="key-1", value="A" * 86)
    )
    assert signed.export_digest == unsigned.export_digest == GOLDEN["export"]


def test_evolve_rebuilds_with_a_fresh_digest_and_keeps_everything_else() -> None:
    draft = factory.draft()
    same = draft.evolve()
    assert same == draft
    changed = draft.evolve(description="Search invoices by date.")
    assert changed.description == "Search invoices by date."
    assert changed.draft_digest == changed.compute_digest() != draft.draft_digest
    assert changed == factory.draft(description="Search invoices by date.")
    entry = factory.entry()
    later = entry.evolve(revision=2)
    assert (later.revision, later.draft, later.created_at) == (2, entry.draft, entry.created_at)
    assert later.entry_digest == later.compute_digest() != entry.entry_digest
    with pytest.raises(ValidationError):
        draft.evolve(name="Not A Name")  # re-validated like any other build


def test_evolve_drops_a_signature_over_the_old_digest() -> None:
    from skillreel.model.export import Signature

    signed = ExportDocument.build(
        entry=factory.entry(), exported_at=T1, signature=Signature(key_id="key-1", value="A" * 86)
    )
    later = signed.evolve(exported_at="2026-02-01T00:00:00Z")
    assert later.signature is None
    assert later.export_digest != signed.export_digest
    kept = signed.evolve(signature=signed.signature)
    assert kept.signature == signed.signature
