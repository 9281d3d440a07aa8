"""``skillreel.api``'s surface over a temporary store: the documents the verbs' ``--json`` print,
the verbs' refusals as ``SkillreelError``s with their codes, the arguments checked as click checks
the options, ``secrets=`` never echoed, and the ``_sync`` twins refusing a running event loop.
(Real Chromium through the API, and the API beside the real CLI: tests/integration/api/.)"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import skillreel.api as sr
from skillreel.errors import LifecycleError, ReplayError, SkillreelError
from skillreel.store import Store
from tests.support.factory import seed

SECRET = "hunter2-do-not-echo"


def wrong(value: object) -> Any:
    """An argument of the wrong type, as an untyped caller passes it."""
    return value


@pytest.fixture
def store(skillreel_home: Path) -> Any:
    with Store.open(skillreel_home) as opened:
        yield opened


def test_list_and_show_are_the_services_documents(store: Store) -> None:
    seed(store, "search-invoices", "approved")
    listed = sr.list_skills_sync(store=store)
    assert [s["name"] for s in listed["skills"]] == ["search-invoices"]
    assert listed["skills"][0]["status"] == "approved"
    assert set(listed) == {"skills", "store"}
    view = sr.show_sync("search-invoices", store=store)
    assert view["name"] == "search-invoices"
    assert view["status"] == "approved"
    assert view["current"] is True
    first = sr.show_sync("search-invoices", 1, store=store)
    assert first["revision"] == 1
    assert first["current"] is False


def test_a_call_without_a_store_opens_the_default_one(skillreel_home: Path) -> None:
    with sr.open_store() as store:
        seed(store, "search-invoices", "draft")
        assert store.home == skillreel_home
    assert [s["name"] for s in sr.list_skills_sync()["skills"]] == ["search-invoices"]


async def test_the_async_functions_return_the_same_documents(store: Store) -> None:
    seed(store, "search-invoices", "approved")
    listed = await sr.list_skills(store=store)
    assert listed["skills"][0]["name"] == "search-invoices"
    assert (await sr.show("search-invoices", store=store))["status"] == "approved"


def test_an_unknown_skill_is_the_verbs_refusal(store: Store) -> None:
    with pytest.raises(LifecycleError) as caught:
        sr.show_sync("no-such-skill", store=store)
    assert caught.value.code == "SR_RECORD_NOT_FOUND"
    with pytest.raises(sr.ReplayFailed) as failed:
        sr.replay_sync("no-such-skill", store=store)
    assert failed.value.code == "SR_RECORD_NOT_FOUND"
    assert isinstance(failed.value.error, LifecycleError)
    assert failed.value.result["runId"] is None
    assert failed.value.result["steps"] == []
    with pytest.raises(sr.ReplayFailed) as with_secrets:  # secrets= changes nothing of the refusal
        sr.replay_sync("no-such-skill", secrets={"pin": SECRET}, store=store)
    assert with_secrets.value.code == "SR_RECORD_NOT_FOUND"
    assert SECRET not in str(with_secrets.value)
    with pytest.raises(SkillreelError) as keyed:
        sr.replay_sync("no-such-skill", secrets=wrong({1: SECRET, "a": SECRET}), store=store)
    assert keyed.value.code == "SR_RECORD_API_USAGE"


def test_an_unapproved_skill_is_refused_and_nothing_runs(store: Store) -> None:
    seed(store, "search-invoices", "draft")
    with pytest.raises(sr.ReplayFailed) as caught:
        sr.replay_sync("search-invoices", {"query": "x"}, store=store)
    assert caught.value.code == "SR_REPLAY_NOT_APPROVED"
    assert isinstance(caught.value, SkillreelError)
    assert isinstance(caught.value.error, ReplayError)
    assert caught.value.exit_status == caught.value.error.exit_status
    assert caught.value.result["status"] == "failed"
    assert caught.value.result["runId"] is None
    assert store.run_count("search-invoices") == 0


def test_a_sensitive_input_is_refused_as_on_the_command_line(store: Store) -> None:
    seed(store, "search-invoices", "approved", sensitive=True)
    with pytest.raises(sr.ReplayFailed) as caught:
        sr.replay_sync("search-invoices", {"query": SECRET}, store=store)
    assert caught.value.code == "SR_REPLAY_SENSITIVE_ON_ARGV"
    assert SECRET not in str(caught.value)
    assert SECRET not in repr(caught.value.result)


def test_secrets_name_sensitive_parameters_only_and_are_never_echoed(store: Store) -> None:
    seed(store, "search-invoices", "approved")  # its parameter `query` is not sensitive
    with pytest.raises(SkillreelError) as caught:
        sr.replay_sync("search-invoices", secrets={"query": SECRET}, store=store)
    assert caught.value.code == "SR_RECORD_API_USAGE"
    assert "'query'" in caught.value.message
    assert SECRET not in str(caught.value)
    with pytest.raises(SkillreelError) as typo:
        sr.replay_sync("search-invoices", secrets={"qeury": SECRET}, store=store)
    assert typo.value.code == "SR_RECORD_API_USAGE"
    assert SECRET not in str(typo.value)
    assert store.run_count("search-invoices") == 0


def test_secrets_never_reach_a_refusal(store: Store) -> None:
    seed(store, "search-invoices", "draft", sensitive=True)
    with pytest.raises(sr.ReplayFailed) as unapproved:  # the approval is checked before the vault
        sr.replay_sync("search-invoices", secrets={"query": SECRET}, store=store)
    assert unapproved.value.code == "SR_REPLAY_NOT_APPROVED"
    assert SECRET not in str(unapproved.value)
    assert SECRET not in repr(unapproved.value.result)


@pytest.mark.parametrize(
    ("call", "named"),
    [
        (lambda s: sr.replay_sync("x", timeout_ms=10, store=s), "timeout_ms"),
        (lambda s: sr.replay_sync("x", settle_ms=-1, store=s), "settle_ms"),
        (lambda s: sr.replay_sync("x", expected_revision=0, store=s), "expected_revision"),
        (lambda s: sr.replay_sync("x", heal=wrong("no"), store=s), "heal"),
        (lambda s: sr.replay_sync("x", {"q": wrong([1])}, store=s), "inputs"),
        (lambda s: sr.replay_sync("x", artifacts_on="always", store=s), "artifacts"),
        (lambda s: sr.replay_sync("x", store=wrong("not a store")), "store"),
        (lambda s: sr.show_sync("x", 0, store=s), "revision"),
        (lambda s: sr.record_sync("x", automation=Path("a.json"), viewport=(0, 9), store=s), "width"),
        (lambda s: sr.record_sync("x", automation=Path("a.json"), sensitive="pin", store=s), "sensitive"),
        (lambda s: sr.replay_batch_sync("x", wrong(42), store=s), "rows"),
        (lambda s: sr.replay_batch_sync("x", "rows.csv", workers=99, store=s), "workers"),
        (lambda s: sr.replay_batch_sync("x", "rows.csv", resume=wrong(7), store=s), "resume"),
        (lambda s: sr.record_sync("x", automation=wrong(None), store=s), "automation"),
    ],
)
def test_bad_arguments_are_refused_before_anything_runs(store: Store, call: Any, named: str) -> None:
    with pytest.raises(SkillreelError) as caught:
        call(store)
    assert caught.value.code == "SR_RECORD_API_USAGE"
    assert named in caught.value.message
    assert caught.value.exit_status == 2


def test_a_verbs_own_option_check_still_applies(store: Store, tmp_path: Path) -> None:
    steps = tmp_path / "steps.json"
    steps.write_text('{"steps": []}')
    with pytest.raises(SkillreelError) as caught:
        sr.record_sync("x", automation=steps, html=tmp_path / "page.html", description="", store=store)
    assert caught.value.code == "SR_RECORD_USAGE"  # services.record_preflight's refusal, as the CLI's
    assert "description" in caught.value.message


async def test_a_sync_function_refuses_a_running_event_loop(store: Store) -> None:
    for call in (
        lambda: sr.list_skills_sync(store=store),
        lambda: sr.replay_sync("x", store=store),
        lambda: sr.record_sync("x", automation="a.json", store=store),
    ):
        with pytest.raises(SkillreelError) as caught:
            call()
        assert caught.value.code == "SR_RECORD_API_USAGE"
        assert "event loop" in caught.value.message
        assert "await skillreel.api." in caught.value.message
    assert asyncio.get_running_loop().is_running()  # and no coroutine was left un-awaited (warnings fail)


def test_the_sync_twins_are_named_and_documented_as_such() -> None:
    for name in ("list_skills", "show", "replay", "replay_batch", "record"):
        twin = getattr(sr, f"{name}_sync")
        assert twin.__name__ == f"{name}_sync"
        assert twin.__doc__ == getattr(sr, name).__doc__
        assert asyncio.iscoroutinefunction(getattr(sr, name))
        assert not asyncio.iscoroutinefunction(twin)
    assert set(sr.__all__) >= {"open_store", "ReplayFailed", "BatchFailed", "SkillreelWarning"}


def test_the_guide_names_every_public_name_of_the_api() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "guide.md").read_text(encoding="utf-8")
    section = guide.split("## Python API (`skillreel.api`)", 1)[1].split("\n## ", 1)[0]
    missing = [n for n in sr.__all__ if not any(f"{n}{end}" in section for end in ("`", "("))]
    assert not missing, f"docs/guide.md's Python API section does not name: {missing}"


def test_an_envelope_warning_becomes_a_skillreel_warning(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillreel.model.envelope import ResultWarning
    from skillreel.services import replaying
    from skillreel.services.runs import ReplayOutcome

    unrecorded = ResultWarning(code="SR_RECORD_RUN_UNRECORDED", message="the run's end was not recorded")

    async def ran_unrecorded(*args: Any, **kwargs: Any) -> ReplayOutcome:
        return ReplayOutcome("succeeded", "x", revision=2, warnings=(unrecorded,))

    monkeypatch.setattr(replaying, "replay_skill", ran_unrecorded)
    with pytest.warns(sr.SkillreelWarning, match="SR_RECORD_RUN_UNRECORDED: the run's end was not recorded"):
        result = sr.replay_sync("x", store=store)
    assert result["status"] == "succeeded"
