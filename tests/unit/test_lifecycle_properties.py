"""Property: no sequence of lifecycle operations reaches a forbidden state.

A hypothesis state machine drives one skill through random operations (approve, replay with and
without a heal, enable, revoke, re-record, accept a heal proposal), with time moving forward by
random amounts. Refused operations must be refused with a lifecycle/replay error and change
nothing; accepted ones must produce the next revision through an allowed transition, and every
entry must satisfy ``entry_problem`` and survive a JSON round trip.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from skillreel.errors import LifecycleError, ReplayError
from skillreel.model import lifecycle
from skillreel.model.entry import HealProposal, StoreEntry, entry_problem
from tests.support import factory
from tests.support.factory import healed_draft, installation, proposal_for, report_for

pytestmark = pytest.mark.slow  # a few hundred random walks

ALLOWED = {
    ("draft", "approved"),
    ("draft", "draft"),
    ("approved", "validated"),
    ("approved", "draft"),
    ("approved", "approved"),
    ("validated", "validated"),
    ("validated", "enabled"),
    ("validated", "draft"),
    ("validated", "approved"),
    ("enabled", "enabled"),
    ("enabled", "revoked"),
    ("revoked", "revoked"),
    ("revoked", "enabled"),
    ("revoked", "draft"),
    ("revoked", "approved"),
}
REVIEWERS = st.sampled_from(["alice", "bob", "carol@example.com"])


class Lifecycle(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.entry = factory.entry()
        self.clock = lifecycle.parse_timestamp(self.entry.updated_at)
        self.drafts = 0
        self.proposal: HealProposal | None = None  # the newest a run left (the store keeps it in a row)

    def now(self, hours: int) -> str:
        self.clock += timedelta(hours=hours)
        return lifecycle.timestamp(self.clock)

    def attempt(self, operation: str, change: object) -> None:
        before = self.entry
        refused: str | None = None
        try:
            after = change() if callable(change) else None
        except (LifecycleError, ReplayError) as exc:
            refused = exc.code
        if refused is not None:
            assert refused in ("SR_RECORD_STATE_INVALID", "SR_REPLAY_NOT_APPROVED"), operation
            # a replay of a validated, enabled or revoked skill is a run: it changes no revision
            assert self.entry is before
            return
        assert isinstance(after, StoreEntry)
        self.check_transition(operation, before, after)
        self.entry = after

    def check_transition(self, operation: str, before: StoreEntry, after: StoreEntry) -> None:
        assert (before.status, after.status) in ALLOWED, (operation, before.status, after.status)
        assert after.revision == before.revision + 1
        assert after.name == before.name
        assert after.created_at == before.created_at
        assert after.updated_at >= before.updated_at
        if after.draft.draft_digest != before.draft.draft_digest and after.approval is not None:
            old = before.approval
            assert old is None or after.approval.approval_digest != old.approval_digest
        if after.status == "enabled" and before.status != "enabled":
            assert before.status == "validated" or (before.status == "revoked" and before.was_enabled)
        if after.status == "revoked" and before.status != "revoked":
            assert before.status == "enabled"
        if after.status == "approved" and before.status != "approved":
            assert operation in ("approve", "accept_heal")

    @rule(reviewer=REVIEWERS, hours=st.integers(0, 48))
    def approve(self, reviewer: str, hours: int) -> None:
        now = self.now(hours)
        self.attempt("approve", lambda: lifecycle.approve(self.entry, reviewer, now))

    @rule(hours=st.integers(0, 48), heal=st.booleans())
    def replay(self, hours: int, heal: bool) -> None:
        now, entry = self.now(hours), self.entry

        def run() -> StoreEntry:
            lifecycle.ensure_replayable(entry)
            report = report_for(entry, now, healed=heal)
            if heal:
                self.proposal = proposal_for(entry, now, selector=f"#healed-{entry.revision}")
            return lifecycle.validate(entry, report, now)  # only the first success of approved

        self.attempt("replay", run)

    @rule(hours=st.integers(0, 48))
    def enable(self, hours: int) -> None:
        now = self.now(hours)
        self.attempt("enable", lambda: lifecycle.enable(self.entry, installation(now), now))

    @rule(hours=st.integers(0, 48))
    def revoke(self, hours: int) -> None:
        now = self.now(hours)
        self.attempt("revoke", lambda: lifecycle.revoke(self.entry, now))

    @rule(hours=st.integers(0, 48))
    def record_again(self, hours: int) -> None:
        now = self.now(hours)
        self.drafts += 1
        draft = healed_draft(self.entry.draft, selector=f"#recorded-{self.drafts}")
        self.attempt("record", lambda: lifecycle.replace_draft(self.entry, draft, self.entry.events, now))

    @rule(reviewer=REVIEWERS, hours=st.integers(0, 48))
    def accept_heal(self, reviewer: str, hours: int) -> None:
        now = self.now(hours)
        self.attempt("accept_heal", lambda: lifecycle.accept_heal(self.entry, reviewer, now, self.proposal))

    @rule(days=st.integers(0, 400), retention=st.integers(1, 3650))
    def delete_and_prune_rules(self, days: int, retention: int) -> None:
        later = lifecycle.timestamp(self.clock + timedelta(days=days))
        expired = lifecycle.is_expired(self.entry, later, retention)
        if self.entry.status == "enabled":
            assert not expired
            try:
                lifecycle.ensure_deletable(self.entry)
            except LifecycleError:
                pass
            else:
                raise AssertionError("an enabled skill was deletable")
        else:
            lifecycle.ensure_deletable(self.entry)
            age = lifecycle.parse_timestamp(later) - lifecycle.parse_timestamp(self.entry.updated_at)
            assert expired == (age > timedelta(days=retention))

    @invariant()
    def consistent(self) -> None:
        assert entry_problem(self.entry) is None
        assert StoreEntry.parse(self.entry.to_json()) == self.entry
        if self.entry.status != "draft":
            assert self.entry.approval is not None
            assert self.entry.approval.matches(self.entry.draft)
        assert (self.entry.installation is not None) == (self.entry.status == "enabled")


Lifecycle.TestCase.settings = settings(
    max_examples=100,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TestLifecycle = Lifecycle.TestCase
