"""The network boundary end to end through replay: a click that makes the page reach a second
loopback server (not on the allowlist) fails the replay with ``SR_REPLAY_UI_NETWORK_DENIED``,
naming that origin only, and the second server sees zero requests.

The target layer tests each vector against the browser session a ``skillreel replay`` launches
(tests/integration/sandbox/test_boundary.py); here the whole replay runs, in a context of a warm
Chromium with its own proxy (the MCP server's and a batch's path), and the page without the
outside request replays on the cold path.
"""

from __future__ import annotations

import pytest

from skillreel.model.actions import Action, ClickAction, NavigateAction, ObserveAction
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import Store
from tests.support.describe import describe_url
from tests.support.factory import build_draft, store_approved, url_environment
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

# What the Go button does, per vector; OTHER is the second server's origin (test data, not input).
VECTORS = {
    "fetch": 'fetch(OTHER + "/data").catch(() => {});',
    "xhr": 'const x = new XMLHttpRequest(); x.open("GET", OTHER + "/data"); x.send();',
    "image": 'const i = new Image(); i.src = OTHER + "/pixel.png"; document.body.append(i);',
    "script": 'const s = document.createElement("script"); s.src = OTHER + "/lib.js"; '
    "document.body.append(s);",
    "iframe": 'const f = document.createElement("iframe"); f.src = OTHER + "/frame"; '
    "document.body.append(f);",
    "form-post": 'const f = document.getElementById("out"); f.action = OTHER + "/collect"; f.submit();',
    "websocket": 'try { new WebSocket(OTHER.replace("http:", "ws:") + "/socket"); } catch (e) {}',
    "window-open": 'window.open(OTHER + "/popup");',
    "redirect": 'location.href = "/bounce";',
}


def page(vector: str, other: str) -> str:
    return f"""<!doctype html><html><body><main>
<button id="go" type="button">Go</button>
<form id="out" method="post"><input type="hidden" name="data" value="x"></form>
<p id="done" hidden>Done</p></main>
<script>
const OTHER = {other!r};
document.getElementById("go").addEventListener("click", () => {{
  {VECTORS[vector]}
  setTimeout(() => {{ document.getElementById("done").hidden = false; }}, 600);
}});
</script></body></html>"""


@pytest.mark.parametrize("vector", sorted(VECTORS))
async def test_a_request_off_the_allowlist_fails_the_replay_and_never_arrives(
    vector: str, server: LocalServer, second_server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    html = page(vector, second_server.origin)
    server.set_route("/bounce", status=302, headers={"Location": second_server.url("/landing")})
    bundles = await describe_url(server, "/app", html, {"go": "#go", "done": "#done"})
    url = server.url("/app")
    actions: list[Action] = [
        NavigateAction(id="a1", url=url),
        ClickAction(id="a2", target=bundles["go"]),
        ObserveAction(id="a3", target=bundles["done"]),
    ]
    store_approved(store, build_draft("reach-out", url_environment(url), actions))

    request = ReplayRequest(name="reach-out", timeout_ms=5_000, settle_ms=200)
    outcome = await replay_skill(store, request, session_factory=sessions)

    assert outcome.error is not None, vector
    assert outcome.error.code == "SR_REPLAY_UI_NETWORK_DENIED", (vector, outcome.error.to_json())
    assert outcome.error.action_id in ("a2", "a3")
    assert outcome.error.details == {"deniedOriginCount": 1}  # counted, never named (page-chosen)
    assert str(second_server.port) not in outcome.error.message
    assert second_server.request_count() == 0
    assert "/data" not in outcome.error.message
    assert f"127.0.0.1:{server.port}" not in outcome.error.message
    entry = store.get("reach-out")
    assert (entry.status, entry.last_report) == ("approved", None)
    event = store.audit_events()[-1]
    assert (event.kind, event.outcome, event.code) == ("run-end", "failed", "SR_REPLAY_UI_NETWORK_DENIED")
    assert event.run == outcome.run_id is not None


async def test_the_same_page_without_the_outside_request_replays(server: LocalServer, store: Store) -> None:
    html = page("fetch", server.origin)  # the "other" origin is the allowed one itself
    bundles = await describe_url(server, "/app", html, {"go": "#go", "done": "#done"})
    url = server.url("/app")
    actions: list[Action] = [
        NavigateAction(id="a1", url=url),
        ClickAction(id="a2", target=bundles["go"]),
        ObserveAction(id="a3", target=bundles["done"]),
    ]
    store_approved(store, build_draft("reach-in", url_environment(url), actions))
    outcome = await replay_skill(store, ReplayRequest(name="reach-in"))
    assert outcome.status == "succeeded", outcome.error
    assert ("GET", "/data") in server.requests
