"""Runs in the store (``Store.reserve_run`` / ``finish_run`` and the rows they keep): a run is its own
record, never a revision; N runs of one skill are N records and one validation; the limits refuse a
reservation, never a finish; a run whose process is gone reads as interrupted and is recorded so;
run rows are re-validated, attested by the chain, paged, pruned; heal proposals are kept per draft."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillreel.errors import LifecycleError, StoreError
from skillreel.model import lifecycle
from skillreel.model.policy import Policy, PolicySettings
from skillreel.model.runs import Lease, StepTally, finish_run, start_run
from skillreel.store import AuditNote, Store
from skillreel.store import audit as store_audit
from skillreel.store.lease import current_lease, lease_alive
from tests.support import factory
from tests.support.factory import T1, T2, dead_lease, proposal_for, record_run, seed, started_run
from tests.support.readback import sql

NAME = "search-invoices"


class Clock:
    """A store clock the test moves by hand."""

    def __init__(self, now: str = T1) -> None:
        self.now = now

    def __call__(self) -> str:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(skillreel_home: Path, clock: Clock) -> Iterator[Store]:
    with Store.open(clock=clock) as opened:
        yield opened


def kinds(store: Store, since: int = 0) -> list[str]:
    return [e.kind for e in store.audit_events() if e.seq > since]


def test_a_run_is_recorded_before_and_after_and_makes_no_revision(store: Store) -> None:
    entry = seed(store, NAME, "validated")
    before = store.audit_count()
    run = started_run(store, NAME)
    (view,) = store.runs(NAME)
    assert (view.number, view.outcome, view.record) == (1, "started", run)
    assert kinds(store, before) == ["run-start"]
    finished = record_run(store, NAME)
    assert finished.validated is None  # already validated: a run changes nothing about the skill
    assert store.get(NAME) == entry
    assert [v.outcome for v in store.runs(NAME)] == ["succeeded", "started"]
    events = store.audit_events()[before:]
    assert [(e.kind, e.outcome, e.actor) for e in events] == [
        ("run-start", "ok", "cli"),
        ("run-start", "ok", "cli"),
        ("run-end", "ok", "cli"),
    ]
    assert events[2].run == finished.run.run_id
    assert events[2].digests["run"] == finished.run.run_digest
    assert store.verify_audit().ok


def test_many_successes_of_an_approved_revision_are_many_runs_and_one_validation(store: Store) -> None:
    approved = seed(store, NAME, "approved")
    runs = [started_run(store, NAME) for _ in range(6)]  # all reserved before any finishes
    report = factory.report_for(approved, T1)
    validated = []
    for run in runs:
        done = finish_run(
            run,
            "succeeded",
            T1,
            tally=StepTally(steps_run=4, steps_acted=3),
            report_digest=report.report_digest,
        )
        validated.append(store.finish_run(done, report=report).validated)
    assert [v is not None for v in validated] == [True] + [False] * 5  # the race is lost, the run stands
    now = store.get(NAME)
    assert (now.status, now.revision) == ("validated", approved.revision + 1)
    assert [v.outcome for v in store.runs(NAME)] == ["succeeded"] * 6
    assert kinds(store).count("validate") == 1
    assert kinds(store).count("run-end") == 6
    assert store.verify_audit().ok


def test_a_reservation_is_refused_when_the_skill_moved_and_nothing_is_written(
    store: Store, skillreel_home: Path
) -> None:
    entry = seed(store, NAME, "approved")  # the pre-flight read this revision...
    store.update(  # ...then another process recorded the skill again
        NAME, lambda e: lifecycle.replace_draft(e, e.draft, e.events, T2), AuditNote(kind="record")
    )
    count = store.audit_count()
    run = start_run(
        "cd" * 16, NAME, entry.revision, entry.draft.draft_digest, 4, 3, "cli", current_lease(), T2
    )
    with pytest.raises(LifecycleError) as err:
        store.reserve_run(run)
    assert err.value.code == "SR_RECORD_REVISION_CONFLICT"
    assert (store.audit_count(), store.run_count()) == (count, 0)


def test_limits_refuse_a_reservation_never_the_end_of_a_reserved_run(store: Store) -> None:
    seed(store, NAME, "approved")
    store.set_policy(Policy.from_settings(PolicySettings(max_audit_events=100)))
    running = started_run(store, NAME)
    failed = AuditNote(kind="replay-refused", outcome="failed", code="SR_REPLAY_UI_TIMEOUT")
    store.audit_many([failed] * (95 - store.audit_count()))
    with pytest.raises(StoreError) as err:
        started_run(store, NAME)
    assert err.value.code == "SR_RECORD_STORE_LIMIT"
    assert store.run_count() == 1
    report = factory.report_for(store.get(NAME), T1)
    done = finish_run(
        running,
        "succeeded",
        T1,
        tally=StepTally(steps_run=4, steps_acted=3),
        report_digest=report.report_digest,
    )
    finished = store.finish_run(done, report=report)
    assert finished.validated is not None  # its end and the validation are written past the limit
    assert store.audit_count() == 97
    assert store.verify_audit().ok


def test_the_store_size_bound_refuses_a_reservation(store: Store) -> None:
    seed(store, NAME, "validated")
    size = store.size()
    assert size.limit_bytes == 32 * 1024 * 1024
    bound = 256 * 1024
    store.set_policy(Policy.from_settings(PolicySettings(max_store_bytes=bound)))
    refused: StoreError | None = None
    for _ in range(1000):  # each run adds about 1.3 KB: the bound is reached long before
        try:
            record_run(store, NAME)
        except StoreError as exc:
            refused = exc
            break
    assert refused is not None
    assert refused.code == "SR_RECORD_STORE_LIMIT"
    assert "prune --approve" in refused.message
    runs, used = store.run_count(), store.size().used_bytes
    assert used > bound - bound // 2
    with pytest.raises(StoreError):
        started_run(store, NAME)
    assert (store.run_count(), store.size().used_bytes) == (runs, used)  # a refusal writes nothing
    assert store.size().limit_bytes == bound
    # the kill switch still works on a full store
    store.set_policy(Policy.from_settings(PolicySettings(max_store_bytes=bound, retention_days=30)))
    store.remove(NAME, AuditNote(kind="delete"))
    assert store.run_count() == 0


def test_a_run_whose_process_is_gone_reads_as_interrupted_and_is_recorded_so(store: Store) -> None:
    seed(store, NAME, "validated")
    gone = started_run(store, NAME, lease=dead_lease())
    (view,) = store.runs(NAME)
    assert (view.record.outcome, view.outcome) == ("started", "interrupted")
    shown = view.to_json()
    assert (shown["outcome"], shown["code"], shown["sideEffects"]) == (
        "interrupted",
        "SR_REPLAY_INTERRUPTED",
        True,
    )
    before = store.audit_count()
    started_run(store, NAME)  # the next reservation of the skill ends it first
    interrupted = next(v for v in store.runs(NAME) if v.record.run_id == gone.run_id)
    assert (interrupted.record.outcome, interrupted.record.code) == ("interrupted", "SR_REPLAY_INTERRUPTED")
    events = store.audit_events()[before:]
    assert [(e.kind, e.outcome, e.run) for e in events] == [
        ("run-end", "interrupted", gone.run_id),
        ("run-start", "ok", events[1].run),
    ]
    assert store.verify_audit().ok


def test_a_reused_pid_or_another_boot_is_not_the_process_that_held_the_run() -> None:
    mine = current_lease()
    assert lease_alive(mine)
    assert not lease_alive(dead_lease())
    if mine.process_start is not None:
        assert not lease_alive(mine.model_copy(update={"process_start": mine.process_start + 1}))
    if mine.boot_id is not None:
        assert not lease_alive(mine.model_copy(update={"boot_id": "another-boot"}))
    assert lease_alive(Lease(pid=1))  # init exists (another user's process counts as alive)


def test_runs_are_paged_newest_first(store: Store) -> None:
    seed(store, NAME, "validated")
    seed(store, "other-skill", "validated")
    for _ in range(7):
        record_run(store, NAME)
        record_run(store, "other-skill", "failed")
    page = store.runs(NAME, limit=3)
    assert [v.number for v in page] == [13, 11, 9]
    older = store.runs(NAME, limit=3, before=page[-1].number)
    assert [v.number for v in older] == [7, 5, 3]
    assert [v.number for v in store.runs(NAME, limit=3, before=3)] == [1]
    assert (store.run_count(NAME), store.run_count()) == (7, 14)
    assert {v.outcome for v in store.runs("other-skill")} == {"failed"}


@pytest.mark.parametrize(
    "tamper",
    [
        "UPDATE runs SET document = "
        "CAST(replace(CAST(document AS TEXT), '\"stepsRun\":4', '\"stepsRun\":3') AS BLOB)",
        "UPDATE runs SET outcome = 'failed'",
        "UPDATE runs SET revision = revision + 1",
    ],
)
def test_a_tampered_run_row_is_refused_on_read(store: Store, skillreel_home: Path, tamper: str) -> None:
    seed(store, NAME, "validated")
    record_run(store, NAME)
    sql(skillreel_home, tamper)
    with pytest.raises(StoreError) as err:
        store.runs(NAME)
    assert err.value.code == "SR_RECORD_STORE_CORRUPT"


def test_a_forged_or_rewritten_run_is_not_attested_by_the_chain(store: Store, skillreel_home: Path) -> None:
    seed(store, NAME, "validated")
    real = record_run(store, NAME).run
    assert store.verify_audit().ok
    forged = finish_run(
        started_run(store, NAME),
        "succeeded",
        T2,
        tally=StepTally(steps_run=4, steps_acted=3),
        report_digest=real.report_digest,
    )
    sql(  # a success written behind the store's back over a run that never finished
        skillreel_home,
        "UPDATE runs SET outcome = ?, finished_at = ?, run_digest = ?, document = ? WHERE run_id = ?",
        forged.outcome,
        forged.finished_at,
        forged.run_digest,
        forged.model_dump_json(by_alias=True).encode(),
        forged.run_id,
    )
    assert [v.outcome for v in store.runs(NAME)] == ["succeeded", "succeeded"]  # it reads as valid...
    assert not store.verify_audit().ok  # ...but no event attests it


def test_heal_proposals_are_kept_per_draft_and_coalesce(store: Store) -> None:
    validated = seed(store, NAME, "validated")
    same = proposal_for(validated, T1)
    record_run(store, NAME, healed=True, proposal=same)
    record_run(store, NAME, healed=True, proposal=same)
    other = proposal_for(validated, T1, selector="#go-elsewhere")
    record_run(store, NAME, healed=True, proposal=other)
    assert store.heal_proposals(NAME) == [other, same]
    assert kinds(store).count("heal-proposal") == 3
    assert [v.record.heal_proposal_digest for v in store.runs(NAME)] == [
        other.draft.draft_digest,
        same.draft.draft_digest,
        same.draft.draft_digest,
    ]
    assert store.verify_audit().ok
    store.update(
        NAME,
        lambda e: lifecycle.replace_draft(e, e.draft.evolve(description="Again."), e.events, T2),
        AuditNote(kind="record"),
    )
    assert store.heal_proposals(NAME) == []  # they heal a draft that is no longer current
    assert store.prune_runs(T2).proposals == 2
    assert store.verify_audit().ok


def test_prune_trims_old_runs_and_history_and_records_it(store: Store, clock: Clock) -> None:
    seed(store, NAME, "enabled")  # never pruned itself: what it left behind is
    record_run(store, NAME)
    record_run(store, NAME, "failed")
    clock.now = "2027-01-01T00:00:00Z"
    seed(store, "fresh-skill", "validated")
    record_run(store, "fresh-skill")
    dry = store.prune_runs(dry_run=True)
    assert (dry.runs, dry.revisions) == (2, 3)  # NAME's runs, and its revisions before the current one
    assert store.run_count() == 3
    done = store.prune_runs()
    assert done == dry
    assert store.run_count() == 1
    assert [r.revision for r in store.revisions(NAME)] == [4]
    assert store.audit_events()[-1].to_json()["kind"] == "prune"
    assert store.verify_audit().ok
    assert not store.prune_runs(dry_run=True)


@pytest.mark.slow  # a few hundred runs to fill the store
def test_prune_trims_the_oldest_runs_while_the_store_is_over_three_quarters_full(store: Store) -> None:
    seed(store, NAME, "validated")
    bound = 512 * 1024
    store.set_policy(Policy.from_settings(PolicySettings(max_store_bytes=bound)))
    while store.size().used_bytes <= bound * 7 // 8:
        record_run(store, NAME)
    numbers = [v.number for v in store.runs(NAME, limit=1000)]
    trimmed = store.prune_runs()
    assert 0 < trimmed.runs < len(numbers)
    assert store.size().used_bytes * 4 <= bound * 3
    kept = [v.number for v in store.runs(NAME, limit=1000)]
    assert kept == numbers[: len(numbers) - trimmed.runs]  # the oldest went first
    assert store.verify_audit().ok


def test_deleting_a_skill_deletes_its_runs_and_proposals(store: Store) -> None:
    validated = seed(store, NAME, "validated")
    record_run(store, NAME, healed=True, proposal=proposal_for(validated, T1))
    store.remove(NAME, AuditNote(kind="delete"))
    assert (store.run_count(), store.heal_proposals(NAME)) == (0, [])
    assert sql_count(store, "heal_proposals") == 0
    assert store.verify_audit().ok


def sql_count(store: Store, table: str) -> int:
    return len(sql(store.home, f"SELECT 1 FROM {table}"))


def test_refused_calls_are_coalesced_and_every_one_is_counted(store: Store, clock: Clock) -> None:
    refusal = AuditNote(
        kind="replay-refused", name=NAME, outcome="failed", code="SR_REPLAY_PARAMETER_UNKNOWN"
    )
    written = [store.audit_refusal(refusal) for _ in range(25)]
    assert sum(e is not None for e in written) == store_audit.REFUSAL_BURST == 10
    assert store.audit_count() == 10
    assert store.unlogged_refusals() == 15
    clock.now = "2026-01-03T00:01:00Z"  # the next window
    event = store.audit_refusal(refusal)
    assert event is not None
    assert (event.suppressed, event.actor) == (15, "cli")
    assert store.unlogged_refusals() == 0
    assert store.verify_audit().ok


def test_coalesced_refusals_never_fill_a_full_log(store: Store) -> None:
    store.set_policy(Policy.from_settings(PolicySettings(max_audit_events=100)))
    store.audit_many([AuditNote(kind="replay", outcome="failed", code="SR_REPLAY_UI_TIMEOUT")] * 94)
    refusal = AuditNote(kind="replay-refused", outcome="failed", code="SR_REPLAY_PARAMETER_UNKNOWN")
    assert [store.audit_refusal(refusal) is not None for _ in range(3)] == [False, False, False]
    assert (store.audit_count(), store.unlogged_refusals()) == (95, 3)


def test_a_store_opened_for_mcp_names_it_in_every_event(skillreel_home: Path) -> None:
    with Store.open(actor="mcp") as store:
        seed(store, NAME, "validated")
        record_run(store, NAME)
        assert {e.actor for e in store.audit_events()} == {"mcp"}
        assert store.runs(NAME)[0].record.actor == "mcp"


def test_a_package_script_is_named_from_its_environment(
    skillreel_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLREEL_ACTOR", "package-script")
    with Store.open() as store:
        assert store.actor == "package-script"
    monkeypatch.setenv("SKILLREEL_ACTOR", "mcp")  # no other claim is taken from the environment
    with Store.open() as store:
        assert store.actor == "cli"


def test_an_old_store_gains_runs_and_a_chain_head_and_still_verifies(tmp_path: Path) -> None:
    home = tmp_path / "old"
    with Store.open(home) as store:
        seed(store, NAME, "validated")
        store.audit(AuditNote(kind="replay", name=NAME, outcome="failed", code="SR_REPLAY_UI_TIMEOUT"))
    with sqlite3.connect(home / "store.db") as conn:  # as the first version left it
        for table in ("runs", "runsets", "heal_proposals", "audit_head", "audit_throttle"):
            conn.execute(f"DROP TABLE {table}")
        conn.execute(
            "DELETE FROM schema_migrations WHERE name IN "
            "('0005-runs', '0006-heal-proposals', '0007-audit-head', '0008-audit-throttle', '0010-runsets')"
        )
    with Store.open(home) as store:
        assert store.verify_audit().ok
        last = store.audit_events()[-1]
        assert sql(home, "SELECT seq, event_digest FROM audit_head") == [(last.seq, last.event_digest)]
        record_run(store, NAME)
        assert store.verify_audit().ok
