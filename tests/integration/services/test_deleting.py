"""``delete`` as a use case: needs ``approve``, never an enabled skill, binds the revision, audited."""

from __future__ import annotations

from pathlib import Path

from skillreel.services.deleting import delete_skill
from skillreel.services.listing import list_skills
from skillreel.services.showing import show_skill
from skillreel.store import Store
from tests.integration.services.store_checks import NAME, refused
from tests.support.factory import seed


def test_delete(store: Store, skillreel_home: Path) -> None:
    seed(store, NAME, "validated")
    seed(store, "live-skill", "enabled")
    error = refused(
        skillreel_home, "SR_RECORD_APPROVAL_REQUIRED", lambda: delete_skill(store, NAME, approve=False)
    )
    assert "3 kept revision(s)" in error.message
    refused(
        skillreel_home,
        "SR_RECORD_STATE_INVALID",
        lambda: delete_skill(
            store, "live-skill", approve=True, expected_revision=store.get("live-skill").revision
        ),
    )
    refused(
        skillreel_home,
        "SR_RECORD_REVISION_CONFLICT",
        lambda: delete_skill(store, NAME, approve=True, expected_revision=2),
    )
    assert delete_skill(store, NAME, approve=True, expected_revision=3).to_json() == {
        "deleted": NAME,
        "revision": 3,
        "status": "validated",
    }
    assert [s["name"] for s in list_skills(store).to_json()["skills"]] == ["live-skill"]
    refused(skillreel_home, "SR_RECORD_NOT_FOUND", lambda: show_skill(store, NAME))
    assert store.audit_events()[-1].kind == "delete"
