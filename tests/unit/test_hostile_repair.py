"""Hostile review of a repair (``record --from-step/--only-step``, issue 32.5) before anything
runs: a tampered approved revision is refused (its digest is re-computed when it is read), the
plan a person confirms and its errors hold no input value, and what a repair stores is a draft
that needs a review, never an approval carried over."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillreel.errors import SkillreelError, StoreError
from skillreel.model import lifecycle
from skillreel.services.repairing import RepairRequest, plan_repair
from skillreel.store import Store
from tests.support import factory
from tests.support.readback import sql

NAME = "search-invoices"
TYPED = "Mallory Quinn"


@pytest.fixture
def home(skillreel_home: Path) -> Path:
    with Store.open() as store:
        factory.seed(store, status="validated")
    return skillreel_home


def test_a_tampered_kept_step_is_refused(home: Path) -> None:
    """The kept prefix is the approved one byte for byte: a changed selector of step a2 in the
    database (same length, the digest left alone) fails closed before anything runs."""
    ((rowid, document),) = sql(
        home, "SELECT rowid, document FROM revisions WHERE name = ? ORDER BY revision DESC LIMIT 1", NAME
    )
    assert isinstance(document, bytes)
    assert b'"#q"' in document
    sql(home, "UPDATE revisions SET document = ? WHERE rowid = ?", document.replace(b'"#q"', b'"#x"'), rowid)
    with Store.open() as store, pytest.raises(StoreError) as err:
        plan_repair(store, RepairRequest(name=NAME, step="a4", inputs={"query": TYPED}))
    assert err.value.code == "SR_RECORD_STORE_CORRUPT"


def test_the_plan_and_its_errors_hold_no_input_value(home: Path, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<html><body>fixture</body></html>")
    with Store.open() as store:
        plan = plan_repair(
            store, RepairRequest(name=NAME, step="a4", inputs={"query": TYPED}, html_path=page)
        )
        assert TYPED not in json.dumps(plan.to_json())
        assert TYPED not in repr(plan.request)
        with pytest.raises(SkillreelError) as err:  # a value that does not fit: named by input only
            plan_repair(
                store,
                RepairRequest(name=NAME, step="a4", inputs={"query": TYPED, "nope": TYPED}, html_path=page),
            )
        assert TYPED not in str(err.value)


def test_a_repair_stores_a_draft_that_needs_a_review() -> None:
    """``lifecycle.replace_draft`` (what the repair stores through) drops the approval of an
    approved or validated revision: the repaired skill cannot replay or be enabled unreviewed."""
    approved = factory.validated_entry(NAME)
    assert approved.approval is not None
    events = factory.events_log(2)
    repaired = lifecycle.replace_draft(approved, factory.draft(NAME, events=events), events, factory.T1)
    assert repaired.status == "draft"
    assert repaired.approval is None
    with pytest.raises(SkillreelError):
        lifecycle.ensure_replayable(repaired)
