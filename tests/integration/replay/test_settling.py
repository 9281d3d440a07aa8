"""Event-driven settling in real Chromium: a replay waits for what an action started (its requests,
a navigation they lead to, the DOM changes that follow), so pages that change after a click replay
as reliably as calm ones, without a fixed pause (``replay/settling.py``, ``replay/settle.js``).

Every page below answers a click with a request the server answers late (a slow backend), then
changes: the form is re-rendered, the page navigates, the field and button are enabled, or the
form appears. A replay that acted before the change would type into a field about to vanish (the
saved text would be empty) or fail to find the field. Each test asserts the outcome, never a time.
"""

from __future__ import annotations

import json
import time

import pytest

from skillreel.model.actions import Action, AssertAction, ClickAction, NavigateAction, TypeAction
from skillreel.model.locators import LocatorBundle
from skillreel.model.refs import ParameterRef
from skillreel.replay.settling import BODY_GRACE_S
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import Store
from tests.support.describe import describe_url
from tests.support.factory import build_draft, store_approved, url_environment
from tests.support.late_routing import unreported, unreported_activity
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

SLOW_S = 0.6  # the backend's answer comes this late: longer than the old fixed pause (100 ms)
LATE_S = 3.0  # longer than a replay's next steps take on a loaded machine, within NETWORK_CAP_S

FORM = """<form id="f"><label for="name">Name</label><input id="name" name="name"{disabled}>
<button id="save" type="button"{disabled}>Save</button></form>"""


def page(script: str, form: str = FORM.format(disabled=""), *, request: bool = True) -> str:
    answer = 'await (await fetch("/api/form")).text()' if request else "FORM"
    form_json = json.dumps(FORM.format(disabled=""))
    return f"""<!doctype html><html><head><title>Profile</title></head><body><main>
<h1>Profile</h1><button id="edit" type="button">Edit</button>
<div id="box">{form}</div><p id="result"></p></main>
<script>
function wire() {{
  const save = document.getElementById("save");
  if (save) save.onclick = () => {{
    document.getElementById("result").textContent = "Saved " + document.getElementById("name").value;
  }};
}}
wire();
const FORM = {form_json};
document.getElementById("edit").onclick = async () => {{
  const answer = {answer};
  {script}
}};
</script></body></html>"""


RENDER_IN_FRAME = (
    'requestAnimationFrame(() => {{ document.getElementById("box").innerHTML = {form}; wire(); }});'
)
RECORDED = page("")
PAGES = {
    # the click's request re-renders the form: a field typed into before would be replaced
    "re-rendered after a click": (page('document.getElementById("box").innerHTML = answer; wire();'), None),
    # the click's request leads to a navigation to a page with the same form
    "navigates after a request": (page('location.href = "/next";'), page("")),
    # the field and the button are disabled until the click's request answers
    "enabled late": (
        page(
            'for (const id of ["name", "save"]) document.getElementById(id).disabled = false;',
            FORM.format(disabled=" disabled"),
        ),
        None,
    ),
    # the form is not there until the click's request answers
    "rendered late": (page('document.getElementById("box").innerHTML = answer; wire();', ""), None),
    # the answer is rendered in the page's next animation frame, or by a task it queues (a
    # framework's scheduler): the click is calm once the answer is read (a short quiet window),
    # and the frame it waits for comes after both
    "re-rendered in the next frame after the answer": (
        page(RENDER_IN_FRAME.format(form="answer")),
        None,
    ),
    "re-rendered by a queued task after the answer": (
        page('setTimeout(() => { document.getElementById("box").innerHTML = answer; wire(); }, 0);'),
        None,
    ),
    # the click starts nothing and changes nothing at once; the page re-renders the form in its
    # next animation frame (a quiet window alone would end before it: nothing changed yet)
    "re-rendered in the next frame, no request": (
        page(RENDER_IN_FRAME.format(form="FORM"), request=False),
        None,
    ),
}
SELECTORS = {"edit": "#edit", "name": "#name", "save": "#save", "result": "#result"}


def flow(b: dict[str, LocatorBundle], url: str) -> list[Action]:
    return [
        NavigateAction(id="a1", url=url),
        ClickAction(id="a2", target=b["edit"]),
        TypeAction(id="a3", target=b["name"], value=ParameterRef(name="name")),
        ClickAction(id="a4", target=b["save"]),
        AssertAction(id="a5", check="text_contains", target=b["result"], expected="Saved Ada Lovelace"),
    ]


@pytest.mark.parametrize("case", list(PAGES))
async def test_a_page_that_changes_after_a_click_replays(
    case: str, server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    bundles = await describe_url(server, "/profile", RECORDED, SELECTORS)
    live, following = PAGES[case]
    server.set_page("/profile", live)
    if following is not None:
        server.set_page("/next", following)
    server.set_route("/api/form", body=FORM.format(disabled="").encode(), delay_s=SLOW_S)
    url = server.url("/profile")
    store_approved(store, build_draft("edit-profile", url_environment(url), flow(bundles, url)))

    outcome = await replay_skill(
        store, ReplayRequest(name="edit-profile", inputs={"name": "Ada Lovelace"}), session_factory=sessions
    )

    assert outcome.error is None, outcome.error
    if 'fetch("/api/form")' in live:
        assert ("GET", "/api/form") in server.requests
    if following is not None:
        assert ("GET", "/next") in server.requests


async def test_a_form_re_rendered_from_a_body_that_streams_in_late_replays(
    server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    """The response's headers come at once, its body a moment later, and the page re-renders the
    form from the body: a replay that stopped waiting at the response typed into the form about
    to be replaced (the saved text was empty). Settling waits for the body the page reads."""
    bundles = await describe_url(server, "/profile", RECORDED, SELECTORS)
    server.set_page("/profile", PAGES["re-rendered after a click"][0])
    server.set_route("/api/form", body=FORM.format(disabled="").encode(), body_delay_s=BODY_GRACE_S / 3)
    url = server.url("/profile")
    store_approved(store, build_draft("edit-profile", url_environment(url), flow(bundles, url)))

    outcome = await replay_skill(
        store, ReplayRequest(name="edit-profile", inputs={"name": "Ada Lovelace"}), session_factory=sessions
    )

    assert outcome.error is None, outcome.error
    assert outcome.status == "succeeded"


FIRE_AND_FORGET = """<!doctype html><html><body><button id="send" type="button">Send</button>
<script>
document.getElementById("send").onclick = () => { fetch("/api/ping", {method: "POST"}); };
</script></body></html>"""


async def test_a_fetch_whose_body_the_page_never_reads_ends_a_grace_after_its_response(
    sessions: WarmSessions,
) -> None:
    """Chromium never reports a fetch finished while the page leaves its body unread (analytics,
    fire-and-forget posts): settling stops waiting for a script's request a short grace after its
    response, else every such click held the step for the whole network cap. The wait below ends
    on page events or at the grace; its bound is far beyond the cap, so without the rule it fails
    rather than passing slowly."""
    from skillreel.replay.settling import NETWORK_CAP_S, PageActivity

    with LocalServer() as server:
        server.set_page("/", FIRE_AND_FORGET)
        server.set_route("/api/ping", body=b"noted", headers={"Content-Type": "text/plain"})
        async with sessions(url_environment(server.url("/"))) as session:
            await session.goto_start()
            activity = PageActivity(session.page)
            responded: list[str] = []
            session.page.on("response", lambda r: responded.append(r.url))
            mark = activity.mark()
            await session.page.click("#send")
            until = time.monotonic() + 12 * NETWORK_CAP_S
            while not responded and time.monotonic() < until:
                await activity.changed(until - time.monotonic())
            await activity.wait_requests(mark, until)
            assert responded == [server.url("/api/ping")]
            assert activity.pending(mark) == 0
            assert not activity.busy(mark)


# ---- a request Playwright reports late (routing) is known from the renderer -----------------------

STARTS = """<!doctype html><html><body><p id="n">0</p></body></html>"""


async def test_a_script_request_is_known_when_the_page_answers_however_late_playwright_reports_it(
    sessions: WarmSessions,
) -> None:
    """The renderer announces a script's request on the driver's CDP session before it answers a
    later call there: right after the answer to a call that started a fetch, the request is pending,
    though Playwright never reported it (its report comes after routing paused the request; here it
    never comes) and the server holds it unanswered. Many rounds, each a new request: an ordering,
    not a race that happens to be won."""

    with LocalServer() as server:
        server.set_page("/", STARTS)
        held = server.hold("/held")
        async with sessions(url_environment(server.url("/"))) as session:
            await session.goto_start()
            activity = unreported_activity("/held")(session.page)
            cdp = await session.page.context.new_cdp_session(session.page)
            activity.watch(cdp)
            await cdp.send("Network.enable")
            for round_ in range(40):
                mark = activity.mark()
                answer = await cdp.send(
                    "Runtime.evaluate",
                    {
                        "expression": f"fetch('/held?{round_}'); document.getElementById('n').textContent = "
                        f"'{round_}'; {round_}",
                        "returnByValue": True,
                    },
                )
                assert answer["result"]["value"] == round_
                assert activity.pending(mark) == 1, f"round {round_}: the page's request is not known"
                assert not activity.calm(mark)
            held.release()


async def test_a_request_playwright_reports_late_is_waited_for(
    monkeypatch: pytest.MonkeyPatch, server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    """The click's request re-renders the form; Playwright never reports it (routing late beyond
    any window) and the backend answers late. The replay still waits for it, from the renderer's
    announcement: it types into the re-rendered form, which holds the input at the end; a replay
    that did not wait typed into the form about to be replaced (the new field is empty)."""
    bundles = await describe_url(server, "/profile", RECORDED, SELECTORS)
    server.set_page("/profile", PAGES["re-rendered after a click"][0])
    # far later than the replay's next steps take under load, within the network cap
    server.set_route("/api/form", body=FORM.format(disabled="").encode(), delay_s=LATE_S)
    url = server.url("/profile")
    actions = [
        *flow(bundles, url),
        AssertAction(id="a6", check="value_equals", target=bundles["name"], expected="Ada Lovelace"),
    ]
    store_approved(store, build_draft("edit-profile", url_environment(url), actions))
    unreported(monkeypatch, "/api/form")

    request = ReplayRequest(name="edit-profile", inputs={"name": "Ada Lovelace"}, timeout_ms=20_000)
    outcome = await replay_skill(store, request, session_factory=sessions)

    assert outcome.error is None, outcome.error
    assert ("GET", "/api/form") in server.requests
