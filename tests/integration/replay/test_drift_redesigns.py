"""Everyday redesigns (issue 28): each recorded on version A and replayed on version B of a page
on a loopback URL target, in real Chromium. A person sees the same element on B: the replay finds
it exactly or heals it (with a heal proposal), never acts on another one and never fails closed.
Each has a negative twin where the element really is gone or different: that one fails closed,
with nothing clicked or read.

Clicks report which element was hit (``data-which``, in no fingerprint) to ``/clicked`` on the
server; reads are the replay's outputs. Bundles are described on A as the recorder describes them
(fingerprint.js); extraction and wait targets keep what the recorder keeps of them
(:func:`~skillreel.model.locators.structural` with their identity: caption and unique id).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from skillreel.model.actions import Action, ClickAction, ExtractAction, NavigateAction, WaitAction
from skillreel.model.locators import LocatorBundle, structural
from skillreel.services.replaying import ReplayOutcome, ReplayRequest, replay_skill
from skillreel.store import Store
from tests.support.describe import describe_url
from tests.support.factory import graph_draft, store_approved, url_environment
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

SCRIPT = """<script>
document.addEventListener("click", (event) => {
  const hit = event.target.closest("[data-which]");
  if (hit) fetch("/clicked?which=" + hit.dataset.which);
});
</script>"""

ICONS = """<style>.material-icons, .ms { font-family: 'Material Icons'; font-style: normal; }</style>"""


def page(body: str) -> str:
    return f"<!doctype html><html><head><title>Desk</title>{ICONS}</head><body>{body}{SCRIPT}</body></html>"


@dataclass(frozen=True)
class Case:
    """A page at version A, the element of the step on it (a CSS selector), the step ("click",
    "extract" or "wait"), version B and what B must give: the ``data-which`` clicked or the text
    read (None: fail closed with ``code``)."""

    recorded: str
    selector: str
    step: str
    changed: str
    expected: str | None
    code: str = "SR_REPLAY_UI_TARGET_NOT_FOUND"


OTHER_BUTTONS = (
    '<button type="button" class="link" data-which="forgot">Forgot password</button>'
    '<button type="button" class="link" data-which="create">Create account</button>'
)
LOGIN_A = page(f"""<form class="login"><input name="user" placeholder="User"><div class="actions">
{OTHER_BUTTONS}<button class="btn btn-primary" data-which="login">Log in</button></div></form>""")
LOGIN_B = page(f"""<form class="signin"><input name="user" placeholder="User">
<footer>{OTHER_BUTTONS}<button class="mdc-button mdc-button--raised" data-which="login">
<span class="label">Log in</span><i class="material-icons">arrow_forward</i></button></footer></form>""")
LOGIN_SYMBOLS = page(f"""<form class="signin"><input name="user" placeholder="User">
<footer>{OTHER_BUTTONS}<button class="v-btn" data-which="login">Log in
<span class="ms">login</span></button></footer></form>""")
LOGIN_GONE = page(f"""<form class="signin"><input name="user" placeholder="User">
<footer>{OTHER_BUTTONS}<button class="mdc-button" data-which="logout">Log out
<i class="material-icons">arrow_forward</i></button></footer></form>""")

SIGN_A = page(f"""<form class="auth"><input name="user" placeholder="User">
<div class="row">{OTHER_BUTTONS}<button class="btn" data-which="signin">Sign in</button></div></form>""")
SIGN_B = page(f"""<form class="auth-v2"><input name="user" placeholder="User">
<p class="bar">{OTHER_BUTTONS}
<input type="submit" class="button" value="Sign in" data-which="signin"></p></form>""")
SIGN_UP = page(f"""<form class="auth-v2"><input name="user" placeholder="User">
<p class="bar">{OTHER_BUTTONS}
<input type="submit" class="button" value="Sign up" data-which="signup"></p></form>""")

OPTIONS = "<option>France</option><option>Spain</option>"
SELECT_A = page(f"""<form><div class="f"><label for="country">Country</label>
<select id="country" name="country" data-which="country">{OPTIONS}</select></div>
<div class="f"><label for="lang">Language</label><select id="lang" name="lang" data-which="lang">
<option>French</option></select></div></form>""")
SELECT_B = page(f"""<form><label class="field">Country
<select name="country" data-which="country">{OPTIONS}</select></label><label class="field">Language
<select name="lang" data-which="lang"><option>French</option></select></label></form>""")
SELECT_GONE = page("""<form><label class="field">Region <select name="region" data-which="region">
<option>North</option></select></label><label class="field">Language <select name="lang" data-which="lang">
<option>French</option></select></label></form>""")

BALANCE_A = page("""<main><p>Balance: <span id="balance">$42.00</span></p>
<p>Credit: <span id="credit">$7.00</span></p></main>""")
BALANCE_B = page("""<main><section class="account"><div class="card"><div class="card-body">
<div class="line">Balance: <span id="balance">$42.00</span></div></div></div>
<div class="line">Credit: <span id="credit">$7.00</span></div></section></main>""")
BALANCE_GONE = page("""<main><div class="card"><div class="card-body"><p class="line">Credit:
<span id="credit">$7.00</span></p></div></div></main>""")

TOTALS_A = page("""<main><dl class="summary"><dt>Subtotal</dt><dd id="subtotal">$10.00</dd>
<dt>Tax</dt><dd id="tax">$2.00</dd><dt>Total</dt><dd id="total">$12.00</dd></dl></main>""")
TOTALS_B = page("""<main><section class="totals"><dl>
<div class="line"><dt>Subtotal</dt><dd id="sum-sub">$10.00</dd></div>
<div class="line"><dt>Tax</dt><dd id="sum-tax">$2.00</dd></div>
<div class="line grand"><dt>Total</dt><dd id="sum-total">$12.00</dd></div></dl></section></main>""")
TOTALS_GONE = page("""<main><section class="totals"><dl>
<div class="line"><dt>Subtotal</dt><dd id="sum-sub">$10.00</dd></div>
<div class="line"><dt>Tax</dt><dd id="sum-tax">$2.00</dd></div></dl></section></main>""")


def cards(order: tuple[str, ...], css: str) -> str:
    links = {
        "product": '<a href="#/product/2/" class="{c}" data-which="product">View</a>',
        "category": '<a href="#/category/1/" class="{c}" data-which="category">View</a>',
        "none": '<a href="#" class="{c}" data-which="none">View</a>',
    }
    return "".join(f'<div class="card">{links[k].format(c=css)}</div>' for k in order)


ROUTES_A = page(f'<main class="shop">{cards(("product", "category", "none"), "more")}</main>')
ROUTES_B = page(
    f'<main class="shop-v2"><div class="grid">{cards(("none", "category", "product"), "go")}</div></main>'
)
ROUTES_GONE = page(f'<main class="shop-v2"><div class="grid">{cards(("none", "product"), "go")}</div></main>')

CASES = {
    "icon-ligature-added": Case(LOGIN_A, "[data-which=login]", "click", LOGIN_B, "login"),
    "icon-font-ligature-added": Case(LOGIN_A, "[data-which=login]", "click", LOGIN_SYMBOLS, "login"),
    "icon-ligature-other-button": Case(LOGIN_A, "[data-which=login]", "click", LOGIN_GONE, None),
    "button-became-input-submit": Case(SIGN_A, "[data-which=signin]", "click", SIGN_B, "signin"),
    "button-became-another-input": Case(SIGN_A, "[data-which=signin]", "click", SIGN_UP, None),
    "select-wrapped-in-its-label": Case(SELECT_A, "#country", "click", SELECT_B, "country"),
    "select-wrapped-in-another-label": Case(SELECT_A, "#country", "click", SELECT_GONE, None),
    "unique-id-two-wrappers": Case(BALANCE_A, "#balance", "extract", BALANCE_B, "$42.00"),
    "unique-id-gone": Case(BALANCE_A, "#balance", "extract", BALANCE_GONE, None),
    "dd-id-and-wrapper-changed": Case(TOTALS_A, "#total", "extract", TOTALS_B, "$12.00"),
    "dd-id-and-wrapper-changed-wait": Case(TOTALS_A, "#total", "wait", TOTALS_B, "$12.00"),
    "dd-term-gone": Case(TOTALS_A, "#total", "extract", TOTALS_GONE, None),
    "hash-route-link": Case(ROUTES_A, "[data-which=category]", "click", ROUTES_B, "category"),
    "hash-route-link-gone": Case(ROUTES_A, "[data-which=category]", "click", ROUTES_GONE, None),
}


def clicks(server: LocalServer) -> list[str]:
    found = (parse_qs(urlsplit(p).query) for _, p in server.requests if p.startswith("/clicked"))
    return [q["which"][0] for q in found]


def steps(case: Case, bundle: LocatorBundle, url: str) -> list[Action]:
    start: Action = NavigateAction(id="a1", url=url)
    if case.step == "click":
        return [start, ClickAction(id="a2", target=bundle)]
    target = structural(bundle, identity=True)  # what the recorder keeps of a marked element
    assert target is not None
    read = ExtractAction(id="a3", output="read", target=target)
    if case.step == "wait":
        return [start, WaitAction(id="a2", until="appears", target=target, timeout_ms=3_000), read]
    return [start, read]


async def replayed(server: LocalServer, store: Store, sessions: WarmSessions, case: Case) -> ReplayOutcome:
    (bundle,) = (await describe_url(server, "/desk", case.recorded, {"t": case.selector})).values()
    url = server.url("/desk")
    draft = graph_draft(steps(case, bundle, url), name="desk", environment=url_environment(url))
    store_approved(store, draft)
    server.set_page("/desk", case.changed)
    server.requests.clear()
    request = ReplayRequest(name="desk", inputs={}, heal=True, timeout_ms=4_000)
    return await replay_skill(store, request, session_factory=sessions)


def read_or_clicked(server: LocalServer, outcome: ReplayOutcome) -> Any:
    outputs = dict(outcome.outputs or {})
    if "read" in outputs:
        return outputs["read"]
    hits = clicks(server)
    return hits[0] if hits else None


@pytest.mark.parametrize("name", sorted(CASES))
async def test_an_everyday_redesign_is_found_or_fails_closed(
    name: str, server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    case = CASES[name]
    outcome = await replayed(server, store, sessions, case)
    if case.expected is None:
        assert outcome.error is not None, name
        assert outcome.error.code == case.code, (name, outcome.error.to_json())
        assert clicks(server) == []
        assert not outcome.outputs
        assert store.heal_proposals("desk") == []
        return
    assert outcome.status == "succeeded", (name, outcome.error and outcome.error.to_json())
    assert read_or_clicked(server, outcome) == case.expected
    if case.step == "click":
        assert clicks(server) == [case.expected]
    healed = {s.action_id for s in outcome.steps if s.healed}
    assert outcome.heal_proposed == bool(healed)
    if healed:
        (proposal,) = store.heal_proposals("desk")
        assert set(proposal.healed_actions) == healed
