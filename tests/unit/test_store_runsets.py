"""Runs of a batch in the store (``replay --batch``): a run names its runset and row in its document
(digest-covered) and in two columns; a runset is kept until its last run goes; runs of a runset are
pruned together so ``--resume`` never replays a row whose success was trimmed away."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillreel.errors import StoreError
from skillreel.model.batch import Runset, RunsetClaim
from skillreel.model.policy import Policy, PolicySettings
from skillreel.model.runs import BatchSlot, RunRecord
from skillreel.store import AuditNote, Store
from skillreel.store.lease import current_lease
from skillreel.store.run_book import RunsetHolding
from tests.support.factory import T1, dead_lease, record_run, seed, started_run
from tests.support.readback import sql

NAME = "search-invoices"
DIGEST = "sha256:" + "ab" * 32


class Clock:
    def __init__(self, now: str = T1) -> None:
        self.now = now

    def __call__(self) -> str:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(skillreel_home: Path, clock: Clock) -> Iterator[Store]:
    with Store.open(clock=clock, actor="batch") as opened:
        seed(opened, NAME, "enabled")  # never pruned itself: what it left behind is
        yield opened


def runset(store: Store, runset_id: str = "0123456789abcdef", name: str = NAME) -> Runset:
    return store.add_runset(
        Runset(runset_id=runset_id, name=name, rows=3, rows_digest=DIGEST, created_at=store.now())
    )


def test_a_run_of_a_batch_names_its_runset_and_row_and_a_plain_run_neither(store: Store) -> None:
    kept = runset(store)
    assert store.runset(kept.runset_id) == kept
    assert store.runset("fedcba9876543210") is None
    batch_run = record_run(store, NAME, batch=BatchSlot(kept.runset_id, 2)).run
    plain = record_run(store, NAME).run
    assert (batch_run.runset, batch_run.row, batch_run.actor) == (kept.runset_id, 2, "batch")
    assert {"runset", "row"} <= set(batch_run.to_json())
    assert not {"runset", "row"} & set(plain.to_json())  # a plain run's wire form (and digest) as before
    assert RunRecord.parse(plain.to_json()) == plain
    assert sql(store.home, "SELECT runset, batch_row FROM runs ORDER BY seq") == [
        (kept.runset_id, 2),
        (None, None),
    ]
    assert store.verify_audit().ok


def test_a_run_names_both_its_runset_and_row_or_neither(store: Store) -> None:
    run = started_run(store, NAME, batch=BatchSlot("0123456789abcdef", 1))
    with pytest.raises(ValueError, match="both its runset and its row"):
        run.evolve(row=None)


def test_the_successes_of_a_runset_are_its_succeeded_rows(store: Store) -> None:
    kept = runset(store)
    first = record_run(store, NAME, batch=BatchSlot(kept.runset_id, 1)).run
    record_run(store, NAME, "failed", batch=BatchSlot(kept.runset_id, 2))
    record_run(store, NAME, "cancelled", batch=BatchSlot(kept.runset_id, 3))
    record_run(store, NAME, batch=BatchSlot("fedcba9876543210", 2))  # another runset's row 2
    assert store.runset_successes(kept.runset_id) == {1: first.run_id}
    again = record_run(store, NAME, batch=BatchSlot(kept.runset_id, 2)).run
    assert store.runset_successes(kept.runset_id) == {1: first.run_id, 2: again.run_id}


@pytest.mark.parametrize(
    "tamper",
    ["UPDATE runs SET batch_row = 3 WHERE batch_row = 2", "UPDATE runs SET runset = 'fedcba9876543210'"],
)
def test_a_tampered_runset_column_is_refused_on_read(store: Store, tamper: str) -> None:
    kept = runset(store)
    record_run(store, NAME, batch=BatchSlot(kept.runset_id, 2))
    sql(store.home, tamper)
    with pytest.raises(StoreError) as caught:
        store.runs(NAME)
    assert caught.value.code == "SR_RECORD_STORE_CORRUPT"


def test_runs_of_a_runset_are_pruned_together_and_the_runset_with_them(store: Store, clock: Clock) -> None:
    kept = runset(store)
    record_run(store, NAME, batch=BatchSlot(kept.runset_id, 1))
    clock.now = "2027-01-01T00:00:00Z"  # past retention for the first row only
    record_run(store, NAME, batch=BatchSlot(kept.runset_id, 2))
    record_run(store, NAME)
    pruned = store.prune_runs()
    assert pruned.runs == 2  # both rows of the runset, though only one was old
    assert store.runset(kept.runset_id) is None
    assert store.run_count(NAME) == 1
    assert store.verify_audit().ok


def test_a_runset_with_a_run_still_going_is_not_pruned(store: Store, clock: Clock) -> None:
    kept = runset(store)
    record_run(store, NAME, batch=BatchSlot(kept.runset_id, 1))
    started_run(store, NAME, batch=BatchSlot(kept.runset_id, 2))  # this process: alive
    clock.now = "2027-01-01T00:00:00Z"
    assert store.prune_runs().runs == 0
    assert store.runset(kept.runset_id) == kept
    assert store.run_count(NAME) == 2


def test_size_pruning_stops_when_only_a_running_batch_is_left(store: Store) -> None:
    kept = runset(store)
    record_run(store, NAME, batch=BatchSlot(kept.runset_id, 1))
    started_run(store, NAME, batch=BatchSlot(kept.runset_id, 2))
    store.set_policy(Policy.from_settings(PolicySettings(max_store_bytes=256 * 1024)))
    sql(store.home, "CREATE TABLE filler (b BLOB)")
    sql(store.home, "INSERT INTO filler VALUES (zeroblob(250000))")
    assert store.prune_runs().runs == 0  # returns: the loop does not spin on runs it must keep
    assert store.run_count(NAME) == 2


def test_deleting_a_skill_deletes_its_runsets(store: Store) -> None:
    seed(store, "other-skill", "validated")
    kept = runset(store, name="other-skill")
    record_run(store, "other-skill", batch=BatchSlot(kept.runset_id, 1))
    runset(store, "fedcba9876543210")
    store.remove("other-skill", AuditNote(kind="delete"))
    assert store.runset(kept.runset_id) is None
    assert sql(store.home, "SELECT runset FROM runsets") == [("fedcba9876543210",)]


def test_a_runset_id_is_kept_once(store: Store) -> None:
    runset(store)
    with pytest.raises(StoreError) as caught:
        runset(store)
    assert caught.value.code == "SR_RECORD_INTERNAL"


def claim() -> RunsetClaim:
    return RunsetClaim(lease=current_lease(), token=secrets.token_hex(16))


def planned(runset_id: str = "0123456789abcdef") -> Runset:
    return Runset(runset_id=runset_id, name=NAME, rows=3, rows_digest=DIGEST, created_at=T1)


def test_a_new_runset_is_kept_held_and_a_second_batch_of_it_is_refused_while_the_holder_lives(
    store: Store,
) -> None:
    first = claim()
    assert store.claim_runset(planned(), first, new=True) == RunsetHolding(held=True)
    assert store.runset("0123456789abcdef") == planned()
    second = store.claim_runset(planned(), claim(), new=False)
    assert (second.held, second.held_by) == (False, first)  # this process is alive: refused
    store.release_runset("0123456789abcdef", first)
    assert store.claim_runset(planned(), claim(), new=False).held  # let go: taken


def test_a_resumed_runset_is_taken_from_a_dead_holder_with_the_rows_that_succeeded_meanwhile(
    store: Store,
) -> None:
    gone = RunsetClaim(lease=dead_lease(), token=secrets.token_hex(16))
    store.claim_runset(planned(), gone, new=True)  # its process died without letting go
    done = record_run(store, NAME, batch=BatchSlot("0123456789abcdef", 2)).run
    mine = claim()
    taken = store.claim_runset(planned(), mine, new=False)
    assert (taken.held, taken.done) == (True, {2: done.run_id})
    store.release_runset("0123456789abcdef", gone)  # only the holder lets go
    assert not store.claim_runset(planned(), claim(), new=False).held


def test_claiming_a_pruned_runset_changes_nothing(store: Store) -> None:
    assert store.claim_runset(planned(), claim(), new=False) == RunsetHolding(held=False)
    assert store.runset("0123456789abcdef") is None


def test_a_held_runset_without_runs_yet_is_not_pruned_but_a_dead_holders_is(
    store: Store, clock: Clock
) -> None:
    store.claim_runset(planned(), claim(), new=True)  # its batch has not reserved a run yet
    store.claim_runset(
        planned("fedcba9876543210"), RunsetClaim(lease=dead_lease(), token=secrets.token_hex(16)), new=True
    )
    record_run(store, NAME)
    clock.now = "2027-01-01T00:00:00Z"
    assert store.prune_runs().runs == 1
    assert store.runset("0123456789abcdef") is not None
    assert store.runset("fedcba9876543210") is None


def test_a_tampered_holder_is_refused_on_read(store: Store) -> None:
    store.claim_runset(planned(), claim(), new=True)
    sql(store.home, 'UPDATE runsets SET owner = \'{"lease": {"pid": 0}}\'')
    with pytest.raises(StoreError) as caught:
        store.claim_runset(planned(), claim(), new=False)
    assert caught.value.code == "SR_RECORD_STORE_CORRUPT"
