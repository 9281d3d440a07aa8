"""Live pages in real Chromium: rows a WebSocket or server-sent events push after an action
(``replay/settling.py``, "Live pages").

The page's click sends a socket frame (or posts a request while its event stream is open); the
server answers ~300 ms later with a message, and the page re-renders its list from it. The extract
right after the click reads the first row: a replay that settled only on requests and the DOM read
the old row (the push had not come yet). A socket that streams forever still lets the step end
within its deadline. The sandbox's routing lets the page's socket through (``sandbox/routing.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from skillreel.model.actions import Action, ClickAction, ExtractAction, NavigateAction
from skillreel.replay.direct import ACTIONS
from skillreel.replay.driving import Progress
from skillreel.services.replaying import ReplayOutcome, ReplayRequest, replay_skill
from skillreel.store import Store
from tests.support.describe import describe_on
from tests.support.factory import content_free, graph_draft, store_approved, url_environment
from tests.support.live_server import LiveServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

# The list is re-rendered from the server's message; the button appears once the channel is open.
LIST = """<!doctype html><html><head><title>Orders</title></head><body><main><h1>Orders</h1>
<p id="ticks">0</p><div id="bar"></div>
<ul id="rows"><li id="latest" class="row">row 1</li><li class="row">row 2</li></ul></main>
<script>
const rows = document.getElementById("rows");
let added = 0;
function render(message) {{
  if (message === "tick") {{
    const ticks = document.getElementById("ticks");
    ticks.textContent = String(Number(ticks.textContent) + 1);
    return;
  }}
  added += 1;
  const fresh = ["row " + (2 + added), ...Array.from(rows.children, (li) => li.textContent)];
  rows.innerHTML = fresh.map((text) => '<li class="row">' + text + "</li>").join("");
  rows.firstElementChild.id = "latest";
}}
function ready(onclick) {{
  const button = document.createElement("button");
  button.id = "add";
  button.type = "button";
  button.textContent = "Add";
  button.onclick = onclick;
  document.getElementById("bar").append(button);
}}
{channel}
</script></body></html>"""

SOCKET = """const ws = new WebSocket("ws://" + location.host + "/ws");
ws.onmessage = (event) => render(event.data);
ws.onopen = () => ready(() => ws.send("add"));"""

EVENTS = """const events = new EventSource("/events");
events.onmessage = (event) => render(event.data);
events.onopen = () => ready(() => fetch("/api/add", {method: "POST"}));"""

# What the recorder saw: the list and the button, no channel.
RECORDED = LIST.format(channel="ready(() => {});").replace("{{", "{").replace("}}", "}")
SELECTORS = {"add": "#add", "first": "#latest"}
TIMEOUT_MS = 20_000


def page(channel: str) -> str:
    return LIST.replace("{{", "{").replace("}}", "}").replace("{channel}", channel)


@pytest.fixture
def live() -> Iterator[LiveServer]:
    with LiveServer() as server:
        yield server


async def replay_add(
    store: Store, sessions: WarmSessions, live: LiveServer, channel: str, progress: Progress | None = None
) -> ReplayOutcome:
    live.pages["/"] = RECORDED
    url = live.url("/")
    environment = url_environment(url)
    bundles = await describe_on(environment, SELECTORS)
    live.pages["/"] = page(channel)
    actions: list[Action] = [
        NavigateAction(id="a1", url=url),
        ClickAction(id="a2", target=bundles["add"]),
        ExtractAction(id="a3", output="first", target=content_free(bundles["first"])),
    ]
    store_approved(store, graph_draft(actions, name="add-row", environment=environment))
    return await replay_skill(
        store,
        ReplayRequest(name="add-row", inputs={}, timeout_ms=TIMEOUT_MS),
        progress=progress,
        session_factory=sessions,
    )


@pytest.mark.parametrize("channel", [SOCKET, EVENTS], ids=["websocket", "server-sent events"])
async def test_a_row_a_server_pushes_after_a_click_is_read_after_it_arrives(
    channel: str, live: LiveServer, store: Store, sessions: WarmSessions
) -> None:
    before = Counter(ACTIONS)
    outcome = await replay_add(store, sessions, live, channel)

    assert outcome.status == "succeeded", outcome.error and outcome.error.to_json()
    assert outcome.outputs == {"first": "row 3"}
    # the click on a page holding a channel open went through Playwright, its reason named
    assert Counter(ACTIONS) - before == Counter({"fallback:click:live": 1})
    if channel == SOCKET:
        assert live.frames == 1  # the page's socket went through the sandbox's routing
    else:
        assert ("POST", "/api/add") in live.requests


async def test_a_socket_that_streams_forever_still_lets_the_step_end(
    live: LiveServer, store: Store, sessions: WarmSessions
) -> None:
    """Every 20 ms a message re-renders part of the page, forever: the click's settling stops
    waiting for messages at its cap and the run goes on (how long that takes is pinned, without a
    clock, by tests/unit/test_settling.py; bench figures, not tests, say how fast)."""
    live.stream_every_s = 0.02
    outcome = await replay_add(store, sessions, live, SOCKET)

    assert outcome.status == "succeeded", outcome.error and outcome.error.to_json()
    assert outcome.outputs == {"first": "row 3"}
