"""Parsing is the one way in: strict keys and types, bounded sizes, every digest recomputed.

Tamper tests change one value anywhere in a document and expect the parse to fail; no document
that was changed after it was built can be read back.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError

from skillreel.model.audit import AuditEvent
from skillreel.model.base import DigestedDocument
from skillreel.model.canonical import GENESIS_DIGEST, tagged_digest
from skillreel.model.draft import Draft
from skillreel.model.entry import StoreEntry
from skillreel.model.environment import Environment
from skillreel.model.events import EventsLog
from skillreel.model.export import ExportDocument
from skillreel.model.policy import Policy, PolicySettings
from skillreel.model.report import ReplayReport
from tests.support import factory
from tests.support.factory import T1, advance, proposal_for, report_for


def _documents() -> dict[str, DigestedDocument]:
    validated = advance(factory.entry(), "validated")
    healed = factory.with_legacy_proposal(validated, proposal_for(validated, T1), T1)
    return {
        "environment": factory.url_environment(origins=("https://api.example.com",)),
        "events": factory.events_log(3),
        "draft": factory.draft(),
        "entry": factory.entry(),
        "enabled-entry": advance(factory.entry(), "enabled"),
        "healed-entry": healed,
        "report": report_for(validated),
        "policy": Policy.default(),
        "audit-event": AuditEvent.build(
            seq=3,
            kind="review",
            name="x",
            revision=2,
            reviewer="alice",
            digests={"entry": GENESIS_DIGEST},
            at=T1,
            prev_digest=GENESIS_DIGEST,
        ),
        "export": ExportDocument.build(entry=healed, exported_at=T1),
    }


DOCS = _documents()


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(item, (*path, i))
    else:
        yield path


def _mutated(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if value is None:
        return "sha256:" + "1" * 64
    if value.startswith("sha256:"):
        return value[:-1] + ("0" if value[-1] != "0" else "1")
    return value[:-1] + ("a" if value[-1:] != "a" else "b") if value else "a"


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


@pytest.mark.parametrize("kind", sorted(DOCS))
def test_round_trip(kind: str) -> None:
    doc = DOCS[kind]
    assert type(doc).parse(doc.to_json()) == doc
    assert type(doc).parse(json.dumps(doc.to_json()).encode()) == doc


@pytest.mark.parametrize("kind", sorted(DOCS))
def test_changing_any_single_value_is_refused(kind: str) -> None:
    doc = DOCS[kind]
    original = doc.to_json()
    paths = list(_leaves(original))
    assert len(paths) > 3
    for path in paths:
        tampered = copy.deepcopy(original)
        _set(tampered, path, _mutated(_get(original, path)))
        with pytest.raises(ValidationError):
            type(doc).parse(tampered)


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def test_a_changed_value_under_an_unchanged_digest_is_a_digest_mismatch() -> None:
    data = factory.draft().to_json()
    data["description"] = "Something else entirely."
    with pytest.raises(ValidationError) as err:
        Draft.parse(data)
    assert [e["type"] for e in err.value.errors()] == ["digest_mismatch"]


def test_fixing_the_outer_digest_does_not_hide_an_inner_change() -> None:
    data = factory.entry().to_json()
    data["draft"]["description"] = "Changed inside."
    body = {k: v for k, v in data.items() if k != "entryDigest"}
    data["entryDigest"] = tagged_digest("skillreel.store-entry/v1", body)
    with pytest.raises(ValidationError) as err:
        StoreEntry.parse(data)
    assert err.value.errors()[0]["type"] == "digest_mismatch"
    assert err.value.errors()[0]["loc"] == ("draft",)


@pytest.mark.parametrize("where", [(), ("draft",), ("draft", "environment"), ("events",)])
def test_unknown_keys_are_refused_at_every_level(where: tuple[str, ...]) -> None:
    data = factory.entry().to_json()
    _get(data, where)["extra"] = 1
    with pytest.raises(ValidationError) as err:
        StoreEntry.parse(data)
    assert any(e["type"] == "extra_forbidden" for e in err.value.errors())


@pytest.mark.parametrize("where", [(), ("draft",), ("events",)])
def test_a_wrong_schema_version_is_refused(where: tuple[str, ...]) -> None:
    data = factory.entry().to_json()
    _get(data, where)["schema"] = _get(data, where)["schema"].replace("/v1", "/v9")
    with pytest.raises(ValidationError) as err:
        StoreEntry.parse(data)
    assert any(e["type"] == "literal_error" and e["loc"][-1] == "schema" for e in err.value.errors())


def test_types_are_strict() -> None:
    data = factory.entry().to_json()
    data["revision"] = "1"
    with pytest.raises(ValidationError):
        StoreEntry.parse(data)
    settings = PolicySettings().to_json()
    settings["retentionDays"] = True
    with pytest.raises(ValidationError):
        PolicySettings.parse(settings)


def test_documents_are_frozen() -> None:
    entry = factory.entry()
    with pytest.raises(ValidationError):
        entry.revision = 2  # type: ignore[misc]  # the assignment the test expects to be refused


@pytest.mark.parametrize("name", ["Upper", "a--b", "-a", "a-", "a_b", "x" * 65, ""])
def test_skill_names_follow_the_agent_skills_rule(name: str) -> None:
    with pytest.raises(ValidationError):
        factory.draft(name)


def test_limits_are_enforced() -> None:
    with pytest.raises(ValidationError):
        factory.draft(description="x" * 1025)
    with pytest.raises(ValidationError):
        factory.bundle("#" + "a" * 1024)
    with pytest.raises(ValidationError):
        PolicySettings(retention_days=3651)
    with pytest.raises(ValidationError):
        PolicySettings(max_records=10_001)
    with pytest.raises(ValidationError):
        PolicySettings(max_audit_events=100_001)


def _fields(entry: StoreEntry) -> dict[str, Any]:
    return {n: getattr(entry, n) for n in StoreEntry.model_fields if n not in ("entry_digest", "schema_")}


def test_entry_invariants_are_checked_on_parse() -> None:
    approved = advance(factory.entry(), "approved")
    fields = _fields(approved)
    with pytest.raises(ValidationError, match="approval"):
        StoreEntry.build(**{**fields, "approval": None})
    validated = advance(factory.entry(), "validated")
    fields = _fields(validated)
    with pytest.raises(ValidationError, match="installation"):
        StoreEntry.build(**{**fields, "status": "enabled", "was_enabled": True})
    other = factory.draft("other-skill")
    with pytest.raises(ValidationError):
        StoreEntry.build(**{**fields, "draft": other})


def test_an_approval_of_another_draft_is_refused() -> None:
    approved = advance(factory.entry(), "approved")
    redraft = factory.draft(description="A different draft.")
    fields = _fields(approved)
    with pytest.raises(ValidationError, match="approval of exactly this draft"):
        StoreEntry.build(**{**fields, "draft": redraft})


def test_every_document_kind_has_its_own_schema_and_tag() -> None:
    kinds: list[type[DigestedDocument]] = [
        Environment,
        EventsLog,
        Draft,
        StoreEntry,
        ReplayReport,
        Policy,
        AuditEvent,
        ExportDocument,
    ]
    tags = {k.digest_tag for k in kinds}
    assert len(tags) == len(kinds)
    for kind in kinds:
        field = kind.model_fields["schema_"]
        assert field.default == kind.digest_tag


def test_the_policy_names_the_capabilities_it_denies() -> None:
    policy = PolicySettings(allowed_capabilities=("ui.observe",))
    assert policy.denied_capabilities(("ui.interact", "net.navigate", "ui.observe")) == (
        "net.navigate",
        "ui.interact",
    )
    assert Policy.default().denied_capabilities(factory.draft().capabilities) == ()


def test_a_label_is_a_short_id_without_spaces() -> None:
    from skillreel.model.base import is_label

    assert is_label("alice@example.com")
    assert is_label("work:ops-1." + "x" * 117)
    for bad in ("", "alice smith", "-alice", "x" * 129, "alice\n"):
        assert not is_label(bad), bad
