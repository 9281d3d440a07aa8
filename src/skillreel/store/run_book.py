"""The bookkeeping of replay runs and runsets, each change one ``BEGIN IMMEDIATE`` transaction with
its audit events.

Replays are runs, not revisions (``model.runs``): :meth:`RunBook.reserve` writes the started run
and its ``run-start`` event before the browser acts (refused, with nothing written, when the store
is busy, full, at its audit limit, or the skill moved since the pre-flight); :meth:`RunBook.finish`
finishes it once with its ``run-end`` event, keeps its heal proposal and, for the first success of
an approved revision, makes that revision validated (compare-and-set: a run that lost the race
still finishes). Neither conflicts with another run of the same skill. A batch (``replay --batch``)
keeps its runset before its first run and holds it while it runs (:meth:`RunBook.claim_runset`).
The rows themselves are ``runs``; the ``Store`` exposes all of this as its run methods.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..errors import LifecycleError, StoreError
from ..model.audit import Outcome
from ..model.batch import Runset, RunsetClaim
from ..model.entry import HealProposal, StoreEntry
from ..model.lifecycle import validate, validates
from ..model.policy import Policy
from ..model.report import ReplayReport
from ..model.runs import RunRecord, interrupt_run
from . import audit, db, entries, runs
from .audit import AuditNote
from .lease import lease_alive
from .writer import StoreWriter, revalidate

_RUN_END_OUTCOME: dict[str, Outcome] = {
    "succeeded": "ok",
    "failed": "failed",
    "cancelled": "cancelled",
    "interrupted": "interrupted",
}


@dataclass(frozen=True)
class RunFinish:
    """A finished run as stored, the entry it validated (or None), and whether its heal proposal was
    kept as a new one (False when an identical proposal of the same draft was already kept)."""

    run: RunRecord
    validated: StoreEntry | None
    proposal_kept: bool


@dataclass(frozen=True)
class RunsetHolding:
    """What :meth:`RunBook.claim_runset` came to: whether the batch now holds its runset, who holds
    it instead (a live batch; None when the runset is gone), the rows that already succeeded."""

    held: bool
    held_by: RunsetClaim | None = None
    done: dict[int, str] = field(default_factory=dict)


class RunBook:
    """Reserves, finishes and ends abandoned runs; keeps, claims and releases runsets."""

    def __init__(self, writer: StoreWriter) -> None:
        self._writer = writer
        self._conn = writer.conn

    def reserve(self, run: RunRecord) -> RunRecord:
        """Record a started run and its ``run-start`` event, in one transaction, before anything acts.

        Refused with nothing written when the store is busy past its timeout, the disk is full, the
        audit log or the store is at its limit (``SR_RECORD_STORE_LIMIT``), or the skill is no longer
        at the run's revision and draft (``SR_RECORD_REVISION_CONFLICT``). Started runs of the same
        skill whose process is gone are recorded as interrupted first.
        """
        run = revalidate(run)
        if run.finished:
            raise StoreError("SR_RECORD_INTERNAL", "a run is reserved as started")
        with db.atomic(self._conn, "reserving a run"):
            policy = self._writer.policy()
            current = self._writer.current(run.name, run.revision)
            if current.draft.draft_digest != run.draft_digest:
                raise LifecycleError(
                    "SR_RECORD_REVISION_CONFLICT", f"skill {run.name!r} changed since the pre-flight"
                )
            self.end_abandoned(run.name, policy)
            runs.insert(self._conn, run)
            note = AuditNote(
                kind="run-start",
                name=run.name,
                revision=run.revision,
                digests={"run": run.run_digest, "draft": run.draft_digest},
                actor=run.actor,
                run=run.run_id,
            )
            audit.append(self._conn, note, self._writer.clock(), policy)
        return run

    def finish(
        self, run: RunRecord, *, report: ReplayReport | None = None, proposal: HealProposal | None = None
    ) -> RunFinish:
        """Finish a started run once (``run``: the finished record), with its ``run-end`` event; keep
        its heal proposal (one ``heal-proposal`` event); and when it succeeded and the skill is still
        that approved revision, make it validated (``validate`` event). One transaction, never refused
        by the audit or size limits: what a run did is always recorded when the disk allows it."""
        run = revalidate(run)
        if not run.finished:
            raise StoreError("SR_RECORD_INTERNAL", "a run is finished with its outcome")
        with db.atomic(self._conn, "recording a run"):
            policy, now = self._writer.policy(), self._writer.clock()
            runs.finish(self._conn, run)
            notes = [_run_end(run)]
            kept = False
            if proposal is not None:
                kept = runs.add_proposal(self._conn, proposal, run.run_id)
                notes.append(
                    AuditNote(
                        kind="heal-proposal",
                        name=run.name,
                        revision=run.revision,
                        digests={"healProposal": proposal.draft.draft_digest, "draft": run.draft_digest},
                        actor=run.actor,
                        run=run.run_id,
                    )
                )
            audit.append_many(self._conn, notes, now, policy, limited=False)
            validated = None
            current = entries.load(self._conn, run.name)
            if (
                report is not None
                and current is not None
                and validates(current, run.revision, run.draft_digest)
            ):
                validated = revalidate(validate(current, report, now))
                entries.write(self._conn, validated, new=False)
                note = AuditNote(kind="validate", digests={"report": report.report_digest}, run=run.run_id)
                self._writer.append(replace(note, actor=run.actor), validated, policy, limited=False)
        return RunFinish(run, validated, kept)

    def end_abandoned(self, name: str | None, policy: Policy) -> list[RunRecord]:
        """Record every started run (of ``name``, or all) whose process is gone as ``interrupted``,
        with its ``run-end`` event; returns them. Call inside an ``atomic`` transaction."""
        now = self._writer.clock()
        ended = []
        for found in runs.started(self._conn, name):
            if found.outcome != "interrupted":
                continue
            run = revalidate(interrupt_run(found.record, now))
            runs.finish(self._conn, run)
            audit.append(self._conn, _run_end(run), now, policy, limited=False)
            ended.append(run)
        return ended

    def add_runset(self, runset: Runset) -> Runset:
        """Keep a new batch's runset (``replay --batch``) before its first run is reserved."""
        with db.atomic(self._conn, "keeping a runset"):
            if runs.load_runset(self._conn, runset.runset_id) is not None:
                raise StoreError("SR_RECORD_INTERNAL", "a runset id was drawn twice")
            runs.add_runset(self._conn, runset)
        return runset

    def claim_runset(self, runset: Runset, claim: RunsetClaim, *, new: bool) -> RunsetHolding:
        """Hold a runset for one batch while it runs, in one transaction: a new one is kept held; a
        kept one is taken unless another batch whose process lives holds it (then nothing changes
        and :attr:`RunsetHolding.held_by` says which). Also the rows that already succeeded, read in
        the same transaction (a batch that ended just before is counted)."""
        with db.atomic(self._conn, "claiming a runset"):
            if new:
                if runs.load_runset(self._conn, runset.runset_id) is not None:
                    raise StoreError("SR_RECORD_INTERNAL", "a runset id was drawn twice")
                runs.add_runset(self._conn, runset, claim)
                return RunsetHolding(held=True)
            if runs.load_runset(self._conn, runset.runset_id) is None:
                return RunsetHolding(held=False)  # pruned since it was planned
            holder = runs.runset_owner(self._conn, runset.runset_id)
            if holder is not None and holder.token != claim.token and lease_alive(holder.lease):
                return RunsetHolding(held=False, held_by=holder)
            runs.hold_runset(self._conn, runset.runset_id, claim)
            return RunsetHolding(held=True, done=runs.runset_successes(self._conn, runset.runset_id))

    def release_runset(self, runset_id: str, claim: RunsetClaim) -> None:
        """Let a runset go at the end of its batch (only when ``claim`` still holds it)."""
        with db.atomic(self._conn, "releasing a runset"):
            runs.let_go_runset(self._conn, runset_id, claim)


def _run_end(run: RunRecord) -> AuditNote:
    digests = {"run": run.run_digest, "draft": run.draft_digest}
    if run.report_digest is not None:
        digests["report"] = run.report_digest
    return AuditNote(
        kind="run-end",
        name=run.name,
        revision=run.revision,
        outcome=_RUN_END_OUTCOME[run.outcome],
        code=run.code,
        digests=digests,
        actor=run.actor,
        run=run.run_id,
    )
