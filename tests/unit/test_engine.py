"""The replay engine's step loop over the in-memory FakeDriver (no browser, no real waiting)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from skillreel.errors import ReplayUIError, SkillreelError
from skillreel.locate import heal
from skillreel.locate.similarity import compare, similarity
from skillreel.model.actions import (
    Action,
    AssertAction,
    ClickAction,
    HumanAction,
    NavigateAction,
    ObserveAction,
    PressAction,
    SelectAction,
    TypeAction,
)
from skillreel.model.addresses import refused_origin
from skillreel.model.locators import (
    Fingerprint,
    LocatorBundle,
    LocatorCandidate,
    merge_heal,
    structure_only,
    text_hash,
)
from skillreel.model.refs import ParameterRef
from skillreel.replay.engine import (
    EngineOptions,
    HumanRequest,
    ReplayEngine,
    Scope,
    StepProgress,
    url_matches,
)
from skillreel.replay.fake import FakeDriver, FakeElement, FakePage
from tests.support.clock import Clock
from tests.support.factory import SALT

URL = "https://app.test/form"
NEXT = "https://app.test/done"


def h(text: str) -> str:
    value = text_hash(SALT, text)
    assert value is not None
    return value


def fp(
    tag: str,
    *,
    type_: str | None = None,
    role: str | None = None,
    sib: tuple[int, int] = (0, 1),
    **attrs: str,
) -> Fingerprint:
    text = attrs.pop("text", None)
    label = attrs.pop("label", None)
    hashed = {k.replace("_", "-"): h(v) for k, v in attrs.items()}
    return Fingerprint(
        tag=tag,
        type=type_,
        role=role,
        attributes=hashed,
        parent_path=("form", "body", "html"),
        sibling_index=sib[0],
        sibling_count=sib[1],
        label_hash=h(label) if label else None,
        text_hash=h(text) if text else None,
    )


QUERY = fp("input", type_="text", role="textbox", id="q", name="q", label="Search", sib=(0, 1))
COLOUR = fp("select", role="combobox", id="colour", name="colour", label="Colour")
GO = fp("button", type_="submit", role="button", id="go", text="Go", sib=(0, 2))
RESET = fp("button", type_="submit", role="button", id="reset", text="Reset", sib=(1, 2))
RESULT = fp("p", id="result", text="3 results")


def bundle(f: Fingerprint, selector: str) -> LocatorBundle:
    return LocatorBundle(
        candidates=(LocatorCandidate(strategy="id", selector=selector, match_count=1),), fingerprint=f
    )


def page() -> FakePage:
    return FakePage(
        URL,
        [
            FakeElement(QUERY, {"#q"}),
            FakeElement(COLOUR, {"#colour"}, options=("red", "green")),
            FakeElement(GO, {"#go"}),
            FakeElement(RESET, {"#reset"}),
            FakeElement(RESULT, {"#result"}, text="3 results"),
        ],
    )


def engine(driver: FakeDriver, clock: Clock, **kw: Any) -> ReplayEngine:
    options = EngineOptions(
        salt=SALT,
        allow_heal=kw.pop("allow_heal", True),
        timeout_ms=kw.pop("timeout_ms", 1000),
        settle_ms=kw.pop("settle_ms", 50),
        hidden=kw.pop("hidden", ()),
    )
    return ReplayEngine(driver, options, clock=clock, sleep=clock.sleep, **kw)


def start() -> NavigateAction:
    return NavigateAction(id="a1", url=URL)


def driver_for(*pages: FakePage) -> FakeDriver:
    return FakeDriver({p.url: p for p in pages}, start_url=pages[0].url)


async def test_every_action_kind_runs_with_new_inputs_and_leaves_evidence() -> None:
    p = page()
    driver = driver_for(p, FakePage(NEXT, []))
    actions: list[Action] = [
        start(),
        TypeAction(id="a2", target=bundle(QUERY, "#q"), value=ParameterRef(name="query")),
        SelectAction(id="a3", target=bundle(COLOUR, "#colour"), value=ParameterRef(name="colour")),
        PressAction(id="a4", key="Enter", target=bundle(QUERY, "#q")),
        PressAction(id="a5", key="Tab"),
        ObserveAction(id="a6", target=bundle(RESULT, "#result")),
        AssertAction(id="a7", check="text_contains", target=bundle(RESULT, "#result"), expected="results"),
        AssertAction(id="a8", check="url_matches", expected="/form"),
        AssertAction(id="a9", check="count", target=bundle(GO, "#go"), expected=1),
        ClickAction(id="a10", target=bundle(GO, "#go")),
        NavigateAction(id="a11", url=NEXT, reason="address-bar"),
        NavigateAction(id="a12", url=NEXT, reason="reload"),
    ]
    records = await engine(driver, Clock()).run(actions, {"query": "second query", "colour": "green"})
    assert p.elements[0].value == "second query"
    assert p.elements[1].value == "green"
    assert p.elements[2].clicks == 1
    assert [a for a, _ in driver.actions] == [
        "start",
        "fill",
        "select",
        "press",
        "press",
        "click",
        "goto",
        "reload",
    ]
    facts = {r.action_id: set(r.evidence.facts) for r in records}
    assert facts == {
        "a1": {"url"},
        "a2": {"target", "valueCheck", "afterState"},
        "a3": {"target", "selectedCheck", "afterState"},
        "a4": {"target", "afterState"},
        "a5": {"afterState"},
        "a6": {"target", "before", "after", "page", "screenshot"},
        "a7": {"target", "check"},
        "a8": {"check"},
        "a9": {"check"},
        "a10": {"target", "afterState"},
        "a11": {"url"},
        "a12": {"url"},
    }
    assert not any(r.healed for r in records)
    dumped = json.dumps([r.evidence.to_json() for r in records])
    for secret in ("second query", "green", "#q", "app.test", "results"):
        assert secret not in dumped


async def test_a_skill_not_starting_with_navigation_loads_the_start_page_first() -> None:
    driver = driver_for(page())
    await engine(driver, Clock()).run([ClickAction(id="a1", target=bundle(GO, "#go"))], {})
    assert driver.actions == [("start", None), ("click", 2)]


async def test_healed_step_is_confirmed_marked_and_proposes_fresh_locators() -> None:
    p = page()
    renamed = fp("button", type_="submit", role="button", id="submit", text="Go", sib=(0, 2))
    fresh = (LocatorCandidate(strategy="id", selector="#submit", match_count=1),)
    p.elements[2] = FakeElement(renamed, {"#submit"}, candidates=fresh)
    driver = driver_for(p)
    clock = Clock()
    records = await engine(driver, clock).run([start(), ClickAction(id="a2", target=bundle(GO, "#go"))], {})
    assert records[1].healed
    assert records[1].evidence.healed
    assert records[1].healed_bundle is not None
    assert records[1].healed_bundle.candidates == fresh
    assert records[1].healed_bundle.fingerprint == renamed
    assert driver.actions[-1] == ("click", 2)
    assert clock.sleeps == [0.1]  # one confirmation probe before acting


async def test_a_healed_element_whose_text_holds_a_sensitive_input_proposes_its_structure_only() -> None:
    """Its fresh candidates and fingerprint would carry salted hashes of a text holding the secret
    (a button named "Approve <password>"): the step heals and acts, and proposes nothing taken from
    text (a hash cannot be searched for what it holds)."""
    p = page()
    renamed = fp("button", type_="submit", role="button", id="submit", text="Go", sib=(0, 2))
    fresh = (LocatorCandidate(strategy="id", selector="#submit", match_count=1),)
    p.elements[2] = FakeElement(renamed, {"#submit"}, candidates=fresh, text="Go Secret-Pw-77")
    records = await engine(driver_for(p), Clock(), hidden=("secret-pw-77",)).run(
        [start(), ClickAction(id="a2", target=bundle(GO, "#go"))], {}
    )
    healed = records[1].healed_bundle
    assert records[1].healed
    assert healed is not None  # the structure only: no candidate or hash taken from text
    assert healed.candidates == fresh
    assert healed.fingerprint == structure_only(renamed)
    again = await engine(driver_for(p), Clock(), hidden=("another-value",)).run(
        [start(), ClickAction(id="a2", target=bundle(GO, "#go"))], {}
    )
    assert again[1].healed_bundle is not None
    assert again[1].healed_bundle.fingerprint == renamed  # a text holding no hidden value: all of it


async def test_healing_off_fails_closed_after_the_deadline() -> None:
    p = page()
    p.elements[2] = FakeElement(
        fp("button", type_="submit", role="button", id="submit", text="Go", sib=(0, 2))
    )
    driver = driver_for(p)
    clock = Clock()
    with pytest.raises(ReplayUIError) as info:
        await engine(driver, clock, allow_heal=False).run(
            [start(), ClickAction(id="a2", target=bundle(GO, "#go"))], {}
        )
    assert info.value.code == "SR_REPLAY_UI_TARGET_NOT_FOUND"
    assert info.value.action_id == "a2"
    assert "#go" not in info.value.message
    assert clock.now >= 1.0
    assert ("click", 2) not in driver.actions


async def test_removed_target_is_not_found_and_nothing_is_clicked() -> None:
    p = page()
    del p.elements[2]
    driver = driver_for(p)
    with pytest.raises(ReplayUIError) as info:
        await engine(driver, Clock()).run([start(), ClickAction(id="a2", target=bundle(GO, "#go"))], {})
    assert info.value.code == "SR_REPLAY_UI_TARGET_NOT_FOUND"
    assert all(e.clicks == 0 for e in p.elements)


async def test_two_identical_candidates_are_ambiguous_and_nothing_is_clicked() -> None:
    p = page()
    twin = fp("button", type_="submit", role="button", id="go", text="Go", sib=(0, 3))
    p.elements[2:4] = [FakeElement(twin, {"#go"}), FakeElement(twin, {"#go"}), FakeElement(RESET)]
    driver = driver_for(p)
    with pytest.raises(ReplayUIError) as info:
        await engine(driver, Clock()).run([start(), ClickAction(id="a2", target=bundle(GO, "#go"))], {})
    assert info.value.code == "SR_REPLAY_UI_TARGET_AMBIGUOUS"
    assert all(e.clicks == 0 for e in p.elements)


async def test_a_target_that_appears_later_is_waited_for() -> None:
    p = page()
    go = p.elements.pop(2)
    driver = driver_for(p)
    clock = Clock()
    original = driver.probe

    async def probe(bundle: LocatorBundle, *, salt: str, within: Scope | None = None) -> Any:
        if clock.now >= 0.2 and go not in p.elements:
            p.elements.append(go)
        return await original(bundle, salt=salt, within=within)

    driver.probe = probe  # type: ignore[method-assign]  # wraps the fake page's probe
    await engine(driver, clock).run([start(), ClickAction(id="a2", target=bundle(GO, "#go"))], {})
    assert go.clicks == 1


async def test_refused_request_during_a_step_fails_it_counting_origins_without_naming_them() -> None:
    def deny_twice(driver: FakeDriver) -> None:
        driver.deny("https://evil.test")
        driver.deny("https://evil.test")

    p = page()
    p.elements[2].on_click = deny_twice
    driver = driver_for(p)
    with pytest.raises(ReplayUIError) as info:
        await engine(driver, Clock()).run(
            [
                start(),
                ClickAction(id="a2", target=bundle(GO, "#go")),
                ClickAction(id="a3", target=bundle(RESET, "#reset")),
            ],
            {},
        )
    assert info.value.code == "SR_REPLAY_UI_NETWORK_DENIED"
    assert info.value.action_id == "a2"
    assert info.value.details == {"deniedOriginCount": 1}
    assert "evil" not in info.value.message  # a page chooses host names: they could carry a secret
    assert p.elements[3].clicks == 0


async def test_a_name_refused_for_its_address_fails_the_step_with_its_own_code() -> None:
    """DNS rebinding (issue 30.7): the proxy refused an allowlisted name for the local address it
    resolved to; the step fails with the address code, naming no origin."""

    def rebound(d: FakeDriver) -> None:
        d.deny(refused_origin("https://bank.example:443"))
        d.deny("https://evil.test")

    p = page()
    p.elements[2].on_click = rebound
    with pytest.raises(ReplayUIError) as info:
        await engine(driver_for(p), Clock()).run(
            [start(), ClickAction(id="a2", target=bundle(GO, "#go"))], {}
        )
    assert (info.value.code, info.value.action_id) == ("SR_REPLAY_UI_NETWORK_ADDRESS_REFUSED", "a2")
    assert info.value.details == {"deniedOriginCount": 2}
    assert "bank" not in info.value.message


async def test_network_refusal_takes_precedence_over_the_action_error_it_caused() -> None:
    p = page()
    driver = driver_for(p)

    def fail(d: FakeDriver) -> None:
        d.deny("https://evil.test")
        d.fail_next = ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "navigation failed")

    p.elements[2].on_click = fail
    actions: list[Action] = [
        start(),
        ClickAction(id="a2", target=bundle(GO, "#go")),
        NavigateAction(id="a3", url=NEXT, reason="address-bar"),
    ]
    with pytest.raises(ReplayUIError) as info:
        await engine(driver, Clock()).run(actions, {})
    assert (info.value.code, info.value.action_id) == ("SR_REPLAY_UI_NETWORK_DENIED", "a2")


async def test_browser_crash_surfaces_with_the_action_id() -> None:
    driver = driver_for(page())
    driver.fail_next = None
    p = driver.pages[URL]
    crash = ReplayUIError("SR_REPLAY_UI_BROWSER_CRASHED", "gone")
    p.elements[2].on_click = lambda d: setattr(d, "fail_next", crash)
    actions: list[Action] = [
        start(),
        ClickAction(id="a2", target=bundle(GO, "#go")),
        ClickAction(id="a3", target=bundle(GO, "#go")),
    ]
    with pytest.raises(SkillreelError) as info:
        await engine(driver, Clock()).run(actions, {})
    assert (info.value.code, info.value.action_id) == ("SR_REPLAY_UI_BROWSER_CRASHED", "a3")


async def test_type_is_verified() -> None:
    p = page()
    p.elements[0].transform = str.upper
    driver = driver_for(p)
    with pytest.raises(ReplayUIError) as info:
        await engine(driver, Clock()).run(
            [start(), TypeAction(id="a2", target=bundle(QUERY, "#q"), value=ParameterRef(name="query"))],
            {"query": "abc"},
        )
    assert info.value.code == "SR_REPLAY_UI_ACTION_FAILED"
    assert "abc" not in info.value.message


async def test_select_needs_an_option_with_the_value() -> None:
    driver = driver_for(page())
    with pytest.raises(ReplayUIError) as info:
        await engine(driver, Clock()).run(
            [
                start(),
                SelectAction(id="a2", target=bundle(COLOUR, "#colour"), value=ParameterRef(name="colour")),
            ],
            {"colour": "purple"},
        )
    assert info.value.code == "SR_REPLAY_UI_ACTION_FAILED"


async def test_optional_input_absent_skips_the_step() -> None:
    p = page()
    records = await engine(driver_for(p), Clock()).run(
        [start(), TypeAction(id="a2", target=bundle(QUERY, "#q"), value=ParameterRef(name="query"))], {}
    )
    assert set(records[1].evidence.facts) == {"skipped"}
    assert p.elements[0].value == ""


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (
            AssertAction(
                id="a2", check="text_equals", target=bundle(RESULT, "#result"), expected="4 results"
            ),
            "SR_REPLAY_UI_ASSERTION_FAILED",
        ),
        (AssertAction(id="a2", check="url_matches", expected="/elsewhere"), "SR_REPLAY_UI_ASSERTION_FAILED"),
        (
            AssertAction(id="a2", check="count", target=bundle(GO, "#go"), expected=2),
            "SR_REPLAY_UI_ASSERTION_FAILED",
        ),
        (
            AssertAction(id="a2", check="value_equals", target=bundle(QUERY, "#q"), expected="x"),
            "SR_REPLAY_UI_ASSERTION_FAILED",
        ),
    ],
)
async def test_failing_assertions_poll_then_fail(action: AssertAction, code: str) -> None:
    clock = Clock()
    with pytest.raises(ReplayUIError) as info:
        await engine(driver_for(page()), clock).run([start(), action], {})
    assert (info.value.code, info.value.action_id) == (code, "a2")
    assert clock.now >= 1.0
    assert len(clock.sleeps) > 3


async def test_human_step_needs_a_person() -> None:
    actions: list[Action] = [start(), HumanAction(id="a2", reason="upload")]
    with pytest.raises(SkillreelError) as info:
        await engine(driver_for(page()), Clock()).run(actions, {})
    assert (info.value.code, info.value.action_id) == ("SR_REPLAY_HUMAN_REQUIRED", "a2")

    asked: list[HumanRequest] = []

    async def yes(request: HumanRequest) -> bool:
        asked.append(request)
        return True

    records = await engine(driver_for(page()), Clock(), human=yes).run(actions, {})
    assert asked == [HumanRequest(1, 2, "a2", "upload")]
    assert set(records[1].evidence.facts) == {"human", "afterState"}

    async def no(request: HumanRequest) -> bool:
        return False

    with pytest.raises(SkillreelError) as info:
        await engine(driver_for(page()), Clock(), human=no).run(actions, {})
    assert info.value.code == "SR_REPLAY_HUMAN_REQUIRED"


async def test_progress_reports_each_step() -> None:
    seen: list[StepProgress] = []
    p = page()
    del p.elements[3]
    actions: list[Action] = [
        start(),
        ClickAction(id="a2", target=bundle(GO, "#go")),
        ClickAction(id="a3", target=bundle(RESET, "#reset")),
    ]
    replay = engine(driver_for(p), Clock(), progress=seen.append)
    with pytest.raises(SkillreelError):
        await replay.run(actions, {})
    assert [(s.action_id, s.phase) for s in seen] == [
        ("a1", "start"),
        ("a1", "done"),
        ("a2", "start"),
        ("a2", "done"),
        ("a3", "start"),
        ("a3", "failed"),
    ]
    assert seen[-1].code == "SR_REPLAY_UI_TARGET_NOT_FOUND"
    assert [r.action_id for r in replay.completed] == ["a1", "a2"]  # what ran before the failure
    assert all(r.evidence.evidence_digest.startswith("sha256:") for r in replay.completed)


async def test_settle_runs_after_each_acting_step() -> None:
    driver = driver_for(page())
    actions: list[Action] = [start(), ClickAction(id="a2", target=bundle(GO, "#go"))]
    await engine(driver, Clock(), settle_ms=70).run(actions, {})
    assert driver.settled == [70, 70]


@pytest.mark.parametrize(
    ("url", "expected", "ok"),
    [
        ("https://app.test/form?x=1", "https://app.test/form?x=1", True),
        ("https://app.test/form?x=1", "/form?x=1", True),
        ("https://app.test/form?x=1", "/form", False),
        ("https://app.test/form?x=1", "/form*", True),
        ("https://app.test/a/b", "https://app.test/*/b", True),
        ("https://app.test/a?token=abc", "/a", True),
        ("about:blank", "/a", False),
        ("https://app.test/a", 3, False),
        ("https://app.test/[a]", "/[a]", True),
    ],
)
def test_url_matches(url: str, expected: Any, ok: bool) -> None:
    assert url_matches(url, expected) is ok


# ---- accepted identities (an adopted heal keeps the fingerprint it replaced) --------------------

PERSIST = fp(
    "button", type_="submit", role="button", id="persist", data_testid="keep", text="Store", sib=(0, 2)
)


def merged() -> LocatorBundle:
    """Go's bundle after a heal to the redesigned "Store" button was adopted."""
    return merge_heal(bundle(GO, "#go"), bundle(PERSIST, "#persist"))


def with_save_button(element: FakeElement, *others: FakeElement) -> FakePage:
    return FakePage(URL, [FakeElement(QUERY, {"#q"}), element, *others])


@pytest.mark.parametrize(
    ("element", "index"),
    [(FakeElement(GO, {"#go"}), 1), (FakeElement(PERSIST, {"#persist"}), 1)],
    ids=["old-page", "new-page"],
)
async def test_a_merged_bundle_finds_both_page_versions_without_healing(
    element: FakeElement, index: int
) -> None:
    assert similarity(PERSIST, compare(PERSIST, GO)) < heal.EXACT_MIN  # the premise
    driver = driver_for(with_save_button(element))
    records = await engine(driver, Clock()).run([start(), ClickAction(id="a2", target=merged())], {})
    assert not records[1].healed
    assert driver.actions[-1] == ("click", index)


async def test_a_merged_bundle_heals_against_its_newest_fingerprint_only_when_no_identity_is_found() -> None:
    moved = fp(
        "button", type_="submit", role="button", id="persist-2", data_testid="keep", text="Store", sib=(0, 2)
    )
    fresh = (LocatorCandidate(strategy="id", selector="#persist-2", match_count=1),)
    driver = driver_for(with_save_button(FakeElement(moved, {"#persist-2"}, candidates=fresh)))
    records = await engine(driver, Clock()).run([start(), ClickAction(id="a2", target=merged())], {})
    assert records[1].healed
    assert driver.actions[-1] == ("click", 1)
    assert records[1].healed_bundle is not None
    assert records[1].healed_bundle.fingerprint == moved
    clock = Clock()
    driver = driver_for(with_save_button(FakeElement(moved, {"#persist-2"})))
    with pytest.raises(ReplayUIError) as info:
        await engine(driver, clock, allow_heal=False).run(
            [start(), ClickAction(id="a2", target=merged())], {}
        )
    assert info.value.code == "SR_REPLAY_UI_TARGET_NOT_FOUND"
    assert ("click", 1) not in driver.actions


async def test_an_ambiguous_older_identity_stops_the_step() -> None:
    """The old locator finds one button, but an identical one stands beside it: nothing is clicked."""
    twin = fp("button", type_="submit", role="button", id="go", text="Go", sib=(0, 3))
    p = with_save_button(FakeElement(twin, {"#go"}), FakeElement(twin), FakeElement(RESET))
    driver = driver_for(p)
    with pytest.raises(ReplayUIError) as info:
        await engine(driver, Clock()).run([start(), ClickAction(id="a2", target=merged())], {})
    assert info.value.code == "SR_REPLAY_UI_TARGET_AMBIGUOUS"
    assert all(e.clicks == 0 for e in p.elements)


async def test_a_replay_drains_once_when_it_ends_and_not_after_a_failure() -> None:
    """The driver measures once more at the end (a navigation as the last step is not measured
    otherwise): what the last action started is known and waited for before the context closes."""
    driver = driver_for(page())
    actions: list[Action] = [start(), ClickAction(id="a2", target=bundle(GO, "#go"))]
    await engine(driver, Clock()).run(actions, {})
    assert driver.drained == 1
    p = page()
    del p.elements[3]  # the reset button: a3 fails
    failing = driver_for(p)
    with pytest.raises(SkillreelError):
        await engine(failing, Clock()).run(
            [*actions, ClickAction(id="a3", target=bundle(RESET, "#reset"))], {}
        )
    assert failing.drained == 0


# ---- a target the page replaced before the action reached it -----------------------------------


async def test_a_click_the_guard_refused_is_located_again_and_made_once() -> None:
    """The guard refused the press (the page covered the element under the pointer): the call
    that settles after the click says so (TargetCovered), nothing was clicked, and the step locates
    its target again and clicks it."""
    p = page()
    p.elements[2].covered = 2
    p.elements[2].on_click = lambda d: d.show(NEXT)
    driver = driver_for(p, FakePage(NEXT, []))
    actions: list[Action] = [start(), ClickAction(id="a4", target=bundle(GO, "#go"))]

    await engine(driver, Clock()).run(actions, {})

    assert driver.actions[1:] == [("covered", 2), ("covered", 2), ("click", 2)]
    assert p.elements[2].clicks == 1


async def test_a_click_refused_every_time_fails_closed_with_nothing_clicked() -> None:
    p = page()
    p.elements[2].covered = 100
    driver = driver_for(p)
    actions: list[Action] = [start(), ClickAction(id="a4", target=bundle(GO, "#go"))]

    with pytest.raises(ReplayUIError) as caught:
        await engine(driver, Clock()).run(actions, {})

    assert caught.value.code == "SR_REPLAY_UI_TARGET_COVERED"
    assert p.elements[2].clicks == 0
    assert driver.actions[1:] == [("covered", 2)] * 6


async def test_a_target_replaced_before_the_action_is_located_again_and_acted_on_once() -> None:
    """The driver says the element left the page before any input reached it (TargetReplaced):
    nothing was done, so the step locates its target again and acts on what it finds then."""
    p = page()
    for index in (0, 1, 2):
        p.elements[index].replaced = 2
    p.elements[2].on_click = lambda d: d.show(NEXT)
    driver = driver_for(p, FakePage(NEXT, []))
    actions: list[Action] = [
        start(),
        TypeAction(id="a2", target=bundle(QUERY, "#q"), value=ParameterRef(name="query")),
        SelectAction(id="a3", target=bundle(COLOUR, "#colour"), value=ParameterRef(name="colour")),
        ClickAction(id="a4", target=bundle(GO, "#go")),
    ]

    records = await engine(driver, Clock()).run(actions, {"query": "abc", "colour": "green"})

    replaced = [("replaced", 0)] * 2 + [("fill", 0)] + [("replaced", 1)] * 2 + [("select", 1)]
    assert driver.actions[1:] == [*replaced, ("replaced", 2), ("replaced", 2), ("click", 2)]
    assert (p.elements[0].value, p.elements[1].value, p.elements[2].clicks) == ("abc", "green", 1)
    assert [r.action_id for r in records] == ["a1", "a2", "a3", "a4"]
    assert all(r.acted for r in records[1:])


async def test_a_target_the_page_keeps_replacing_fails_the_step_with_nothing_done() -> None:
    from skillreel.replay.engine import MAX_REPLACED

    p = page()
    p.elements[2].replaced = MAX_REPLACED + 1
    driver = driver_for(p)
    eng = engine(driver, Clock())

    with pytest.raises(ReplayUIError) as info:
        await eng.run([start(), ClickAction(id="a2", target=bundle(GO, "#go"))], {})

    assert (info.value.code, info.value.action_id) == ("SR_REPLAY_UI_TARGET_REPLACED", "a2")
    assert driver.actions[1:] == [("replaced", 2)] * (MAX_REPLACED + 1)
    assert p.elements[2].clicks == 0
    assert eng.failed is not None
    assert eng.failed.acted is False  # nothing reached the page: no side effect to report


async def test_a_key_press_on_a_replaced_target_is_located_again() -> None:
    p = page()
    p.elements[0].replaced = 1
    driver = driver_for(p)
    await engine(driver, Clock()).run(
        [start(), PressAction(id="a2", key="Enter", target=bundle(QUERY, "#q"))], {}
    )
    assert driver.actions[1:] == [("replaced", 0), ("press", 0)]


@pytest.mark.parametrize(("transform", "holds"), [(None, True), (str.upper, False)])
async def test_a_field_the_page_swaps_after_the_input_is_checked_where_it_is_found_again(
    transform: Any, holds: bool
) -> None:
    """The node typed into left the page once the input reached it (a form re-rendered from the
    server's answer): the field found again, exactly as recorded, must hold the input."""
    p = page()
    p.elements[0].swapped = True
    p.elements[0].transform = transform
    driver = driver_for(p)
    run = engine(driver, Clock()).run(
        [start(), TypeAction(id="a2", target=bundle(QUERY, "#q"), value=ParameterRef(name="query"))],
        {"query": "abc"},
    )
    if holds:
        records = await run
        assert set(records[1].evidence.facts) == {"target", "valueCheck", "afterState"}
    else:
        with pytest.raises(ReplayUIError) as info:
            await run
        assert info.value.code == "SR_REPLAY_UI_ACTION_FAILED"
    assert [a for a, _ in driver.actions] == ["start", "fill"]
