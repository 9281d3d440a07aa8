"""The bad inputs of a repair (``record --from-step`` / ``--only-step``, issue 32 point 5) are
refused before anything runs, with their own codes, and change nothing in the store (its entry,
revisions and audit chain). No browser: every refusal comes before one would start."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillreel.errors import SkillreelError
from skillreel.model.actions import ClickAction, HumanAction, NavigateAction, TypeAction, capability_manifest
from skillreel.model.refs import ParameterRef
from skillreel.record.splice import repair_point
from skillreel.services.repairing import RepairRequest, plan_repair
from skillreel.store import Store
from tests.support import factory
from tests.support.cli import run_cli
from tests.support.fake_orders import approve_loop
from tests.support.readback import snapshot

FIXTURE = "<html><body>fixture</body></html>"  # the fixture of factory.html_environment()


def _state(store: Store) -> tuple[object, ...]:
    return (
        [e.to_json() for e in store.entries()],
        store.audit_count(),
        [r.revision for r in store.revisions("search-invoices")],
    )


def _refused(home: Path, request: RepairRequest, status: str = "approved") -> SkillreelError:
    with Store.open(home) as store:
        if store.find("search-invoices") is None:
            factory.seed(store, status=status)
        before = _state(store)
        with pytest.raises(SkillreelError) as info:
            plan_repair(store, request)
        assert _state(store) == before
    return info.value


@pytest.mark.parametrize(
    ("request_", "status", "code", "exit_status"),
    [
        (RepairRequest(name="search-invoices", step="a9"), "approved", "SR_RECORD_REPAIR_STEP_UNKNOWN", 2),
        (RepairRequest(name="search-invoices", step="a1"), "approved", "SR_RECORD_REPAIR_STEP_INVALID", 2),
        (RepairRequest(name="search-invoices", step="a4"), "draft", "SR_RECORD_REPAIR_NOT_APPROVED", 2),
        (
            RepairRequest(name="search-invoices", step="a4", expected_revision=1),
            "approved",
            "SR_RECORD_REVISION_CONFLICT",
            1,
        ),
        (RepairRequest(name="search-invoices", step="a4"), "enabled", "SR_RECORD_STATE_INVALID", 1),
        (
            RepairRequest(name="search-invoices", step="a4", inputs={"nope": "x"}),
            "validated",
            "SR_REPLAY_PARAMETER_UNKNOWN",
            2,
        ),
        (RepairRequest(name="search-invoices", step="a4"), "validated", "SR_REPLAY_PARAMETER_MISSING", 2),
        (RepairRequest(name="other", step="a4"), "approved", "SR_RECORD_NOT_FOUND", 1),
    ],
)
def test_a_bad_repair_is_refused_and_changes_nothing(
    skillreel_home: Path, request_: RepairRequest, status: str, code: str, exit_status: int
) -> None:
    error = _refused(skillreel_home, request_, status)
    assert (error.code, error.exit_status) == (code, exit_status)


def test_a_step_inside_a_block_is_refused_saying_so() -> None:
    draft = factory.graph_draft(
        (NavigateAction(id="a1", url="https://fixture.skillreel.invalid/"), approve_loop())
    )
    with pytest.raises(SkillreelError) as info:
        repair_point(draft, "c2")
    assert info.value.code == "SR_RECORD_REPAIR_STEP_INVALID"
    assert "inside a loop or branch" in info.value.message
    assert repair_point(draft, "l1") == 1


def test_only_step_needs_a_step_that_acts_on_an_element() -> None:
    draft = factory.graph_draft(
        (
            NavigateAction(id="a1", url="https://fixture.skillreel.invalid/"),
            NavigateAction(id="a2", url="https://fixture.skillreel.invalid/next", reason="address-bar"),
        )
    )
    assert repair_point(draft, "a2") == 1
    with pytest.raises(SkillreelError) as info:
        repair_point(draft, "a2", needs_target=True)
    assert info.value.code == "SR_RECORD_REPAIR_STEP_INVALID"


def test_a_bad_automation_file_for_only_step_is_refused(skillreel_home: Path, tmp_path: Path) -> None:
    script = tmp_path / "pick.json"
    script.write_text(json.dumps({"steps": [{"do": "click", "selector": "#go"}]}))
    request = RepairRequest(
        name="search-invoices", step="a4", only=True, automation=script, inputs={"query": "x"}
    )
    error = _refused(skillreel_home, request)
    assert error.exit_status == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--from-step", "a4", "--input", "query=x"), "confirm on a terminal, or pass --yes"),
        (("--from-step", "a4", "--only-step", "a4", "--yes"), "not both"),
        (
            ("--from-step", "a4", "--url", "https://example.com/", "--yes"),
            "keeps the approved skill's target",
        ),
        (("--input", "query=x"), "only go with --from-step or --only-step"),
        (("--from-step", "a9", "--yes"), "has no step 'a9'"),
    ],
)
def test_the_cli_refuses_bad_usage_before_anything_runs(
    skillreel_home: Path, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    with Store.open(skillreel_home) as store:
        factory.seed(store, status="approved")
    fixture = tmp_path / "fixture.html"
    fixture.write_text(FIXTURE)
    before = snapshot(skillreel_home)
    result = run_cli("record", "search-invoices", *args, "--html", str(fixture), "--json")
    assert result.exit_code == 2, result.stderr
    assert message in result.json()["error"]["message"]
    assert snapshot(skillreel_home) == before


def test_a_kept_step_that_needs_a_person_refuses_a_scripted_repair(
    skillreel_home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "tail.json"
    script.write_text(json.dumps({"steps": [{"do": "click", "selector": "#go"}]}))
    actions = (
        NavigateAction(id="a1", url="https://fixture.skillreel.invalid/"),
        TypeAction(id="a2", target=factory.bundle("#q"), value=ParameterRef(name="query")),
        HumanAction(id="a3", reason="otp"),
        ClickAction(id="a4", target=factory.bundle("#go", tag="button", type_="submit")),
    )
    with Store.open(skillreel_home) as store:
        factory.seed(store, status="approved", actions=actions, capabilities=capability_manifest(actions))
    request = RepairRequest(name="search-invoices", step="a4", inputs={"query": "x"}, automation=script)
    error = _refused(skillreel_home, request)
    assert (error.code, error.action_id) == ("SR_REPLAY_HUMAN_REQUIRED", "a3")
    assert "nothing was run" in error.message
