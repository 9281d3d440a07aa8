"""Values between steps, retries and while loops (issue 33), replayed in real Chromium on local
pages: an order id read on one page typed into a search field on another and loaded through a URL
template (``/orders/{order_id}``); template values that try to leave the path or the origin stay
inside one segment or load nothing; an assertion whose text shows after more than the step's
timeout holds on its retry (and fails without one); a while loop that clicks "Load more" until it
goes away, and one that hits its limit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from skillreel.model.actions import (
    Action,
    AssertAction,
    ClickAction,
    ExtractAction,
    NavigateAction,
    PressAction,
    Retry,
    TypeAction,
    WhileAction,
)
from skillreel.model.conditions import PresentCondition
from skillreel.model.locators import LocatorBundle
from skillreel.model.refs import OutputRef, ParameterRef
from skillreel.services.replaying import ReplayOutcome, ReplayRequest, replay_skill
from skillreel.store import Store
from tests.support.describe import describe_url
from tests.support.factory import element_set, graph_draft, store_approved, target, url_environment
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser


def page(body: str, script: str = "") -> str:
    return f"<!doctype html><html><body><main>{body}</main><script>{script}</script></body></html>"


DASHBOARD = page('<h1>Dashboard</h1><p>Latest: <span id="latest">Order 90817263</span></p>')
SEARCH = page(
    '<input id="q" name="q">',
    'document.getElementById("q").addEventListener("keydown", (e) => {'
    ' if (e.key === "Enter") location.href = "/found?q=" + encodeURIComponent(e.target.value); });',
)
FOUND = page('<p id="result">found</p>')
ORDER = page('<h1 id="title">An order</h1>')


async def replay(
    store: Store,
    sessions: WarmSessions,
    actions: Sequence[Action],
    inputs: dict[str, Any] | None = None,
    *,
    url: str,
    timeout_ms: int = 4_000,
    name: str = "flow-skill",
) -> ReplayOutcome:
    store_approved(store, graph_draft(actions, name=name, environment=url_environment(url)))
    return await replay_skill(
        store,
        ReplayRequest(name=name, inputs=inputs or {}, timeout_ms=timeout_ms),
        session_factory=sessions,
    )


def paths(server: LocalServer) -> list[str]:
    return [p for _, p in server.requests]


# ---- values between steps ---------------------------------------------------------------------------


def order_flow(server: LocalServer, field: LocatorBundle) -> list[Action]:
    order_id = OutputRef(step="a2", field="order_id")
    return [
        NavigateAction(id="a1", url=server.url("/dashboard")),
        ExtractAction(id="a2", output="order_id", target=target("#latest", tag="span"), pattern=r"(\d+)"),
        NavigateAction(id="a3", url=server.url("/search"), reason="address-bar"),
        TypeAction(id="a4", target=field, value=order_id),
        PressAction(id="a5", key="Enter", target=field),
        NavigateAction(
            id="a6",
            url=server.url("/orders/{order_id}") + "?from=search",
            reason="address-bar",
            parts={"order_id": order_id},
        ),
        ExtractAction(id="a7", output="title", target=target("#title", tag="h1")),
    ]


async def test_a_value_read_on_one_page_is_typed_on_another_and_loads_a_url_template(
    server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    field = (await describe_url(server, "/search", SEARCH, {"q": "#q"}))["q"]
    server.set_page("/dashboard", DASHBOARD)
    server.set_page("/found", FOUND)
    server.set_page("/orders/90817263", ORDER)
    server.set_page("/orders/53640712", ORDER)
    for n, shown in enumerate(("90817263", "53640712")):
        server.set_page("/dashboard", DASHBOARD.replace("90817263", shown))
        server.requests.clear()
        outcome = await replay(
            store, sessions, order_flow(server, field), url=server.url("/dashboard"), name=f"flow-{n}"
        )
        assert outcome.error is None, outcome.error and outcome.error.to_json()
        assert outcome.outputs == {"order_id": shown, "title": "An order"}
        assert f"/found?q={shown}" in paths(server)  # typed into the search field on another page
        assert f"/orders/{shown}?from=search" in paths(server)  # the template's URL
    stored = b"".join(p.read_bytes() for p in store.home.rglob("*") if p.is_file())
    assert b"53640712" not in stored  # the value that fed later steps was never stored


async def load_template(
    server: LocalServer, store: Store, sessions: WarmSessions, path: str, value: str
) -> ReplayOutcome:
    """Replay: the start page, then the URL template ``path`` with input ``q`` as its part."""
    server.set_page("/dashboard", DASHBOARD)
    actions: list[Action] = [
        NavigateAction(id="a1", url=server.url("/dashboard")),
        NavigateAction(
            id="a2", url=server.url(path), reason="address-bar", parts={"order_id": ParameterRef(name="q")}
        ),
    ]
    server.requests.clear()
    return await replay(store, sessions, actions, {"q": value}, url=server.url("/dashboard"))


@pytest.mark.parametrize(
    ("value", "requested"),
    [
        ("../admin", "/orders/..%2Fadmin"),
        ("//evil.test", "/orders/%2F%2Fevil.test"),
        ("@evil.test", "/orders/%40evil.test"),
        ("x?admin=1#y", "/orders/x%3Fadmin%3D1%23y"),
    ],
)
async def test_a_template_value_stays_inside_its_path_segment(
    value: str, requested: str, server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    outcome = await load_template(server, store, sessions, "/orders/{order_id}", value)
    assert outcome.error is None, outcome.error and outcome.error.to_json()
    assert paths(server)[-1] == requested  # on the allowed origin, inside the segment


@pytest.mark.parametrize("value", ["..", ".", "%2e%2E"])
async def test_a_template_value_that_would_climb_the_path_loads_nothing(
    value: str, server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    outcome = await load_template(server, store, sessions, "/orders/{order_id}/edit", value)
    if value == "%2e%2E":  # encoded once more: an ordinary segment
        assert outcome.error is None
        assert paths(server)[-1] == "/orders/%252e%252E/edit"
        return
    assert outcome.error is not None
    assert (outcome.error.code, outcome.error.action_id) == ("SR_REPLAY_URL_PART_INVALID", "a2")
    assert value not in outcome.error.message.replace("'.' or '..'", "")
    assert not [p for p in paths(server) if p.startswith("/orders")]


# ---- retries ----------------------------------------------------------------------------------------

LATE = page(
    '<p id="status">Working</p>',
    'setTimeout(() => { document.getElementById("status").textContent = "Ready"; }, 1500);',
)


@pytest.mark.parametrize("retry", [None, Retry(times=3, interval_ms=200)])
async def test_an_assertion_holds_on_its_retry_after_its_timeout(
    retry: Retry | None, server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    server.set_page("/late", LATE)
    actions: list[Action] = [
        NavigateAction(id="a1", url=server.url("/late")),
        AssertAction(
            id="a2", check="text_contains", target=target("#status", tag="p"), expected="Ready", retry=retry
        ),
    ]
    outcome = await replay(store, sessions, actions, url=server.url("/late"), timeout_ms=1_000)
    if retry is None:
        assert outcome.error is not None
        assert outcome.error.action_id == "a2"
        return
    assert outcome.error is None, outcome.error and outcome.error.to_json()
    assert outcome.report is not None
    check = outcome.report.steps[1]
    assert 1 <= check.retries <= 3
    assert check.to_json()["retries"] == check.retries


# ---- while --------------------------------------------------------------------------------------------

LOAD_MORE = page(
    '<ul id="items"></ul><button id="more" type="button">Load more</button>',
    """
let pages = 0;
function more() {
  pages += 1;
  for (let i = 0; i < 3; i++) {
    const li = document.createElement("li");
    li.className = "item";
    li.textContent = "Item " + (pages * 3 + i);
    document.getElementById("items").appendChild(li);
  }
  if (pages === 4) document.getElementById("more").remove();
}
more();
document.getElementById("more").addEventListener("click", more);
""",
)


async def load_all(server: LocalServer, limit: int) -> list[Action]:
    more = (await describe_url(server, "/list", LOAD_MORE, {"more": "#more"}))["more"]
    return [
        NavigateAction(id="a1", url=server.url("/list")),
        WhileAction(
            id="a2",
            condition=PresentCondition(target=more),
            limit=limit,
            body=(ClickAction(id="a3", target=more),),
        ),
        ExtractAction(
            id="a4", output="items", read="count", items=element_set("#items li", tag="li", count=3)
        ),
    ]


async def test_a_while_loop_clicks_load_more_until_it_goes_away(
    server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    outcome = await replay(store, sessions, await load_all(server, 10), url=server.url("/list"))
    assert outcome.error is None, outcome.error and outcome.error.to_json()
    assert outcome.outputs == {"items": 12}
    assert outcome.report is not None
    assert {s.action_id: s.runs for s in outcome.report.steps}["a3"] == 3


async def test_a_while_loop_that_hits_its_limit_fails_the_step(
    server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    outcome = await replay(store, sessions, await load_all(server, 2), url=server.url("/list"))
    assert outcome.error is not None
    assert (outcome.error.code, outcome.error.action_id) == ("SR_REPLAY_WHILE_LIMIT", "a2")
    assert outcome.outputs is None
