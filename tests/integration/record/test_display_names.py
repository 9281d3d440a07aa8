"""Display names captured in real Chromium (issue 31.1): a demonstration given with trusted input
names its buttons and fields in clear, a sensitive field's label is kept and its value never, and
every name that echoes a typed value (a password included, which never leaves the page), looks like
an id, comes from another document than a sensitive value's or chooses a row stays hash-only."""

from __future__ import annotations

import json

import pytest

from skillreel.model.intents import step_intent
from skillreel.record.project import plan
from tests.integration.record.rig import Rig, click_centre, page_html, type_into

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

LOGIN = page_html("""
<h1>Orders</h1>
<form id=f action="javascript:void 0">
  <label for=user>User name</label>
  <input id=user name=user
    oninput="document.getElementById('echo').textContent = 'Continue as ' + this.value">
  <label for=pw>Password</label>
  <input id=pw name=pw type=password
    oninput="document.getElementById('leak').textContent = 'Reveal ' + this.value">
  <button id=signin type=button>Sign  in</button>
  <button id=echo type=button>Continue</button>
  <button id=leak type=button>Reveal</button>
  <button id=hexid type=button>Commit 0123456789abcdef0123456789abcdef01234567</button>
</form>
""")

SEARCH = page_html("""
<label for=q>Search orders</label><input id=q name=q>
<ul id=results><li><a href="#o1">Order 1003</a></li><li><a href="#o2">Order 1004</a></li></ul>
""")


def names(events: list) -> list[tuple[str, str | None]]:  # type: ignore[type-arg]
    return [(e.type, e.target.display_name if e.target else None) for e in events]


async def test_a_demonstration_names_its_chrome_and_never_a_typed_value(rig: Rig) -> None:
    async with rig.recording(LOGIN) as run:
        await type_into(run.page, "#user", "plain-user")
        await type_into(run.page, "#pw", "CanaryPw9x")
        await click_centre(run.page, "#signin")
        await click_centre(run.page, "#echo")  # "Continue as plain-user": echoes a typed value
        await click_centre(run.page, "#leak")  # "Reveal CanaryPw9x": the password, in the page only
        await click_centre(run.page, "#hexid")  # a 40-hex id: high entropy
        capture = await run.capture()
    events = list(capture.events.events[1:])
    assert names(events) == [
        ("input", "User name"),
        ("input", "Password"),  # a sensitive field's label is kept ...
        ("click", "Sign in"),
        ("click", None),
        ("click", None),
        ("click", None),
    ]
    stored = json.dumps(capture.events.to_json()).lower()
    assert "canarypw9x" not in stored  # ... its value never
    assert "plain-user" not in stored
    actions = plan(events).actions
    sensitive = frozenset({"pw"})
    assert [step_intent(a, sensitive, named=True) for a in actions[:3]] == [
        'type the input `user` into the field "User name"',
        'type the secret input `pw` (from the vault) into the field "Password"',
        'click the button "Sign in"',
    ]
    assert step_intent(actions[4], named=True) == "click the button `#leak`"  # hash-only: as before


async def _names_after_next(rig: Rig, first: str, orders: str, password: str | None) -> list[str | None]:
    """The display names of the clicks on #next (in ``first``) and #orders (on the page it opens),
    ``password`` typed into #pw first when given."""
    async with rig.recording(first) as run:
        if password is not None:
            await type_into(run.page, "#pw", password)
        await click_centre(run.page, "#next")
        await run.page.wait_for_url(f"**{orders}")
        await run.page.wait_for_selector("#orders")
        await run.recorder.settle()
        await click_centre(run.page, "#orders")
        events = await run.events()
    return [e.target.display_name for e in events if e.type == "click" and e.target]


async def test_no_name_after_a_sensitive_value_went_into_another_document(rig: Rig) -> None:
    orders = rig.serve(page_html("<button id=orders type=button>Open orders</button>"))
    link = f'<a id=next href="{orders}">Next</a>'
    login = page_html(f"<label for=pw>Password</label><input id=pw name=pw type=password>{link}")
    assert await _names_after_next(rig, login, orders, "CanaryPw7y") == ["Next", None]
    assert await _names_after_next(rig, page_html(link), orders, None) == ["Next", "Open orders"]


async def test_an_element_chosen_by_a_typed_value_keeps_no_name(rig: Rig) -> None:
    async with rig.recording(SEARCH) as run:
        await type_into(run.page, "#q", "1003")
        await click_centre(run.page, "#results li:first-child a")
        events = await run.events()
    (edit, click) = events
    assert edit.target is not None
    assert edit.target.display_name == "Search orders"
    assert click.chosen_by is not None
    assert click.target is not None
    assert click.target.display_name is None


ROWS = page_html("""
<nav><ul><li><a id=nav href="#n">My orders</a></li></ul></nav>
<table><thead><tr><th><button id=sort type=button>Amount</button></th></tr></thead>
<tbody><tr><td><a id=acme href="#a">Acme Corp</a></td></tr>
  <tr><td><a href="#b">Zeta Ltd</a></td></tr></tbody></table>
<ul id=results><li><a id=first href="#r1">Blue widget</a></li><li><a href="#r2">Red widget</a></li></ul>
""")


async def test_rows_and_items_keep_no_name_headers_and_navigation_do(rig: Rig) -> None:
    async with rig.recording(ROWS) as run:
        for selector in ("#nav", "#sort", "#acme", "#first"):
            await click_centre(run.page, selector)
        events = await run.events()
    assert [e.target.display_name for e in events if e.type == "click" and e.target] == [
        "My orders",  # a navigation list is chrome
        "Amount",  # a column header is chrome
        None,  # a table's body row is data
        None,  # an item of a list outside navigation is data
    ]
