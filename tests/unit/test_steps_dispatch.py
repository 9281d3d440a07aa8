"""The step handlers' table (``replay/steps/``) and the one poll loop assertions and waits share
(``replay/steps/checking.py``), without a page: a fake that serves only what each test needs."""

from __future__ import annotations

import typing
from typing import Any, cast

import pytest

from skillreel.errors import ReplayUIError
from skillreel.model.actions import Action, AssertAction, ClickAction, NavigateAction
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate
from skillreel.replay import steps
from skillreel.replay.driving import Driver, EngineOptions, Frame, SkipRest, StepProgress, StepState
from skillreel.replay.engine import ReplayEngine
from skillreel.replay.fake import FakeDriver, FakePage
from skillreel.replay.resolving import POLL_FIRST_S, POLL_MAX_S, Resolver
from skillreel.replay.steps import acting, checking, choosing, data, page, pointer, popups
from skillreel.replay.steps.checking import poll_check
from skillreel.replay.steps.context import Inputs, RunContext, StepContext
from tests.support.clock import Clock
from tests.support.factory import SALT

FAMILIES = (acting, checking, choosing, data, page, pointer, popups)
URL = "https://app.test/"


def model_kinds() -> set[str]:
    union = typing.get_args(Action)[0]
    return {cls.model_fields["kind"].default for cls in typing.get_args(union)}


# ---- the table --------------------------------------------------------------------------------------


def test_every_step_kind_of_the_model_has_exactly_one_handler() -> None:
    kinds = model_kinds()
    assert len(kinds) == 20  # the fifteen of issue 12; hover, upload, page, download (32); while (33)
    assert set(steps.HANDLERS) == kinds
    claimed = [kind for family in FAMILIES for kind in family.HANDLERS]
    assert sorted(claimed) == sorted(kinds)  # no kind in two families, none missing
    for kind in kinds:
        assert steps.handler_for(kind) is steps.HANDLERS[kind]


def test_an_unknown_kind_is_a_defect_not_a_skipped_step() -> None:
    with pytest.raises(steps.UnknownStepKind, match="teleport"):
        steps.handler_for("teleport")


async def test_the_engine_stops_at_a_kind_without_a_handler(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = {kind: handler for kind, handler in steps.HANDLERS.items() if kind != "click"}
    monkeypatch.setattr(steps, "HANDLERS", missing)
    told: list[StepProgress] = []
    driver = FakeDriver({URL: FakePage(URL)}, start_url=URL)
    engine = ReplayEngine(driver, EngineOptions(salt=SALT), progress=told.append)
    target = LocatorBundle(
        candidates=(LocatorCandidate(strategy="id", selector="#go", match_count=1),),
        fingerprint=Fingerprint(tag="button"),
    )
    with pytest.raises(steps.UnknownStepKind):
        await engine.run(
            [
                NavigateAction(id="a1", url=URL, reason="start"),
                ClickAction(id="a2", target=target),
            ],
            {},
        )
    assert [(p.action_id, p.phase) for p in told] == [("a1", "start"), ("a1", "done"), ("a2", "start")]
    assert [r.action_id for r in engine.completed] == ["a1"]  # a2 was neither done nor skipped


# ---- the poll loop ----------------------------------------------------------------------------------


class Releases:
    """The one driver call the poll loop makes itself."""

    def __init__(self) -> None:
        self.count = 0

    async def release(self) -> None:
        self.count += 1


def context(clock: Clock, deadline: float, driver: Any = None) -> StepContext:
    driver = cast(Driver, driver or Releases())
    options = EngineOptions(salt=SALT)

    async def no_blocks(block: tuple[Action, ...], frame: Frame, then: Any) -> None:
        raise AssertionError("no block runs here")

    run = RunContext(
        driver, options, Resolver(driver, options, clock=clock, sleep=clock.sleep), Inputs(), {},
        clock, clock.sleep, no_blocks,
    )  # fmt: skip
    action = AssertAction(id="c1", check="url_matches", expected="https://app.test/")
    return StepContext(run, StepState(action, deadline))


def answers(*held: bool) -> typing.Callable[[], typing.Awaitable[bool]]:
    pending = list(held)

    async def holds() -> bool:
        return pending.pop(0)

    return holds


async def failure() -> ReplayUIError:
    return ReplayUIError("SR_REPLAY_UI_ASSERTION_FAILED", "did not hold", action_id="c1")


async def test_the_poll_loop_backs_off_between_tries_and_releases_each_miss() -> None:
    clock = Clock()
    ctx = context(clock, deadline=10.0)
    await poll_check(ctx, answers(False, False, False, False, False, True), on_fail="fail", failure=failure)
    assert clock.sleeps == [POLL_FIRST_S, POLL_FIRST_S * 2, POLL_FIRST_S * 4, POLL_MAX_S, POLL_MAX_S]
    assert cast(Releases, ctx.driver).count == 5
    assert ctx.step.facts == {}


async def test_the_poll_loop_holding_at_once_neither_sleeps_nor_releases() -> None:
    clock = Clock()
    ctx = context(clock, deadline=10.0)
    await poll_check(ctx, answers(True), on_fail="fail", failure=failure)
    assert clock.sleeps == []
    assert cast(Releases, ctx.driver).count == 0


async def test_the_poll_loop_fails_at_the_deadline() -> None:
    clock = Clock()
    ctx = context(clock, deadline=0.2)
    with pytest.raises(ReplayUIError) as info:
        await poll_check(ctx, answers(*[False] * 10), on_fail="fail", failure=failure)
    assert info.value.code == "SR_REPLAY_UI_ASSERTION_FAILED"
    assert clock.sleeps == [POLL_FIRST_S, POLL_FIRST_S * 2, POLL_FIRST_S * 4]  # 0.35 s >= 0.2 s
    assert "skippedRest" not in ctx.step.facts


async def test_the_poll_loop_skips_the_rest_at_the_deadline_with_on_fail_skip() -> None:
    clock = Clock()
    ctx = context(clock, deadline=0.0)
    with pytest.raises(SkipRest):
        await poll_check(ctx, answers(False), on_fail="skip", failure=failure)
    assert set(ctx.step.facts) == {"skippedRest"}
    assert clock.sleeps == []


async def test_the_poll_loop_reads_a_deadline_a_try_moved() -> None:
    clock = Clock()
    ctx = context(clock, deadline=10.0)

    async def gives_up() -> bool:  # e.g. an assertion whose target is gone, with onFail skip
        ctx.step.deadline = clock()
        return False

    with pytest.raises(SkipRest):
        await poll_check(ctx, gives_up, on_fail="skip", failure=failure)
    assert clock.sleeps == []
