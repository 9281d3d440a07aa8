"""Replay runs as pure documents (``model.runs``): the rules a run record keeps, one finish, how an
interrupted run reads, which steps can act; and the audit event's optional keys that leave every
older event's bytes and digest as they were. And how every run starts (``services.runs.started_run``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from skillreel.model.actions import ClickAction, NavigateAction, ObserveAction
from skillreel.model.audit import AuditEvent
from skillreel.model.canonical import GENESIS_DIGEST
from skillreel.model.policy import Policy, PolicySettings
from skillreel.model.runs import (
    INTERRUPTED_CODE,
    Lease,
    RunRecord,
    StepTally,
    can_act,
    finish_run,
    interrupt_run,
    shown_outcome,
    start_run,
)
from tests.support import factory
from tests.support.factory import T1, T2, bundle

DRAFT = factory.draft().draft_digest
REPORT = factory.report_for(factory.advance(factory.entry(), "approved")).report_digest


def started(steps: int = 4, acting: int = 3) -> RunRecord:
    return start_run("ab" * 16, "search-invoices", 2, DRAFT, steps, acting, "cli", Lease(pid=7), T1)


def test_a_run_starts_with_nothing_done_and_finishes_once() -> None:
    run = started()
    assert (run.outcome, run.finished_at, run.code, run.steps_run, run.side_effects) == (
        "started",
        None,
        None,
        0,
        False,
    )
    done = finish_run(run, "succeeded", T2, tally=StepTally(steps_run=4, steps_acted=3), report_digest=REPORT)
    assert (done.outcome, done.finished_at, done.side_effects, done.report_digest) == (
        "succeeded",
        T2,
        True,
        REPORT,
    )
    assert done.run_digest != run.run_digest
    with pytest.raises(ValueError, match="never finished again"):
        finish_run(done, "failed", T2, tally=StepTally(), code="SR_REPLAY_UI_TIMEOUT")
    with pytest.raises(ValueError, match="never finished again"):
        interrupt_run(done, T2)


def test_a_success_counts_the_steps_its_path_ran_not_every_step_it_has() -> None:
    """A branch's other arm and a loop over no items do not run: the run still succeeded."""
    done = finish_run(
        started(), "succeeded", T2, tally=StepTally(steps_run=2, steps_acted=1), report_digest=REPORT
    )
    assert (done.outcome, done.steps_total, done.steps_run) == ("succeeded", 4, 2)
    assert RunRecord.parse(done.to_json()) == done


def test_a_failure_before_any_acting_step_has_no_side_effects() -> None:
    failed = finish_run(
        started(), "failed", T2, tally=StepTally(steps_run=2), code="SR_REPLAY_UI_TARGET_NOT_FOUND"
    )
    assert (failed.side_effects, failed.steps_run, failed.steps_acted) == (False, 2, 0)
    acted = finish_run(
        started(), "failed", T2, tally=StepTally(steps_run=3, steps_acted=1), code="SR_REPLAY_UI_TIMEOUT"
    )
    assert acted.side_effects is True


BROKEN: dict[str, dict[str, Any]] = {
    "a started run with a finish time": {"finished_at": T2},
    "a success without a report": {"outcome": "succeeded", "finished_at": T2, "steps_run": 4},
    "a success that ran no step": {"outcome": "succeeded", "finished_at": T2, "report_digest": REPORT},
    "a failure without a code": {"outcome": "failed", "finished_at": T2},
    "a started run with a code": {"code": "SR_REPLAY_UI_TIMEOUT"},
    "more steps acted than ran": {
        "outcome": "failed",
        "finished_at": T2,
        "code": "SR_REPLAY_UI_TIMEOUT",
        "steps_run": 1,
        "steps_acted": 2,
        "side_effects": True,
    },
    "side effects without an acting step": {"side_effects": True},
    "a proposal without a healed step": {"heal_proposal_digest": DRAFT},
    "a finish before the start": {
        "outcome": "failed",
        "finished_at": "2020-01-01T00:00:00Z",
        "code": "SR_REPLAY_UI_TIMEOUT",
    },
    "an unknown actor": {"actor": "model"},
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_run_that_breaks_a_rule_cannot_be_built_or_read(case: str) -> None:
    fields = started().model_dump(by_alias=False, exclude={"run_digest", "schema_"})
    with pytest.raises(ValidationError):
        RunRecord.build(**{**fields, **BROKEN[case]})
    forged = {
        **started().to_json(),
        **{RunRecord.model_fields[k].alias or k: v for k, v in BROKEN[case].items()},
    }
    with pytest.raises(ValidationError):  # nor read back with any digest
        RunRecord.parse(forged)


def test_a_run_with_an_unknown_key_cannot_be_read() -> None:
    with pytest.raises(ValidationError):
        RunRecord.parse({**started().to_json(), "page": "content"})


def test_an_interrupted_run_counts_nothing_and_may_have_acted() -> None:
    run = started(steps=4, acting=3)
    assert shown_outcome(run, lease_alive=True) == "started"
    assert shown_outcome(run, lease_alive=False) == "interrupted"
    gone = interrupt_run(run, T2)
    assert (gone.outcome, gone.code, gone.steps_run, gone.steps_acted, gone.side_effects) == (
        "interrupted",
        INTERRUPTED_CODE,
        0,
        0,
        True,
    )
    assert interrupt_run(started(steps=2, acting=0), T2).side_effects is False  # it could only look
    assert shown_outcome(gone, lease_alive=False) == "interrupted"


def test_which_steps_can_act() -> None:
    target = bundle("#go", tag="button", type_="submit")
    assert can_act(ClickAction(id="a1", target=target))
    assert not can_act(ObserveAction(id="a2", target=target))
    assert not can_act(NavigateAction(id="a3", url="https://x.example/"))
    assert can_act(NavigateAction(id="a4", url="https://x.example/next", reason="address-bar"))


def test_optional_audit_keys_are_left_out_when_unset() -> None:
    plain = AuditEvent.build(seq=1, kind="record", name="x", at=T1, prev_digest=GENESIS_DIGEST)
    assert not {"actor", "run", "suppressed"} & set(json.loads(plain.model_dump_json(by_alias=True)))
    signed = AuditEvent.build(
        seq=1,
        kind="run-start",
        name="x",
        actor="package-script",
        run="ab" * 16,
        at=T1,
        prev_digest=GENESIS_DIGEST,
    )
    stored = json.loads(signed.model_dump_json(by_alias=True))
    assert (stored["actor"], stored["run"]) == ("package-script", "ab" * 16)
    assert AuditEvent.parse(stored) == signed
    with pytest.raises(ValidationError):
        AuditEvent.build(seq=1, kind="record", actor="root", at=T1, prev_digest=GENESIS_DIGEST)


def test_the_store_bound_is_optional_in_a_policy_and_at_most_32_mib() -> None:
    default = Policy.default()
    assert "maxStoreBytes" not in default.to_json()
    assert default.store_limit_bytes == 32 * 1024 * 1024
    bounded = Policy.from_settings(PolicySettings(max_store_bytes=1024 * 1024))
    assert (bounded.to_json()["maxStoreBytes"], bounded.store_limit_bytes) == (1024 * 1024, 1024 * 1024)
    for wrong in (32 * 1024 * 1024 + 1, 1024):
        with pytest.raises(ValidationError):
            PolicySettings(max_store_bytes=wrong)


def test_a_run_starts_counting_every_step_nested_ones_too() -> None:
    """``services.runs.started_run``, the one start of every run (local, batch row, fleet row, MCP
    play): its totals are what its end counts, one per step however deep (``Draft.walk``)."""
    from skillreel.model.actions import BranchAction, LoopAction
    from skillreel.model.conditions import CompareCondition
    from skillreel.model.lifecycle import new_entry
    from skillreel.model.reads import FieldSpec
    from skillreel.model.refs import ItemRef, LiteralValue
    from skillreel.services.runs import started_run

    click = ClickAction(id="a4", target=factory.target("button", tag="button", within="item"))
    branch = BranchAction(
        id="a3",
        condition=CompareCondition(value=ItemRef(field="s"), op="equals", expected=LiteralValue(value="x")),
        then=(click,),
        otherwise=(),
    )
    field = FieldSpec(name="s", target=factory.target(":scope > td"), type="string")
    loop = LoopAction(
        id="a2", items=factory.element_set("tbody tr"), limit=5, fields=(field,), body=(branch,)
    )
    draft = factory.graph_draft(
        [NavigateAction(id="a1", url="http://127.0.0.1:8000/app"), loop],
        environment=factory.url_environment(),
    )
    run = started_run(new_entry(draft, factory.events_log(), factory.T0), "fleet", T1)
    assert (run.steps_total, run.steps_acting, run.actor) == (4, 1, "fleet")
    assert not run.finished
