"""Heal proposals (services.runs.heal_proposal; the retargeting in locate.proposals): fresh locators,
redacted, never the approved draft."""

from __future__ import annotations

from skillreel.model.entry import StoreEntry
from skillreel.model.lifecycle import approve, validate
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate, merge_heal, text_hash
from skillreel.model.report import Evidence, ReplayReport, StepResult
from skillreel.replay.engine import StepRecord
from skillreel.services.runs import heal_proposal
from tests.support.factory import SALT, T0, entry
from tests.support.narrow import present, target_of

TYPED = "alice@example.org"
TOKEN = "ghp_" + "A1b2C3d4E5" * 4


def approved() -> StoreEntry:
    return approve(entry(), "rev", T0)


def fresh(*selectors: str, text: str | None = None) -> LocatorBundle:
    return LocatorBundle(
        candidates=tuple(LocatorCandidate(strategy="css", selector=s, match_count=1) for s in selectors),
        fingerprint=Fingerprint(
            tag="button",
            type="submit",
            role="button",
            parent_path=("main", "body"),
            text_hash=text_hash(SALT, text) if text else None,
        ),
    )


def records(e: StoreEntry, healed: dict[str, LocatorBundle]) -> list[StepRecord]:
    out = []
    for action in e.draft.actions:
        ev = Evidence.build(action_id=action.id, kind=action.kind, healed=action.id in healed, facts={})
        out.append(StepRecord(action.id, ev, action.id in healed, healed.get(action.id)))
    return out


def report(e: StoreEntry, recs: list[StepRecord]) -> ReplayReport:
    return ReplayReport.build(
        name=e.name,
        draft_digest=e.draft.draft_digest,
        approval_digest=present(e.approval).approval_digest,
        environment_digest=e.draft.environment.environment_digest,
        finished_at=T0,
        steps=tuple(
            StepResult(action_id=r.action_id, evidence_digest=r.evidence.evidence_digest, healed=r.healed)
            for r in recs
        ),
    )


def test_a_healed_step_gets_fresh_locators_and_the_rest_stays() -> None:
    e = approved()
    bundle = fresh("#submit", "main > button")
    recs = records(e, {"a4": bundle})
    rep = report(e, recs)
    proposal = heal_proposal(e, recs, rep, T0, ())
    assert proposal is not None
    assert proposal.healed_actions == ("a4",)
    assert proposal.base_revision == e.revision
    assert proposal.base_draft_digest == e.draft.draft_digest
    assert proposal.report_digest == rep.report_digest
    new = {a.id: a for a in proposal.draft.actions}
    old = {a.id: a for a in e.draft.actions}
    # Merged, never replaced: the fresh locators first, the approved ones after them, the approved
    # fingerprint kept as an accepted identity (model.locators.merge_heal).
    approved_target = target_of(old["a4"])
    assert target_of(new["a4"]) == merge_heal(approved_target, bundle)
    assert target_of(new["a4"]).candidates == bundle.candidates + approved_target.candidates
    assert target_of(new["a4"]).identities == (approved_target.fingerprint,)
    assert all(new[i] == old[i] for i in ("a1", "a2", "a3"))
    after = validate(e, rep, T0)
    assert after.draft == e.draft  # the approved revision is never rewritten (the store keeps the proposal)


def test_locators_echoing_typed_values_or_secrets_are_dropped() -> None:
    e = approved()
    bundle = fresh(f'[aria-label="Remove {TYPED}"]', f"#{TOKEN}", "main > button", text=TYPED)
    recs = records(e, {"a4": bundle})
    proposal = heal_proposal(e, recs, report(e, recs), T0, (TYPED,))
    assert proposal is not None
    target = target_of(proposal.draft.action("a4"))
    approved_selectors = [c.selector for c in target_of(e.draft.action("a4")).candidates]
    assert [c.selector for c in target.candidates] == ["main > button", *approved_selectors]
    assert target.fingerprint.text_hash is None
    dumped = proposal.model_dump_json()
    assert TYPED not in dumped
    assert TOKEN not in dumped


def test_no_proposal_when_nothing_usable_is_left_or_nothing_changed() -> None:
    e = approved()
    recs = records(e, {"a4": fresh(f"#{TOKEN}")})
    assert heal_proposal(e, recs, report(e, recs), T0, ()) is None
    same = target_of(e.draft.action("a4"))
    recs = records(e, {"a4": same})
    assert heal_proposal(e, recs, report(e, recs), T0, ()) is None
    recs = records(e, {})
    assert heal_proposal(e, recs, report(e, recs), T0, ()) is None


def test_a_healed_target_chosen_by_an_input_proposes_its_fresh_fingerprint_never_one_fixed_element() -> None:
    """A row or filter target that healed (``replay.resolving._proposable_in_set``): the proposal
    keeps what the target chooses among (its filter, its row) and its approved candidates; only the
    element's fresh fingerprint is proposed, without what a chosen element may not keep (its text,
    its row's text, its link)."""
    from skillreel.model.locators import ROW_CONTENT
    from skillreel.model.refs import ParameterRef
    from skillreel.replay.driving import Picked
    from skillreel.replay.resolving import _proposable_in_set
    from tests.support.factory import element_set, target

    token = ParameterRef(name="query")
    rowed = LocatorBundle.parse(
        {
            **target("td button", tag="button", role="button", token=token).to_json(),
            "row": element_set().to_json(),
        }
    )
    moved = Fingerprint(
        tag="button",
        role="button",
        parent_path=("html", "body", "main", "div", "section"),
        text_hash="0" * 16,
        row_hash="1" * 16,
        attributes={"href": "2" * 16, "class": "3" * 16},
    )
    proposed = _proposable_in_set(rowed, Picked(token="t", fingerprint=moved))
    assert proposed.candidates == rowed.candidates
    assert all(getattr(proposed.fingerprint, name) is None for name in ROW_CONTENT)
    assert "href" not in proposed.fingerprint.attributes
    assert proposed.fingerprint.parent_path == moved.parent_path
    merged = merge_heal(rowed, proposed)
    assert (merged.filter, merged.row) == (rowed.filter, rowed.row)
    assert merged.fingerprint == proposed.fingerprint
    assert rowed.fingerprint in merged.accepted

    filtered = target("li a", tag="a", role="link", token=token)
    bare = _proposable_in_set(filtered, Picked(token="t", fingerprint=moved))
    assert bare.fingerprint.text_hash is None
    assert bare.fingerprint.row_hash is None
