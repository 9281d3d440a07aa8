"""A target the page replaces before the action reaches it (``replay/settle.js``, ``_act`` in
``replay/driver.py``, ``act_on`` in ``replay/steps/acting.py``).

The replay marks the element it chose and Playwright acts on exactly that mark. A page that
re-renders the element in between (a list redrawn by a debounce, a row redrawn on hover) leaves the
mark on a node that is gone: the action used to wait for it until the step's timeout
(``SR_REPLAY_UI_TIMEOUT``; 13 of 16 runs of the debounce page below, before). Now our world sees
the node leave the document before any input reached the page, takes the mark off and tells the
driver; the action is cancelled and the step locates its target again on the page as it is then.
A field swapped in when the old one is focused gets the text once (ae5186a typed into the new
field and then failed verifying the old one); a field the page swaps once the text reached it is
verified where it is found again. Once input has reached the page the action is never
made again: a button whose own click redraws it is clicked once. A page that never stops replacing
the target fails the step with ``SR_REPLAY_UI_TARGET_REPLACED``, nothing clicked. Each test asserts
outcomes and what the server saw, never a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillreel.model.actions import Action, AssertAction, ClickAction, NavigateAction, TypeAction
from skillreel.model.lifecycle import approve
from skillreel.model.locators import LocatorBundle
from skillreel.model.refs import ParameterRef
from skillreel.replay.direct import DirectInput
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import ReplayOutcome, ReplayRequest, replay_skill
from skillreel.store import AuditNote, Store, utc_now
from tests.support.describe import describe_url
from tests.support.factory import build_draft, store_approved, url_environment
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

# The Approve button of row ``label``: it posts to /api/approve/<label> and shows "Approved <label>".
BUTTON = """function approveButton(label) {
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = "Approve";
  button.onclick = async () => {
    await fetch("/api/approve/" + label, {method: "POST"});
    document.getElementById("result").textContent = "Approved " + label;
  };
  return button;
}"""

# A list of one row with an Approve button. ``redraw(label)`` replaces the row with a new one (a new
# button, the same look); each button posts to /api/approve/<label> and shows "Approved <label>".
DESK = """<!doctype html><html><head><title>Desk</title></head><body><main>
<label for="q">Search</label><input id="q">
<ul id="results"></ul><p id="result"></p></main>
<script>
BUTTON
const results = document.getElementById("results");
let drawn = 0;
function redraw(label) {
  drawn += 1;
  const item = document.createElement("li");
  const button = approveButton(label);
  WIRE
  item.append("Invoice ", button);
  results.replaceChildren(item);
}
redraw("first");
SCRIPT
</script></body></html>"""


def desk(*, script: str = "", wire: str = "") -> str:
    return DESK.replace("BUTTON", BUTTON).replace("SCRIPT", script).replace("WIRE", wire)


SELECTORS = {"q": "#q", "approve": "#results button", "result": "#result"}


def approve_flow(b: dict[str, LocatorBundle], url: str, *, typed: bool = False) -> list[Action]:
    steps: list[Action] = [NavigateAction(id="a1", url=url)]
    if typed:
        steps.append(TypeAction(id="a2", target=b["q"], value=ParameterRef(name="q")))
    steps += [
        ClickAction(id="a3", target=b["approve"]),
        AssertAction(id="a4", check="text_contains", target=b["result"], expected="Approved"),
    ]
    return steps


async def replay(
    server: LocalServer, store: Store, sessions: WarmSessions, live: str, *, typed: bool = False
) -> ReplayOutcome:
    bundles = await describe_url(server, "/desk", desk(), SELECTORS)
    server.set_page("/desk", live)
    url = server.url("/desk")
    store_approved(
        store, build_draft("approve", url_environment(url), approve_flow(bundles, url, typed=typed))
    )
    inputs = {"q": "acme"} if typed else {}
    return await replay_skill(store, ReplayRequest(name="approve", inputs=inputs), session_factory=sessions)


def approvals(server: LocalServer) -> list[str]:
    return [path for method, path in server.requests if method == "POST" and path.startswith("/api/approve/")]


async def test_a_button_redrawn_when_the_pointer_reaches_it_is_found_again_and_clicked_once(
    server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    """The row redraws itself the first time the pointer enters the button: Playwright's click
    moves the pointer there first, so the marked button is always gone before its press."""
    hover = 'button.addEventListener("mouseover", () => { if (drawn === 1) redraw("second"); });'
    server.set_route("/api/approve/first", body=b"ok")
    server.set_route("/api/approve/second", body=b"ok")

    outcome = await replay(server, store, sessions, desk(wire=hover))

    assert outcome.error is None, outcome.error
    assert approvals(server) == ["/api/approve/second"]


@pytest.mark.parametrize("delay_ms", [20, 35, 50])
async def test_a_list_redrawn_by_a_debounce_after_typing_replays(
    delay_ms: int, server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    """Typing redraws the list a moment later, without a request (a debounced filter): whether the
    redraw comes before the probe, between the probe and the click, or after the click, the step
    clicks one button, once (before, the middle case waited for the gone mark until the timeout)."""
    debounce = (
        'let timer = null; document.getElementById("q").addEventListener("input", () => {'
        f' clearTimeout(timer); timer = setTimeout(() => redraw("filtered"), {delay_ms}); }});'
    )
    server.set_route("/api/approve/first", body=b"ok")
    server.set_route("/api/approve/filtered", body=b"ok")

    outcome = await replay(server, store, sessions, desk(script=debounce), typed=True)

    assert outcome.error is None, outcome.error
    assert len(approvals(server)) == 1


def press_then_redraw_then_release(monkeypatch: pytest.MonkeyPatch, label: str) -> list[str]:
    """The first direct click presses, lets the page's own world run ``redraw(label)`` (as a
    debounce timer that fires between the two input events does), then releases; the returned list
    names the clicks made that way. A loaded machine gives that order now and then (the debounce
    test above failed so on CI); here it is made every time."""
    original = DirectInput.click
    torn: list[str] = []

    async def click(self: DirectInput, x: float, y: float) -> None:
        if torn:
            await original(self, x, y)
            return
        torn.append(label)
        cdp = await self._world.session()
        at = {"x": x, "y": y, "modifiers": 0, "button": "left", "clickCount": 1}
        moved = {**at, "type": "mouseMoved", "button": "none", "buttons": 0}
        await cdp.send("Input.dispatchMouseEvent", moved)
        await cdp.send("Input.dispatchMouseEvent", {**at, "type": "mousePressed", "buttons": 1})
        await cdp.send("Runtime.evaluate", {"expression": f"redraw({json.dumps(label)})"})
        await cdp.send("Input.dispatchMouseEvent", {**at, "type": "mouseReleased", "buttons": 0})

    monkeypatch.setattr(DirectInput, "click", click)
    return torn


async def test_a_button_redrawn_between_the_press_and_the_release_is_clicked_again_where_it_is_now(
    server: LocalServer, store: Store, sessions: WarmSessions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The press reached the first button; the list was redrawn before the release, so the release
    lands on the new button and the click on the list around both: nothing was approved. Our world
    refuses that release and its click (a torn press), and the step locates the button again and
    clicks it once (before, the click looked done and the check after it failed)."""
    server.set_route("/api/approve/first", body=b"ok")
    server.set_route("/api/approve/second", body=b"ok")
    torn = press_then_redraw_then_release(monkeypatch, "second")

    outcome = await replay(server, store, sessions, desk())

    assert torn == ["second"]
    assert outcome.error is None, outcome.error
    assert approvals(server) == ["/api/approve/second"]


async def test_a_button_whose_own_press_takes_it_away_is_not_pressed_again(
    server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    """The page acts on the press itself and redraws the row while handling it (a menu item that
    acts on mousedown): the element left within the press, not between press and release, so the
    gesture goes on as the page handles it and nothing is pressed twice."""
    on_press = (
        'button.addEventListener("mousedown", async () => { if (drawn > 1) return; redraw("again");'
        ' await fetch("/api/approve/" + label + "-pressed", {method: "POST"});'
        ' document.getElementById("result").textContent = "Approved on press"; });'
    )
    server.set_route("/api/approve/first-pressed", body=b"ok")
    server.set_route("/api/approve/again", body=b"ok")
    server.set_route("/api/approve/again-pressed", body=b"ok")

    outcome = await replay(server, store, sessions, desk(wire=on_press))

    assert outcome.error is None, outcome.error
    assert approvals(server) == ["/api/approve/first-pressed"]


async def test_a_button_whose_own_click_redraws_it_is_clicked_once(
    server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    """Input reached the page before the button left it (the click's own handler redraws the row
    while Playwright's click is under way): the action is not made again, although an identical
    button is there at once."""
    server.set_route("/api/approve/first", body=b"ok")
    server.set_route("/api/approve/again", body=b"ok")

    redraw = 'button.addEventListener("click", () => redraw("again"));'  # within the click's dispatch

    outcome = await replay(server, store, sessions, desk(wire=redraw))

    assert outcome.error is None, outcome.error
    assert approvals(server) == ["/api/approve/first"]


async def test_a_button_redrawn_whenever_the_pointer_reaches_it_fails_the_step_and_is_never_clicked(
    server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    hover = 'button.addEventListener("mouseover", () => redraw("again"));'
    server.set_route("/api/approve/first", body=b"ok")
    server.set_route("/api/approve/again", body=b"ok")

    outcome = await replay(server, store, sessions, desk(wire=hover))

    error = outcome.error
    assert error is not None
    assert error.code == "SR_REPLAY_UI_TARGET_REPLACED"
    assert error.action_id == "a3"
    assert approvals(server) == []


SHADOW = """<!doctype html><html><head><title>Desk</title></head><body><main>
<approve-row id="row"></approve-row><p id="result"></p></main>
<script>
BUTTON
customElements.define("approve-row", class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({mode: "open"});
    let drawn = 0;
    const redraw = (label) => {
      drawn += 1;
      const button = approveButton(label);
      WIRE
      root.replaceChildren(button);
    };
    redraw("first");
  }
});
</script></body></html>"""


async def test_a_button_redrawn_inside_a_shadow_root_is_found_again(
    server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    """The redraw happens inside the component's shadow root, which an observer of the document
    does not see: the shadow roots around the marked element are watched too. Recorded by the real
    recorder (its selectors pierce the shadow root), on the page before it redrew on hover."""
    shadow = SHADOW.replace("BUTTON", BUTTON)
    server.set_page("/row", shadow.replace("WIRE", ""))
    automation = tmp_path / "a.json"
    automation.write_text(json.dumps({"steps": [{"do": "click", "selector": "approve-row button"}]}))
    server.set_route("/api/approve/first", body=b"ok")
    server.set_route("/api/approve/second", body=b"ok")
    result = await record_skill(
        store, RecordRequest(name="row", url=server.url("/row"), automation=automation)
    )
    assert [a.kind for a in result.entry.draft.actions] == ["navigate", "click"]
    store.update(
        "row", lambda e: approve(e, "reviewer", utc_now()), AuditNote(kind="review", reviewer="reviewer")
    )
    hover = 'button.addEventListener("mouseover", () => { if (drawn === 1) redraw("second"); });'
    server.set_page("/row", shadow.replace("WIRE", hover))
    server.requests.clear()

    outcome = await replay_skill(store, ReplayRequest(name="row", inputs={}), session_factory=sessions)

    assert outcome.error is None, outcome.error
    assert approvals(server) == ["/api/approve/second"]


FORM = """<!doctype html><html><head><title>Profile</title></head><body><main>
<div id="box"><label for="name">Name</label><input id="name" name="name"></div>
<button id="save" type="button">Save</button><p id="result"></p></main>
<script>
let swapped = false;
document.getElementById("name").addEventListener("focus", () => {
  if (swapped) return;
  swapped = true;  // a component that swaps in its editing field when focused, and focuses it
  const field = document.createElement("input");
  field.id = "name";
  field.name = "name";
  document.getElementById("name").replaceWith(field);
  field.focus();
});
document.getElementById("save").onclick = async () => {
  const value = document.getElementById("name").value;
  await fetch("/api/save?name=" + encodeURIComponent(value), {method: "POST"});
  document.getElementById("result").textContent = "Saved " + value;
};
</script></body></html>"""


async def replay_profile(
    server: LocalServer, store: Store, sessions: WarmSessions, recorded: str, live: str, *, check_result: bool
) -> ReplayOutcome:
    """Record on ``recorded`` (type a name, save, with ``check_result`` assert the saved text),
    replay on ``live`` with the name "Ada Lovelace"."""
    bundles = await describe_url(
        server, "/profile", recorded, {"name": "#name", "save": "#save", "result": "#result"}
    )
    server.set_page("/profile", live)
    server.set_route("/api/save", body=b"ok")
    url = server.url("/profile")
    actions: list[Action] = [
        NavigateAction(id="a1", url=url),
        TypeAction(id="a2", target=bundles["name"], value=ParameterRef(name="name")),
        ClickAction(id="a3", target=bundles["save"]),
    ]
    if check_result:
        saved = "Saved Ada Lovelace"
        actions.append(AssertAction(id="a4", check="text_equals", target=bundles["result"], expected=saved))
    store_approved(store, build_draft("profile", url_environment(url), actions))
    return await replay_skill(
        store, ReplayRequest(name="profile", inputs={"name": "Ada Lovelace"}), session_factory=sessions
    )


async def test_a_field_swapped_in_when_focused_is_typed_into_once(
    server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    """Typing focuses the field, and the page swaps in a new one: nothing typed had reached the page
    when the old field left it, so the step types into the new field. Typing made again leaves the
    same value: the saved name is exactly the input, not doubled."""
    recorded = FORM.replace("if (swapped) return;", "return;")
    outcome = await replay_profile(server, store, sessions, recorded, FORM, check_result=True)

    assert outcome.error is None, outcome.error
    saved = [path for method, path in server.requests if method == "POST"]
    assert saved == ["/api/save?name=Ada%20Lovelace"]


SWAP_AFTER_INPUT = """<!doctype html><html><head><title>Profile</title></head><body><main>
<div id="box"><label for="name">Name</label><input id="name" name="name"></div>
<button id="save" type="button">Save</button><p id="result"></p></main>
<script>
// a form re-rendered from the server's answer to each input: a new field, holding what it keeps
function wire(field) {
  field.addEventListener("input", () => {
    setTimeout(() => {
      const copy = document.createElement("input");
      copy.id = "name";
      copy.name = "name";
      copy.value = (KEEP)(field.value);
      wire(copy);
      field.replaceWith(copy);
    }, 0);
  });
}
wire(document.getElementById("name"));
document.getElementById("save").onclick = async () => {
  const value = document.getElementById("name").value;
  await fetch("/api/save?name=" + encodeURIComponent(value), {method: "POST"});
  document.getElementById("result").textContent = "Saved " + value;
};
</script></body></html>"""


@pytest.mark.parametrize(("keep", "holds"), [("(v) => v", True), ("(v) => v.toUpperCase()", False)])
async def test_a_field_swapped_after_the_input_is_verified_where_it_is_found_again(
    keep: str, holds: bool, server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    """The page replaces the field once the text reached it (the field typed into is gone when the
    step verifies): the field found again, exactly as recorded, must hold the input. Before, the
    step failed verifying the node that had left the page, although the new field held the input."""
    recorded = SWAP_AFTER_INPUT.replace("KEEP", "(v) => v")
    live = SWAP_AFTER_INPUT.replace("KEEP", keep)
    outcome = await replay_profile(server, store, sessions, recorded, live, check_result=False)

    saved = [path for method, path in server.requests if method == "POST"]
    if holds:
        assert outcome.error is None, outcome.error
        assert saved == ["/api/save?name=Ada%20Lovelace"]
    else:
        assert outcome.error is not None
        assert (outcome.error.code, outcome.error.action_id) == ("SR_REPLAY_UI_ACTION_FAILED", "a2")
        assert "Ada" not in outcome.error.message
        assert saved == []
