"""record.splice (pure): the draft a repair makes keeps the approved steps before the repaired one
byte for byte, numbers the new steps after them, merges parameters without renaming a kept one,
and re-points one step without touching the others."""

from __future__ import annotations

import pytest

from skillreel.errors import SkillreelError
from skillreel.model.actions import ClickAction, NavigateAction, TypeAction
from skillreel.model.canonical import canonical_json
from skillreel.model.draft import Parameter
from skillreel.model.refs import ParameterRef
from skillreel.record.splice import repair_point, repointed, spliced
from tests.support import factory

NEW_LOG = factory.events_log(3)


def test_the_kept_steps_stay_byte_identical_and_the_new_ones_follow() -> None:
    approved = factory.draft(sensitive=False)
    index = repair_point(approved, "a4")
    tail = (
        TypeAction(id="a1", target=factory.bundle("#amount"), value=ParameterRef(name="query")),
        ClickAction(id="a2", target=factory.bundle("#send", tag="button", type_="submit")),
    )
    draft = spliced(approved, index, tail, (Parameter(name="query"),), NEW_LOG.events_digest)
    assert [canonical_json(a.to_json()) for a in draft.actions[:3]] == [
        canonical_json(a.to_json()) for a in approved.actions[:3]
    ]
    assert [a.id for a in draft.actions] == ["a1", "a2", "a3", "a4", "a5"]
    # the kept parameter keeps its name; the new field named like it gets _2, its step follows
    assert [p.name for p in draft.parameters] == ["query", "query_2"]
    assert draft.actions[3].to_json()["value"] == {"ref": "parameter", "name": "query_2"}
    assert draft.parameters[0] == approved.parameters[0]
    assert (draft.name, draft.fingerprint_salt, draft.environment) == (
        approved.name,
        approved.fingerprint_salt,
        approved.environment,
    )
    assert draft.events_digest == NEW_LOG.events_digest


def test_new_ids_follow_the_highest_kept_id() -> None:
    actions = (
        NavigateAction(id="a1", url="https://fixture.skillreel.invalid/"),
        ClickAction(id="a7", target=factory.bundle("#a", tag="button")),
        ClickAction(id="a8", target=factory.bundle("#b", tag="button")),
    )
    approved = factory.graph_draft(actions)
    tail = (ClickAction(id="a1", target=factory.bundle("#c", tag="button")),)
    draft = spliced(approved, repair_point(approved, "a8"), tail, (), NEW_LOG.events_digest)
    assert [a.id for a in draft.actions] == ["a1", "a7", "a8"]
    assert draft.actions[2].to_json()["target"] != approved.actions[2].to_json()["target"]


def test_an_empty_tail_is_nothing_captured() -> None:
    approved = factory.draft()
    with pytest.raises(SkillreelError) as info:
        spliced(approved, 3, (), (), NEW_LOG.events_digest)
    assert info.value.code == "SR_RECORD_NOTHING_CAPTURED"


def test_repointed_changes_only_that_steps_target() -> None:
    approved = factory.draft()
    new_target = factory.bundle("#amount")
    draft = repointed(approved, 1, new_target)
    before, after = approved.actions, draft.actions
    assert after[1].to_json() == {**before[1].to_json(), "target": new_target.to_json()}
    assert [a.to_json() for i, a in enumerate(after) if i != 1] == [
        a.to_json() for i, a in enumerate(before) if i != 1
    ]
    assert (draft.parameters, draft.events_digest) == (approved.parameters, approved.events_digest)


def test_an_unknown_step_lists_the_steps() -> None:
    with pytest.raises(SkillreelError) as info:
        repair_point(factory.draft(), "a9")
    assert info.value.code == "SR_RECORD_REPAIR_STEP_UNKNOWN"
    assert "a1, a2, a3, a4" in info.value.message
