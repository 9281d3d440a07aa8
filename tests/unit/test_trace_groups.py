"""Each step's work as a group of the replay's trace (``replay.trace_groups``), over the FakeDriver:
titles hold the step id and a content-free intent, groups nest as loops and branches do and are
always closed, the failed step's group holds one titled with its code, and nothing is called
without a trace."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from skillreel.errors import SkillreelError
from skillreel.model.actions import Action, ClickAction, TypeAction
from skillreel.model.draft import Parameter
from skillreel.model.refs import ParameterRef
from skillreel.replay.engine import EngineOptions, ReplayEngine
from skillreel.replay.fake import FakeDriver, FakePage
from skillreel.replay.trace_groups import failed_title, step_title
from tests.support.clock import Clock
from tests.support.factory import SALT
from tests.support.fake_orders import START, approve_loop, el, orders_page, target

SECRET = "hunter2-correct-horse"


class Groups:
    """A trace that records its groups; ``refuse`` makes every open fail (as Playwright may)."""

    def __init__(self, *, refuse: bool = False) -> None:
        self.events: list[str] = []
        self.refuse = refuse

    async def open_group(self, title: str) -> bool:
        if self.refuse:
            return False
        self.events.append(f"+{title}")
        return True

    async def close_group(self) -> None:
        self.events.append("-")


def play(
    page: FakePage,
    actions: Sequence[Action],
    groups: Groups | None,
    values: dict[str, str] | None = None,
    **kw: object,
) -> tuple[ReplayEngine, SkillreelError | None]:
    driver = FakeDriver({page.url: page}, start_url=page.url)
    clock = Clock()
    options = EngineOptions(salt=SALT, timeout_ms=1000, settle_ms=0, hidden=tuple((values or {}).values()))
    engine = ReplayEngine(driver, options, clock=clock, sleep=clock.sleep, groups=groups)
    try:
        asyncio.run(engine.run(list(actions), values or {}, **kw))  # type: ignore[arg-type]
    except SkillreelError as exc:
        return engine, exc
    return engine, None


def nesting(events: Sequence[str]) -> list[tuple[int, str]]:
    """(depth, title) of every group opened; asserts every group is closed."""
    depth, out = 0, []
    for event in events:
        if event == "-":
            depth -= 1
            assert depth >= 0
        else:
            out.append((depth, event[1:]))
            depth += 1
    assert depth == 0, events
    return out


def test_groups_nest_as_loops_and_branches_do_and_the_failed_step_is_marked_with_its_code() -> None:
    page = orders_page(["1001", "1002"], statuses=["new", "approved"])
    gone = ClickAction(id="c9", target=target("#gone", tag="button"))
    groups = Groups()
    _, error = play(page, [START, approve_loop(), gone], groups)
    assert error is not None
    assert error.code == "SR_REPLAY_UI_TARGET_NOT_FOUND"
    shape = [
        (depth, title.split(" ")[0] + (" FAILED" if "FAILED" in title else ""))
        for depth, title in nesting(groups.events)
    ]
    assert shape == [
        (0, "a1"),
        (0, "l1"),
        (1, "x2"),
        (1, "b1"),  # item 1: not approved, so the branch clicks
        (2, "c2"),
        (1, "x2"),
        (1, "b1"),  # item 2: approved, nothing clicked
        (0, "c9"),
        (1, "c9 FAILED"),
    ]
    titles = [title for _, title in nesting(groups.events)]
    assert titles[3].startswith("b1 [item 1] ")
    assert titles[6].startswith("b1 [item 2] ")
    assert titles[4].startswith("c2 [item 1] click the button")
    assert titles[-1] == "c9 FAILED SR_REPLAY_UI_TARGET_NOT_FOUND"
    assert sum(1 for t in titles if "FAILED" in t) == 1  # the loop around a failed step is not marked


def test_a_typed_secret_never_enters_a_title() -> None:
    page = FakePage(START.url, [el("input", {"#pw"}, type_="password")])
    typed = TypeAction(
        id="a2", target=target("#pw", tag="input", type_="password"), value=ParameterRef(name="pw")
    )
    groups = Groups()
    _, error = play(
        page, [START, typed], groups, {"pw": SECRET}, parameters=(Parameter(name="pw", sensitive=True),)
    )
    assert error is None
    titles = [title for _, title in nesting(groups.events)]
    assert titles[1] == "a2 type the secret input `pw` (from the vault) into the password field `#pw`"
    assert not any(SECRET in event for event in groups.events)
    # a title that would hold a hidden value anyway (an id the page chose, say) is cut to id and kind
    assert step_title(typed, hidden=("#pw",)) == "a2 type"
    assert failed_title("a4", "SR_X") == "a4 FAILED SR_X"


@pytest.mark.parametrize("refuse", [False, True])
def test_a_trace_that_refuses_groups_changes_nothing(refuse: bool) -> None:
    page = orders_page(["1001"], statuses=["new"])
    groups = Groups(refuse=refuse)
    engine, error = play(page, [START, approve_loop()], groups)
    assert error is None
    assert [r.action_id for r in engine.completed] == ["a1", "x2", "c2", "b1", "l1"]
    if refuse:
        assert groups.events == []  # nothing opened, so nothing closed
    else:
        assert [title.split(" ")[0] for _, title in nesting(groups.events)] == ["a1", "l1", "x2", "b1", "c2"]


def test_without_a_trace_the_engine_calls_no_group() -> None:
    engine, error = play(orders_page(["1001"]), [START], None)
    assert error is None
    assert engine.groups is None
