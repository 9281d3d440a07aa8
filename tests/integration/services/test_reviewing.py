"""``review`` as a use case: approval needs ``approve``, binds one exact revision, is audited; a heal
proposal is accepted the same way; the policy's capabilities hold; concurrent reviewers race safely."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path
from typing import Any

from skillreel.errors import SkillreelError
from skillreel.model.policy import PolicySettings
from skillreel.services.reviewing import reject_heal_proposal, review_skill
from skillreel.services.showing import show_skill
from skillreel.services.store_policy import set_policy
from skillreel.store import Store
from tests.integration.services.store_checks import NAME, refused
from tests.support.factory import T1, proposal_for, record_run, seed
from tests.support.readback import assert_owner_only

RACERS = 8


def test_review_needs_approve_and_binds_the_exact_revision(store: Store, skillreel_home: Path) -> None:
    seed(store)
    error = refused(
        skillreel_home,
        "SR_RECORD_APPROVAL_REQUIRED",
        lambda: review_skill(store, NAME, "alice", approve=False),
    )
    assert "would approve" in error.message
    assert error.details["wouldChange"]["revision"] == 1
    assert store.get(NAME).status == "draft"
    result = review_skill(store, NAME, "alice", approve=True, expected_revision=1).to_json()
    assert (result["status"], result["revision"]) == ("approved", 2)
    shown = show_skill(store, NAME).to_json()
    assert shown["digests"]["approval"] == result["approvalDigest"]
    assert shown["approval"]["reviewer"] == "alice"
    refused(
        skillreel_home,
        "SR_RECORD_REVISION_CONFLICT",
        lambda: review_skill(store, NAME, "bob", approve=True, expected_revision=1),
    )
    refused(skillreel_home, "SR_RECORD_STATE_INVALID", lambda: review_skill(store, NAME, "bob", approve=True))
    events = [e.to_json() for e in store.audit_events(NAME)]
    assert [(e["kind"], e["reviewer"]) for e in events] == [("record", None), ("review", "alice")]
    assert events[1]["digests"]["approval"] == result["approvalDigest"]


def test_review_accepts_a_heal_proposal(store: Store, skillreel_home: Path) -> None:
    validated = seed(store, status="validated")
    older = proposal_for(validated, T1, selector="#go-older")
    record_run(store, NAME, healed=True, proposal=older)
    record_run(store, NAME, healed=True, proposal=proposal_for(validated, T1))
    refused(
        skillreel_home,
        "SR_RECORD_APPROVAL_REQUIRED",
        lambda: review_skill(store, NAME, "bob", approve=False, heal_proposal=True),
    )
    newest = show_skill(store, NAME).to_json()["healProposals"][0]["draftDigest"]  # two pending: by digest
    result = review_skill(
        store, NAME, "bob", approve=True, heal_proposal=True, expected_revision=3, draft_digest=newest
    ).to_json()
    assert (result["status"], result["revision"], result["healProposalAccepted"]) == ("approved", 4, True)
    shown = show_skill(store, NAME).to_json()
    assert shown["healProposal"] is None  # the others healed the old draft: no longer pending
    assert shown["healProposals"] == []
    assert shown["digests"]["draft"] != validated.draft.draft_digest
    assert shown["actions"][3]["target"]["candidates"][0]["selector"] == "#go-renamed"


def test_review_refuses_capabilities_the_policy_forbids(
    store: Store, skillreel_home: Path, tmp_path: Path
) -> None:
    seed(store)
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({**PolicySettings().to_json(), "allowedCapabilities": ["ui.interact"]}))
    set_policy(store, path, approve=True)
    error = refused(
        skillreel_home,
        "SR_RECORD_POLICY_DENIED",
        lambda: review_skill(store, NAME, "alice", approve=True, expected_revision=1),
    )
    assert "net.navigate" in error.message
    assert store.get(NAME).status == "draft"


def _race(home: str, reviewer: str, start: Any, results: Any) -> None:  # runs in a forked child
    start.wait(120)
    try:
        with Store.open(Path(home), timeout=120) as store:  # a racer may wait, never give up as busy
            outcome = (0, review_skill(store, NAME, reviewer, approve=True, expected_revision=1).to_json())
    except SkillreelError as exc:
        outcome = (exc.exit_status, {"error": exc.to_json()})
    results.put(outcome)


def test_eight_reviewers_race_for_one_revision(skillreel_home: Path) -> None:
    """Exactly one wins; the seven others get SR_RECORD_REVISION_CONFLICT (the compare-and-set runs
    under the write lock, so no two can both see revision 1). The audit chain verifies afterwards and
    holds exactly one review event."""
    with Store.open() as store:
        seed(store, NAME)
    ctx = multiprocessing.get_context("fork")
    start, results = ctx.Barrier(RACERS), ctx.Queue()
    racers = [
        ctx.Process(target=_race, args=(str(skillreel_home), f"reviewer-{i}", start, results))
        for i in range(RACERS)
    ]
    for racer in racers:
        racer.start()
    outcomes = [results.get(timeout=300) for _ in racers]
    for racer in racers:
        racer.join(60)
        assert racer.exitcode == 0

    winners = [doc for code, doc in outcomes if code == 0]
    losers = [doc for code, doc in outcomes if code != 0]
    assert len(winners) == 1
    assert (winners[0]["status"], winners[0]["revision"]) == ("approved", 2)
    assert [doc["error"]["code"] for doc in losers] == ["SR_RECORD_REVISION_CONFLICT"] * (RACERS - 1)
    assert {code for code, _ in outcomes} == {0, 1}

    with Store.open() as store:
        entry = store.get(NAME)
        assert (entry.revision, entry.status) == (2, "approved")
        assert entry.approval is not None
        assert entry.approval.approval_digest == winners[0]["approvalDigest"]
        assert [e.kind for e in store.audit_events()] == ["record", "review"]
        assert store.verify_audit().to_json() == {"ok": True, "events": 2, "brokenAt": None}
    assert_owner_only(skillreel_home)


def test_an_approval_must_name_what_the_reviewer_read(store: Store, skillreel_home: Path) -> None:
    """``--approve`` alone is refused and says which revision and digest it would approve; either the
    revision or the draft digest that ``show`` printed binds the approval to exactly that."""
    seed(store)
    shown = show_skill(store, NAME).to_json()
    error = refused(
        skillreel_home,
        "SR_RECORD_REVIEW_UNPINNED",
        lambda: review_skill(store, NAME, "alice", approve=True),
        exit_status=2,
    )
    assert "--expected-revision 1" in error.message
    assert shown["digests"]["draft"] in error.message
    assert error.details["wouldApprove"]["draftDigest"] == shown["digests"]["draft"]
    other = "sha256:" + "0" * 64
    refused(
        skillreel_home,
        "SR_RECORD_REVISION_CONFLICT",
        lambda: review_skill(store, NAME, "alice", approve=True, draft_digest=other),
    )
    refused(
        skillreel_home,
        "SR_RECORD_REVISION_CONFLICT",
        lambda: review_skill(store, NAME, "alice", approve=True, expected_revision=1, draft_digest=other),
    )
    refused(
        skillreel_home,
        "SR_RECORD_USAGE",
        lambda: review_skill(store, NAME, "alice", approve=True, draft_digest="not-a-digest"),
        exit_status=2,
    )
    result = review_skill(store, NAME, "alice", approve=True, draft_digest=shown["digests"]["draft"])
    assert (result.revision, result.draft_digest) == (2, shown["digests"]["draft"])


def test_a_heal_proposal_is_accepted_by_its_own_draft_digest(store: Store, skillreel_home: Path) -> None:
    validated = seed(store, status="validated")
    record_run(store, NAME, healed=True, proposal=proposal_for(validated, T1))
    proposal = show_skill(store, NAME).to_json()["healProposals"][0]["draftDigest"]
    refused(  # the approved draft's digest is not what accepting the proposal approves
        skillreel_home,
        "SR_RECORD_REVISION_CONFLICT",
        lambda: review_skill(
            store, NAME, "bob", approve=True, heal_proposal=True, draft_digest=validated.draft.draft_digest
        ),
    )
    refused(
        skillreel_home,
        "SR_RECORD_REVIEW_UNPINNED",
        lambda: review_skill(store, NAME, "bob", approve=True, heal_proposal=True),
        exit_status=2,
    )
    result = review_skill(store, NAME, "bob", approve=True, heal_proposal=True, draft_digest=proposal)
    assert (result.heal_proposal, result.draft_digest) == (True, proposal)


def test_the_revision_alone_does_not_pin_one_of_several_pending_heal_proposals(
    store: Store, skillreel_home: Path
) -> None:
    """A proposal never changes the revision: a reviewer who read the first one, then pinned the
    revision after a later replay left a second one, must not approve or reject that second one."""
    validated = seed(store, status="validated")
    record_run(store, NAME, healed=True, proposal=proposal_for(validated, T1))
    record_run(store, NAME, healed=True, proposal=proposal_for(validated, T1, selector="#newer"))
    newest = show_skill(store, NAME).to_json()["healProposals"][0]["draftDigest"]
    for decide in (
        lambda: review_skill(store, NAME, "bob", approve=True, heal_proposal=True, expected_revision=3),
        lambda: reject_heal_proposal(store, NAME, "bob", approve=True, expected_revision=3),
    ):
        error = refused(skillreel_home, "SR_RECORD_REVISION_CONFLICT", decide)
        assert f"--draft-digest {newest}" in error.message
    result = review_skill(
        store, NAME, "bob", approve=True, heal_proposal=True, expected_revision=3, draft_digest=newest
    )
    assert (result.heal_proposal, result.draft_digest) == (True, newest)
