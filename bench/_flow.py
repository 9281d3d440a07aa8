"""The issue-14 reference flow, shared by the replay benchmarks: 18 actions over 4 pages.

    /login    type user, type password (sensitive), click "Sign in" (a form POST: a navigation)
    /search   type a customer, choose a status, press Enter (a fetch, then the results render),
              click the result link (it exists only once the fetch answered: a navigation)
    /invoice  type an amount and a note, tick a box, choose a method, click "Continue"
              (a script sets location: a navigation)
    /confirm  type a code and a comment, click "Confirm" (a POST fetch, then the page changes),
              observe the confirmation, assert its text

The pages are served by ``tests/server.LocalServer`` on 127.0.0.1. The skill is built the way the
recorder would describe the elements (``locate_script()`` evaluated on the live pages), approved, and
stored in a real store. ``bench/_flow_baseline.py`` is the hand-written Playwright equivalent (it
imports nothing of skillreel, so it also runs as a process of its own).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _flow_baseline import baseline_steps, chromium_args, inputs  # noqa: F401 - shared with the benches
from tests.support.factory import SALT, events_log, url_environment
from tests.support.server import LocalServer

NAME = "pay-invoice"
PASSWORD = "correct horse battery staple"
PASSWORD_ENV = "SKILLREEL_SECRET_PAY_INVOICE_PASSWORD"

_HEAD = '<!doctype html><html><head><meta charset="utf-8"><title>{}</title></head><body><main>'
_TAIL = "</main></body></html>"

LOGIN = (
    _HEAD.format("Sign in")
    + '<h1>Sign in</h1><form id="login" method="post" action="/search">'
    + '<label for="user">User name</label><input id="user" name="user" autocomplete="username">'
    + '<label for="password">Password</label><input id="password" name="password" type="password">'
    + '<button type="submit">Sign in</button></form>'
    + _TAIL
)

SEARCH = (
    _HEAD.format("Invoices")
    + '<h1>Invoices</h1><form id="find"><label for="q">Customer</label><input id="q" name="q">'
    + '<label for="status">Status</label><select id="status" name="status">'
    + '<option value="open">Open</option><option value="paid">Paid</option>'
    + '<option value="all">All</option></select></form><ul id="results"></ul>'
    + """<script>
document.getElementById("find").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const reply = await fetch("/api/search?q=" + encodeURIComponent(form.q.value) + "&s=" + form.status.value);
  const rows = await reply.json();
  const list = document.getElementById("results");
  list.replaceChildren();
  for (const row of rows) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = "/invoice?id=" + row.id;
    link.className = "open-invoice";
    link.textContent = "Open invoice " + row.number;
    item.append(link);
    list.append(item);
  }
});
</script>"""
    + _TAIL
)

INVOICE = (
    _HEAD.format("Invoice")
    + '<h1>Invoice INV-2077</h1><form id="pay">'
    + '<label for="amount">Amount</label><input id="amount" name="amount" inputmode="decimal">'
    + '<label for="note">Note</label><textarea id="note" name="note"></textarea>'
    + '<label><input id="urgent" name="urgent" type="checkbox"> Urgent</label>'
    + '<label for="method">Method</label><select id="method" name="method">'
    + '<option value="sepa">SEPA transfer</option><option value="card">Card</option>'
    + '<option value="cheque">Cheque</option></select>'
    + '<button id="continue" type="button" onclick="location.href=\'/confirm\'">Continue</button>'
    + "</form>"
    + _TAIL
)

CONFIRM = (
    _HEAD.format("Confirm")
    + '<h1>Confirm the payment</h1><form id="confirm">'
    + '<label for="code">Confirmation code</label><input id="code" name="code">'
    + '<label for="comment">Comment</label><input id="comment" name="comment">'
    + '<button id="confirm-button" type="button">Confirm</button></form>'
    + '<p id="done" hidden></p>'
    + """<script>
document.getElementById("confirm-button").addEventListener("click", async () => {
  const form = document.getElementById("confirm");
  const reply = await fetch("/api/confirm", {method: "POST", body: new FormData(form)});
  const answer = await reply.json();
  const done = document.getElementById("done");
  done.textContent = "Payment " + answer.state;
  done.hidden = false;
});
</script>"""
    + _TAIL
)

# The elements each action uses, per page, as CSS (the recorder describes these elements).
TARGETS = {
    "/login": {"user": "#user", "password": "#password", "sign_in": "button[type=submit]"},
    "/search": {"q": "#q", "status": "#status", "result": "a.open-invoice"},
    "/invoice": {
        "amount": "#amount",
        "note": "#note",
        "urgent": "#urgent",
        "method": "#method",
        "continue": "#continue",
    },
    "/confirm": {"code": "#code", "comment": "#comment", "confirm": "#confirm-button", "done": "#done"},
}


def start_server() -> LocalServer:
    server = LocalServer()
    server.start()
    server.set_page("/login", LOGIN)
    server.set_page("/search", SEARCH)
    server.set_page("/invoice", INVOICE)
    server.set_page("/confirm", CONFIRM)
    json_type = {"Content-Type": "application/json"}
    server.set_route("/api/search", body=b'[{"id": 2077, "number": "INV-2077"}]', headers=json_type)
    server.set_route("/api/confirm", body=b'{"state": "scheduled"}', headers=json_type)
    return server


# ---- the skill ------------------------------------------------------------------------------------

_DESCRIBE = """([src, salt, selectors]) => {
  const L = (0, eval)(src + "\\n;SkillreelLocate");
  const out = {};
  for (const [key, selector] of Object.entries(selectors)) {
    const found = document.querySelectorAll(selector);
    if (found.length !== 1) throw new Error("not exactly one element for " + key);
    out[key] = L.describe(found[0], salt);
  }
  return out;
}"""


async def describe_flow(server: LocalServer) -> dict[str, Any]:
    """Every target's locator bundle, described on the live pages as the recorder would."""
    from skillreel.locate import locate_script
    from skillreel.model.locators import LocatorBundle
    from skillreel.sandbox.cold import browser_session

    found: dict[str, Any] = {}

    async def describe(page: Any, path: str) -> None:
        data = await page.evaluate(_DESCRIBE, [locate_script(), SALT, TARGETS[path]])
        found.update({key: LocatorBundle.parse(value) for key, value in data.items()})

    async with browser_session(url_environment(server.url("/login"))) as session:
        page = session.page
        await session.goto_start()
        await describe(page, "/login")
        await page.fill("#user", "someone")
        await page.click("button[type=submit]")
        await page.wait_for_load_state("load")
        await page.fill("#q", "x")
        await page.press("#q", "Enter")
        await page.wait_for_selector("a.open-invoice")
        await describe(page, "/search")
        await page.click("a.open-invoice")
        await page.wait_for_load_state("load")
        await describe(page, "/invoice")
        await page.click("#continue")
        await page.wait_for_load_state("load")
        await describe(page, "/confirm")
    return found


async def store_skill(server: LocalServer, home: Path) -> None:
    """Put the approved skill into the store at ``home``."""
    from skillreel.model.actions import (
        Action,
        AssertAction,
        ClickAction,
        NavigateAction,
        ObserveAction,
        PressAction,
        SelectAction,
        TypeAction,
        capability_manifest,
        parameter_refs,
    )
    from skillreel.model.draft import Draft, Parameter
    from skillreel.model.lifecycle import approve, new_entry
    from skillreel.model.refs import ParameterRef
    from skillreel.store import AuditNote, Store, utc_now

    b = await describe_flow(server)

    def typed(n: int, key: str) -> TypeAction:
        return TypeAction(id=f"a{n}", target=b[key], value=ParameterRef(name=key))

    actions: list[Action] = [
        NavigateAction(id="a1", url=server.url("/login"), reason="start"),
        typed(2, "user"),
        typed(3, "password"),
        ClickAction(id="a4", target=b["sign_in"]),
        typed(5, "q"),
        SelectAction(id="a6", target=b["status"], value=ParameterRef(name="status")),
        PressAction(id="a7", key="Enter", target=b["q"]),
        ClickAction(id="a8", target=b["result"]),
        typed(9, "amount"),
        typed(10, "note"),
        ClickAction(id="a11", target=b["urgent"]),
        SelectAction(id="a12", target=b["method"], value=ParameterRef(name="method")),
        ClickAction(id="a13", target=b["continue"]),
        typed(14, "code"),
        typed(15, "comment"),
        ClickAction(id="a16", target=b["confirm"]),
        ObserveAction(id="a17", target=b["done"]),
        AssertAction(id="a18", check="text_contains", target=b["done"], expected="scheduled"),
    ]
    params = tuple(Parameter(name=p, sensitive=p == "password") for p in parameter_refs(actions))
    draft = Draft.build(
        name=NAME,
        description="Pay one invoice (benchmark flow: 18 actions over 4 pages).",
        actions=tuple(actions),
        parameters=params,
        capabilities=capability_manifest(actions),
        failure_conditions=(),
        environment=url_environment(server.url("/login")),
        fingerprint_salt=SALT,
        events_digest=events_log().events_digest,
    )
    now = utc_now()
    with Store.open(home) as store:
        store.insert(new_entry(draft, events_log(), now), AuditNote(kind="record"))
        store.update(NAME, lambda e: approve(e, "bench", now), AuditNote(kind="review", reviewer="bench"))
