"""The replay engine on schema v2 graphs, over the in-memory FakeDriver (no browser, no waiting):
targets chosen by an input, extraction, loops, branches, optional steps, skips, waits, scrolling,
dialogs and the data flow between steps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from skillreel.errors import SkillreelError
from skillreel.errors.codes import CODES
from skillreel.model.actions import (
    Action,
    AssertAction,
    BranchAction,
    ClickAction,
    DialogAction,
    ExtractAction,
    LoopAction,
    ScrollAction,
    SelectAction,
    TypeAction,
    WaitAction,
)
from skillreel.model.conditions import PresentCondition
from skillreel.model.draft import Parameter
from skillreel.model.locators import ElementSet, Fingerprint, LocatorBundle, LocatorCandidate
from skillreel.model.reads import FieldSpec
from skillreel.model.refs import LiteralValue, OutputRef, ParameterRef, TextFilter
from skillreel.replay import engine as engine_module
from skillreel.replay.engine import EngineOptions, ItemAhead, ReplayEngine, StepProgress
from skillreel.replay.fake import FakeDriver, FakePage
from skillreel.replay.steps import data as data_module
from tests.support.clock import Clock
from tests.support.factory import SALT, element_set
from tests.support.fake_orders import START, URL, approve_loop, el, fp, orders_page, target


def run(
    page: FakePage, actions: Sequence[Action], values: dict[str, str] | None = None, **kw: Any
) -> tuple[ReplayEngine, FakeDriver]:
    driver = FakeDriver({page.url: page}, start_url=page.url)
    clock = Clock()
    progress: list[StepProgress] = kw.pop("progress", [])
    engine = ReplayEngine(
        driver,
        EngineOptions(salt=SALT, timeout_ms=kw.pop("timeout_ms", 1000), settle_ms=0),
        clock=clock,
        sleep=clock.sleep,
        progress=progress.append,
    )
    import asyncio

    asyncio.run(engine.run(list(actions), values or {}, **kw))
    return engine, driver


def failure(
    page: FakePage, actions: Sequence[Action], values: dict[str, str] | None = None, **kw: Any
) -> tuple[SkillreelError, FakeDriver]:
    driver = FakeDriver({page.url: page}, start_url=page.url)
    clock = Clock()
    engine = ReplayEngine(
        driver, EngineOptions(salt=SALT, timeout_ms=1000, settle_ms=0), clock=clock, sleep=clock.sleep
    )
    import asyncio

    with pytest.raises(SkillreelError) as err:
        asyncio.run(engine.run(list(actions), values or {}, **kw))
    return err.value, driver


def clicked(driver: FakeDriver) -> list[int | None]:
    return [e for name, e in driver.actions if name == "click"]


NUMBERS = [str(1000 + i) for i in range(20)]
OPEN = ClickAction(id="c1", target=target("a.open", tag="a", token=ParameterRef(name="q"), count=20))


# ---- targets chosen by an input -----------------------------------------------------------------


@pytest.mark.parametrize("q", ["1003", "1007", "1019"])
def test_the_row_holding_the_input_is_clicked(q: str) -> None:
    page = orders_page(NUMBERS)
    _, driver = run(page, [START, OPEN], {"q": q})
    [index] = clicked(driver)
    assert index is not None
    assert page.elements[index].text == f"Order {q}"


@pytest.mark.parametrize(
    ("numbers", "q", "code"),
    [
        (NUMBERS, "2000", "SR_REPLAY_UI_TARGET_NOT_FOUND"),  # no row
        ([*NUMBERS, "1007"], "1007", "SR_REPLAY_UI_TARGET_AMBIGUOUS"),  # two rows
        (["10071", "1008"], "1007", "SR_REPLAY_UI_TARGET_NOT_FOUND"),  # only a longer token
        (NUMBERS, " ", "SR_REPLAY_UI_TARGET_NOT_FOUND"),  # an empty value
    ],
)
def test_no_row_two_rows_or_a_longer_token_fail_closed(numbers: list[str], q: str, code: str) -> None:
    error, driver = failure(orders_page(numbers), [START, OPEN], {"q": q})
    assert (error.code, error.action_id) == (code, "c1")
    assert clicked(driver) == []
    assert q.strip() not in error.message or not q.strip()


def test_a_longer_token_beside_the_right_one_is_not_confused() -> None:
    page = orders_page(["10071", "1007", "21007"])
    _, driver = run(page, [START, OPEN], {"q": "1007"})
    [index] = clicked(driver)
    assert index is not None
    assert page.elements[index].text == "Order 1007"


# ---- rows chosen by an input, and the fallback by role (issue 28) -------------------------------

BY_Q = TextFilter(contains_token=ParameterRef(name="q"))
ROWS = ElementSet(
    candidates=(LocatorCandidate(strategy="css", selector="tr.order", match_count=20),),
    fingerprint=Fingerprint(tag="tr", parent_path=("html", "body", "main")),
)
APPROVE = ClickAction(
    id="c1",
    target=LocatorBundle(
        candidates=(LocatorCandidate(strategy="css", selector="button.approve", match_count=1),),
        fingerprint=fp("button", type_="submit", selector="button.approve"),
        filter=BY_Q,
        row=ROWS,
    ),
)


@pytest.mark.parametrize("q", ["1003", "1019"])
def test_the_button_of_the_row_holding_the_input_is_clicked(q: str) -> None:
    page = orders_page(NUMBERS)
    _, driver = run(page, [START, APPROVE], {"q": q})
    [index] = clicked(driver)
    assert index is not None
    button = page.elements[index]
    assert button.text == "Approve"
    assert button.parent is not None
    assert page.elements[button.parent].text.startswith(f"Order {q} ")


@pytest.mark.parametrize(
    ("numbers", "q", "code"),
    [
        ([*NUMBERS, "1007"], "1007", "SR_REPLAY_UI_TARGET_AMBIGUOUS"),  # two rows show it
        (NUMBERS, "2000", "SR_REPLAY_UI_TARGET_NOT_FOUND"),  # no row does
        (["10071"], "1007", "SR_REPLAY_UI_TARGET_NOT_FOUND"),  # only a longer token
    ],
)
def test_no_row_or_two_rows_fail_closed_with_nothing_clicked(numbers: list[str], q: str, code: str) -> None:
    error, driver = failure(orders_page(numbers), [START, APPROVE], {"q": q})
    assert (error.code, error.action_id) == (code, "c1")
    assert clicked(driver) == []


def _as_links(page: FakePage) -> FakePage:
    """The same rows redone: the order links keep their text and role, not their structure."""
    for e in page.elements:
        if e.fingerprint.tag == "a":
            e.selectors = {"div.grid a.link-order"}
            e.fingerprint = e.fingerprint.model_copy(update={"role": "link", "attributes": {}})
    return page


GONE = ClickAction(
    id="c1",
    target=target("a.open", tag="a", token=ParameterRef(name="q"), count=20).model_copy(
        update={"fingerprint": Fingerprint(tag="a", role="link", parent_path=("td", "tr", "tbody"))}
    ),
)


def test_when_the_like_set_is_gone_the_one_element_of_its_role_holding_the_input_is_clicked() -> None:
    page = _as_links(orders_page(NUMBERS))
    engine, driver = run(page, [START, GONE], {"q": "1007"})
    [index] = clicked(driver)
    assert index is not None
    assert page.elements[index].text == "Order 1007"
    assert engine.completed[-1].healed


@pytest.mark.parametrize(
    ("numbers", "q", "code"),
    [
        ([*NUMBERS, "1007"], "1007", "SR_REPLAY_UI_TARGET_AMBIGUOUS"),
        (NUMBERS, "2000", "SR_REPLAY_UI_TARGET_NOT_FOUND"),
    ],
)
def test_the_fallback_by_role_fails_closed_too(numbers: list[str], q: str, code: str) -> None:
    error, driver = failure(_as_links(orders_page(numbers)), [START, GONE], {"q": q})
    assert (error.code, error.action_id) == (code, "c1")
    assert clicked(driver) == []


# ---- extraction ---------------------------------------------------------------------------------


def extract(step: str, output: str, selector: str, tag: str = "span", **kw: Any) -> ExtractAction:
    return ExtractAction(id=step, output=output, target=target(selector, tag=tag), **kw)


def test_scalar_outputs_of_every_type() -> None:
    page = orders_page(NUMBERS[:3])
    page.elements += [
        el("span", {"#n"}, text=" 1,204 "),
        el("span", {"#flag"}, text="Yes"),
        el("span", {"#state"}, text="approved"),
        el("time", {"#when"}, attributes={"datetime": "2026-03-01"}),
    ]
    actions: list[Action] = [
        START,
        extract("x1", "total", "#total", type="number", pattern=r"Total: (.*)"),
        extract("x2", "items", "#n", type="integer"),
        extract("x3", "paid", "#flag", type="boolean"),
        extract("x4", "state", "#state", type="enum", values=("new", "approved")),
        extract("x5", "when", "#when", tag="time", read="attribute", attribute="datetime"),
        extract("x6", "banner", "#banner", read="presence"),
        extract("x7", "has_total", "#total", read="presence"),
        ExtractAction(id="x8", output="rows", read="count", items=element_set("tr.order")),
    ]
    engine, _ = run(page, actions)
    assert engine.outputs == {
        "total": 1234.5,
        "items": 1204,
        "paid": True,
        "state": "approved",
        "when": "2026-03-01",
        "banner": False,
        "has_total": True,
        "rows": 3,
    }


@pytest.mark.parametrize(
    ("text", "kw"),
    [
        ("n/a", {"type": "number"}),
        ("12.5", {"type": "integer"}),
        ("maybe", {"type": "boolean"}),
        ("other", {"type": "enum", "values": ("a", "b")}),
        ("Total 5", {"pattern": r"Sum: (\d+)"}),
    ],
)
def test_a_value_that_does_not_fit_is_refused_naming_the_step(text: str, kw: dict[str, Any]) -> None:
    page = FakePage(URL, [el("span", {"#v"}, text=text)])
    error, _ = failure(page, [START, extract("x1", "v", "#v", **kw)])
    assert (error.code, error.action_id) == ("SR_REPLAY_OUTPUT_INVALID", "x1")
    assert text not in error.message


def rows_list(limit: int = 50, **kw: Any) -> ExtractAction:
    fields = (
        FieldSpec(name="number", target=target("a.open", tag="a"), pattern=r"Order (\d+)"),
        FieldSpec(name="amount", target=target("td.amount"), type="number"),
        FieldSpec(name="link", target=target("a.open", tag="a"), read="attribute", attribute="href"),
        FieldSpec(name="note", target=target("td.note"), optional=True),
    )
    return ExtractAction(
        id="x1", output="orders", read="list", items=element_set("tr.order"), fields=fields, limit=limit, **kw
    )


def test_a_list_of_items_with_fields() -> None:
    engine, _ = run(orders_page(NUMBERS[:3]), [START, rows_list()])
    assert engine.outputs["orders"] == [
        {"number": "1000", "amount": 100.5, "link": "/o/1000", "note": None},
        {"number": "1001", "amount": 200.5, "link": "/o/1001", "note": None},
        {"number": "1002", "amount": 300.5, "link": "/o/1002", "note": None},
    ]


def test_a_list_longer_than_its_limit_fails_unless_the_first_are_asked_for() -> None:
    error, _ = failure(orders_page(NUMBERS), [START, rows_list(limit=5)])
    assert (error.code, error.action_id) == ("SR_REPLAY_LIST_LIMIT", "x1")
    engine, _ = run(orders_page(NUMBERS), [START, rows_list(limit=5, overflow="first")])
    orders = engine.outputs["orders"]
    assert isinstance(orders, list)
    assert [r["number"] for r in orders] == ["1000", "1001", "1002", "1003", "1004"]


def test_a_required_field_missing_from_an_item_names_the_item_and_field() -> None:
    page = orders_page(NUMBERS[:3])
    page.elements = [e for e in page.elements if not (e.text == "$200.50" and "td.amount" in e.selectors)]
    error, _ = failure(page, [START, rows_list()])
    assert (error.code, error.action_id) == ("SR_REPLAY_UI_TARGET_NOT_FOUND", "x1")
    assert "item 2" in error.message
    assert "'amount'" in error.message


def test_a_filtered_list_keeps_the_items_holding_the_input() -> None:
    page = orders_page(NUMBERS[:6], statuses=["new", "approved", "new", "approved", "approved", "new"])
    listing = ExtractAction(
        id="x1",
        output="approved",
        read="list",
        items=element_set("tr.order", token=ParameterRef(name="status")),
        fields=(FieldSpec(name="number", target=target("a.open", tag="a"), pattern=r"(\d+)"),),
        limit=10,
    )
    engine, _ = run(page, [START, listing], {"status": "approved"})
    assert engine.outputs["approved"] == [{"number": "1001"}, {"number": "1003"}, {"number": "1004"}]


# ---- loops and branches -------------------------------------------------------------------------


def test_a_loop_acts_on_each_row_and_collects_what_it_read() -> None:
    page = orders_page(NUMBERS[:4], statuses=["new", "approved", "new", "approved"])
    progress: list[StepProgress] = []
    engine, driver = run(page, [START, approve_loop()], progress=progress)
    assert engine.outputs["orders"] == [
        {"status": "new", "amount": 100.5},
        {"status": "approved", "amount": 200.5},
        {"status": "new", "amount": 300.5},
        {"status": "approved", "amount": 400.5},
    ]
    approved_rows = [page.elements[i].parent for i in clicked(driver) if i is not None]
    assert [page.elements[r].text.split()[1] for r in approved_rows if r is not None] == ["1000", "1002"]
    records = {r.action_id: r for r in engine.completed}
    assert (records["x2"].runs, records["c2"].runs, records["l1"].runs) == (4, 2, 1)
    assert [p.iteration for p in progress if p.action_id == "x2" and p.phase == "done"] == [0, 1, 2, 3]


def test_a_loop_over_more_items_than_its_limit_fails_closed() -> None:
    error, driver = failure(
        orders_page(NUMBERS),
        [START, approve_loop(limit=ParameterRef(name="n"))],
        {"n": "5"},
        parameters=[Parameter(name="n", type="integer")],
    )
    assert (error.code, error.action_id) == ("SR_REPLAY_LIST_LIMIT", "l1")
    assert clicked(driver) == []


def test_a_skipping_assertion_ends_only_its_iteration() -> None:
    page = orders_page(NUMBERS[:3], statuses=["new", "approved", "new"])
    check = AssertAction(
        id="s1",
        check="text_contains",
        target=target("td.status", within="item"),
        expected="new",
        on_fail="skip",
    )
    approve = ClickAction(
        id="c2", target=target("button.approve", tag="button", type_="submit", within="item")
    )
    loop = LoopAction(id="l1", items=element_set("tr.order"), limit=10, body=(check, approve))
    _, driver = run(page, [START, loop])
    assert len(clicked(driver)) == 2


def test_a_branch_on_an_element_present() -> None:
    page = orders_page(NUMBERS[:1])
    badge = target("#approved", tag="span")
    branch = BranchAction(
        id="b1",
        condition=PresentCondition(target=badge),
        then=(extract("x1", "note", "#approved"),),
        otherwise=(ClickAction(id="c2", target=target("button.approve", tag="button", type_="submit")),),
    )
    _, driver = run(page, [START, branch])
    assert len(clicked(driver)) == 1
    page = orders_page(NUMBERS[:1])
    page.elements.append(el("span", {"#approved"}, text="Already approved"))
    engine, driver = run(page, [START, branch])
    assert (clicked(driver), engine.outputs) == ([], {"note": "Already approved"})


def test_an_output_feeds_a_later_step() -> None:
    page = orders_page(NUMBERS[:3])
    field = el("input", {"#amount"}, type_="text")
    page.elements.append(field)
    use = TypeAction(
        id="t1",
        target=target("#amount", tag="input", type_="text"),
        value=OutputRef(step="x1", field="total"),
    )
    run(page, [START, extract("x1", "total", "#total", type="number", pattern=r"\$(.*)"), use])
    assert field.value == "1234.5"


def test_a_select_input_given_by_its_label() -> None:
    region = el("select", {"#region"}, options=("eu-west", "us-east"), labels=("Europe (West)", "US East"))
    page = FakePage(URL, [region])
    choose = SelectAction(id="s1", target=target("#region", tag="select"), value=ParameterRef(name="region"))
    param = Parameter(name="region", type="enum", values=("eu-west", "us-east"))
    run(page, [START, choose], {"region": "US East"}, parameters=[param], labels=frozenset({"region"}))
    assert region.value == "us-east"
    error, _ = failure(
        FakePage(URL, [region]),
        [START, choose],
        {"region": "Mars"},
        parameters=[param],
        labels=frozenset({"region"}),
    )
    assert (error.code, error.action_id) == ("SR_REPLAY_PARAMETER_INVALID", "s1")
    assert "'eu-west', 'us-east'" in error.message
    assert "Mars" not in error.message


# ---- optional steps, waits, scrolling, dialogs --------------------------------------------------


def test_an_optional_step_runs_only_when_its_target_is_present() -> None:
    accept = ClickAction(id="c1", target=target("#cookies", tag="button"), optional=True)
    after = ClickAction(id="c2", target=target("#go", tag="button"))
    page = FakePage(URL, [el("button", {"#go"})])
    progress: list[StepProgress] = []
    engine, driver = run(page, [START, accept, after], progress=progress)
    assert clicked(driver) == [0]
    assert [p.phase for p in progress if p.action_id == "c1"] == ["start", "skipped"]
    assert "skipped" in engine.completed[1].evidence.facts
    banner = FakePage(URL, [el("button", {"#go"}), el("button", {"#cookies"})])
    _, driver = run(banner, [START, accept, after])
    assert clicked(driver) == [1, 0]


def test_waits_and_their_timeouts() -> None:
    page = FakePage(URL, [el("p", {"#status"}, text="Saved at 10:00")])
    waits: list[Action] = [
        START,
        WaitAction(id="w1", until="appears", target=target("#status", tag="p")),
        WaitAction(id="w2", until="disappears", target=target("#spinner", tag="div")),
        WaitAction(id="w3", until="url", expected="/orders"),
        WaitAction(
            id="w4", until="text", target=target("#status", tag="p"), value=LiteralValue(value="Saved")
        ),
    ]
    run(page, waits)
    late = WaitAction(id="w5", until="appears", target=target("#never", tag="p"), timeout_ms=500)
    error, _ = failure(page, [START, late])
    assert (error.code, error.action_id) == ("SR_REPLAY_UI_WAIT_NOT_ON_PAGE", "w5")
    skip = late.model_copy(update={"on_fail": "skip"})
    _, driver = run(page, [START, skip, ClickAction(id="c1", target=target("#status", tag="p"))])
    assert clicked(driver) == []  # the rest of the run was skipped


def test_scrolling_a_lazy_list_to_its_end() -> None:
    page = orders_page(NUMBERS[:5])
    tbody = page.elements[0]

    def more(driver: FakeDriver) -> bool:
        count = sum(1 for e in driver.page.elements if "tr.order" in e.selectors)
        if count >= 12:
            return False
        driver.page.elements.append(el("tr", {"tr.order"}, parent=0, text=f"Order {2000 + count}"))
        return True

    tbody.on_scroll = more
    scroll = ScrollAction(id="s1", target=target("tbody", tag="tbody"), to="end")
    count = ExtractAction(id="x1", output="rows", read="count", items=element_set("tr.order"))
    engine, _ = run(page, [START, scroll, count])
    assert engine.outputs == {"rows": 12}


@pytest.mark.parametrize("accept", [True, False])
def test_a_confirm_dialog_is_answered_as_recorded(accept: bool) -> None:
    delete = el("button", {"#delete"})
    delete.on_click = lambda driver: driver.open_dialog("confirm")
    page = FakePage(URL, [delete])
    actions: list[Action] = [
        START,
        ClickAction(id="c1", target=target("#delete", tag="button")),
        DialogAction(id="d1", accept=accept, expects="confirm"),
    ]
    engine, driver = run(page, actions)
    assert driver.dialogs == [("confirm", accept, None)]
    assert "dialog" in engine.completed[-1].evidence.facts


def test_a_dialog_that_does_not_come_or_differs_fails() -> None:
    quiet = FakePage(URL, [el("button", {"#delete"})])
    actions: list[Action] = [
        START,
        ClickAction(id="c1", target=target("#delete", tag="button")),
        DialogAction(id="d1", accept=True, expects="confirm"),
    ]
    error, _ = failure(quiet, actions)
    assert (error.code, error.action_id) == ("SR_REPLAY_UI_DIALOG_MISMATCH", "d1")
    prompt = el("button", {"#delete"})
    prompt.on_click = lambda driver: driver.open_dialog("prompt")
    error, driver = failure(FakePage(URL, [prompt]), actions)
    assert (error.code, error.action_id) == ("SR_REPLAY_UI_DIALOG_MISMATCH", "d1")
    assert driver.dialogs == [("prompt", False, None)]  # dismissed


def test_a_prompt_is_given_its_parameter() -> None:
    rename = el("button", {"#rename"})
    rename.on_click = lambda driver: driver.open_dialog("prompt")
    actions: list[Action] = [
        START,
        ClickAction(id="c1", target=target("#rename", tag="button")),
        DialogAction(id="d1", accept=True, expects="prompt", text=ParameterRef(name="name")),
    ]
    _, driver = run(FakePage(URL, [rename]), actions, {"name": "Q3 report"})
    assert driver.dialogs == [("prompt", True, "Q3 report")]


# ---- bounds -------------------------------------------------------------------------------------


def test_the_step_budget_stops_a_runaway_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_module, "MAX_STEP_RUNS", 10)
    error, _ = failure(orders_page(NUMBERS), [START, approve_loop()])
    assert (error.code, error.action_id) == ("SR_REPLAY_STEP_BUDGET", "c2")  # the 11th step run


def test_outputs_beyond_their_total_size_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(data_module, "MAX_OUTPUTS_BYTES", 200)
    error, _ = failure(orders_page(NUMBERS), [START, rows_list(limit=50)])
    assert (error.code, error.action_id) == ("SR_REPLAY_OUTPUT_TOO_LARGE", "x1")


def test_the_next_step_is_measured_ahead_only_where_that_measures_the_right_element() -> None:
    """After a step acts, its page summary may measure the page for the next step's target (the
    driver serves that measurement only to a document-level probe of the same bundle on an
    unchanged page). The engine asks for it for the next step of the same list (or, at the end of a
    list, what runs after it: below, nothing measurable), and never for a target inside the loop's
    item, one chosen by an input, or the first step of a block."""
    from skillreel.model.locators import merge_heal

    page = orders_page(["1000", "1001", "1002"])
    total = target("#total", tag="span")
    again = ClickAction(id="c1", target=total)
    in_item = ClickAction(
        id="c2", target=target("button.approve", tag="button", type_="submit", within="item")
    )
    in_body = ClickAction(id="c3", target=total)
    loop = LoopAction(id="l1", items=element_set("tr.order"), limit=10, body=(in_item, in_body))
    chosen = ClickAction(id="c4", target=target("a.open", tag="a", token=ParameterRef(name="q"), count=3))
    merged = merge_heal(target("#gone", tag="span"), total)
    last = ClickAction(id="c5", target=merged)
    actions: list[Action] = [START, ClickAction(id="c0", target=total), again, loop, chosen, last]
    _, driver = run(page, actions, {"q": "1001"})
    newest = merged.measured_as(merged.fingerprint)
    assert newest.identities == ()
    assert newest.candidates == merged.candidates
    assert driver.prefetched == [total, total, total, total, newest]
    ahead_of_chosen = [
        p
        for p in driver.prefetched
        if not isinstance(p, LocatorBundle) or p.filter is not None or p.within is not None
    ]
    assert ahead_of_chosen == []


def test_a_loop_measures_its_next_item_ahead() -> None:
    """Entering an item also measures the body's first target inside it (an extraction here, a
    step that always runs first); the step that ends an iteration measures the next item ahead in
    its page summary (entering it, its fields, that target), and after the last item the step
    after the loop. A click that does not end its iteration, or a branch decided by a field,
    asks for nothing else."""
    page = orders_page(NUMBERS[:3], statuses=["new", "approved", "new"])
    total = target("#total", tag="span")
    loop = approve_loop()
    amount = loop.body[0]
    assert isinstance(amount, ExtractAction)
    assert amount.target is not None
    engine, driver = run(page, [START, loop, ClickAction(id="c9", target=total)])
    assert engine.failed is None
    assert driver.entry_probes == [("l1", index, amount.target) for index in range(3)]
    assert driver.prefetched == [ItemAhead("l1", 1, loop.fields, True, amount.target), total]


def test_a_loop_body_that_begins_with_a_branch_on_a_field_measures_its_first_list_ahead() -> None:
    """The first list of a branch decided without measuring the page (an item's field) is what the
    body most likely probes first; a branch on the page (an element present) is not predicted."""
    page = orders_page(NUMBERS[:2], statuses=["new", "new"])
    loop = approve_loop()
    branch = loop.body[1]
    assert isinstance(branch, BranchAction)
    click = branch.otherwise[0]
    assert isinstance(click, ClickAction)
    on_field = BranchAction(id="b1", condition=branch.condition, then=(click,))
    _, driver = run(page, [START, loop.model_copy(update={"body": (on_field,)})])
    assert driver.entry_probes == [("l1", 0, click.target), ("l1", 1, click.target)]
    on_page = BranchAction(id="b1", condition=PresentCondition(target=click.target), then=(click,))
    _, driver = run(page, [START, loop.model_copy(update={"body": (on_page,)})])
    assert driver.entry_probes == []


def test_an_extraction_reads_the_item_its_ranked_locator_designates_but_a_click_there_stays_ambiguous() -> (
    None
):
    """Every row's amount looks the same to a content-free fingerprint. Reading "the first row's
    amount" (a positional CSS path, one match) reads it; clicking the first row's button by the same
    kind of locator still fails closed, nothing clicked."""

    def page() -> FakePage:
        built = orders_page(NUMBERS[:3])
        first_row = built.elements[1]
        assert first_row.selectors == {"tr.order"}
        for element in built.elements:
            for own in ("td.amount", "button.approve"):
                if element.parent == 1 and own in element.selectors:
                    element.selectors = {*element.selectors, f"tr:nth-of-type(1) > {own}"}
        return built

    first = target("tr:nth-of-type(1) > td.amount")
    first = first.model_copy(update={"fingerprint": fp("td", selector="td.amount")})
    read = ExtractAction(id="x1", output="first", target=first, type="number")
    engine, _ = run(page(), [START, read])
    assert engine.outputs == {"first": 100.5}
    button = target("tr:nth-of-type(1) > button.approve", tag="button", type_="submit")
    button = button.model_copy(
        update={"fingerprint": fp("button", type_="submit", selector="button.approve")}
    )
    error, driver = failure(page(), [START, ClickAction(id="c1", target=button)])
    assert (error.code, error.action_id) == ("SR_REPLAY_UI_TARGET_AMBIGUOUS", "c1")
    assert clicked(driver) == []


# ---- a failed wait says which (replay/steps/checking.py wait_failure, Driver.condition) -------------
# From the page's condition at the deadline: an HTTP error page, a page still changing (the one case
# a longer timeout may help), a target not on a page that stopped changing, or a condition that did
# not hold there; a click whose target is not found on an HTTP error page names the status
# (replay/resolving.py). The real page: tests/integration/replay/test_waits_say_which.py.

WAIT_MISSING = WaitAction(id="w1", until="appears", target=target("#never", tag="p"), timeout_ms=500)
WAIT_STAYS = WaitAction(id="w1", until="disappears", target=target("#status", tag="p"), timeout_ms=500)
WAIT_TEXT = WaitAction(
    id="w1", until="text", target=target("#status", tag="p"), value=LiteralValue(value="Done"), timeout_ms=500
)
URL_WAIT = WaitAction(id="w1", until="url", expected="/elsewhere", timeout_ms=500)


def condition_page(*, status: int | None = 200, changing: bool = False) -> FakePage:
    return FakePage(URL, [el("p", {"#status"}, text="Saving")], status=status, changing=changing)


@pytest.mark.parametrize(
    ("wait", "status", "changing", "code"),
    [
        (WAIT_MISSING, 200, False, "SR_REPLAY_UI_WAIT_NOT_ON_PAGE"),
        (WAIT_MISSING, None, False, "SR_REPLAY_UI_WAIT_NOT_ON_PAGE"),
        (WAIT_MISSING, 200, True, "SR_REPLAY_UI_WAIT_TIMEOUT"),
        (WAIT_STAYS, 200, False, "SR_REPLAY_UI_WAIT_FAILED"),
        (WAIT_STAYS, 200, True, "SR_REPLAY_UI_WAIT_TIMEOUT"),
        (WAIT_TEXT, 200, False, "SR_REPLAY_UI_WAIT_FAILED"),
        (URL_WAIT, 200, False, "SR_REPLAY_UI_WAIT_FAILED"),
        (URL_WAIT, 200, True, "SR_REPLAY_UI_WAIT_TIMEOUT"),
        (WAIT_MISSING, 500, False, "SR_REPLAY_UI_HTTP_ERROR"),
        (WAIT_MISSING, 404, True, "SR_REPLAY_UI_HTTP_ERROR"),  # the status wins over "still changing"
        (WAIT_TEXT, 503, False, "SR_REPLAY_UI_HTTP_ERROR"),
    ],
)
def test_a_failed_wait_says_which(wait: WaitAction, status: int | None, changing: bool, code: str) -> None:
    error, _ = failure(condition_page(status=status, changing=changing), [START, wait])
    assert (error.code, error.action_id) == (code, "w1")
    if code == "SR_REPLAY_UI_HTTP_ERROR":
        assert error.details == {"httpStatus": status}
        assert f"the page answered HTTP {status}" in error.message
    else:
        assert error.details == {}


def test_only_a_page_still_changing_suggests_a_longer_timeout() -> None:
    assert "give the step a longer timeout" in CODES["SR_REPLAY_UI_WAIT_TIMEOUT"].fix
    for code in ("SR_REPLAY_UI_WAIT_FAILED", "SR_REPLAY_UI_WAIT_NOT_ON_PAGE", "SR_REPLAY_UI_HTTP_ERROR"):
        fix = CODES[code].fix
        assert "give the step a longer" not in fix, code
        assert "needs a longer step timeout" not in fix, code


def test_a_click_target_not_found_on_an_http_error_page_names_the_status() -> None:
    click: list[Action] = [START, ClickAction(id="c1", target=target("#never", tag="button"))]
    error, driver = failure(condition_page(status=500), click)
    assert (error.code, error.action_id, error.details) == (
        "SR_REPLAY_UI_HTTP_ERROR",
        "c1",
        {"httpStatus": 500},
    )
    assert "no element matches the target: the page answered HTTP 500" in error.message
    assert [name for name, _ in driver.actions if name == "click"] == []
    error, _ = failure(condition_page(status=200), click)
    assert error.code == "SR_REPLAY_UI_TARGET_NOT_FOUND"
