"""Hostile review of display names in real Chromium (issue 31.1): a page that echoes what was typed
into a button (as typed, upper-case, letter-spaced, base64), names a button by the typed field
(``aria-labelledby``), or shows row data (a customer in a ``div role=row``, a card in a grid, an
e-mail heading, an order number in an ``aria-label``, a token inside a 79-character label) never
gets that name kept in clear: the events log, the planned steps and their intents hold none of it,
while plain chrome ("Sign in") is still named."""

from __future__ import annotations

import base64
import json

import pytest

from skillreel.model.intents import step_intent
from skillreel.record.project import plan
from tests.integration.record.rig import Rig, click_centre, page_html, type_into

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

TYPED = "Mallory Quinn"
B64 = base64.b64encode(TYPED.encode()).decode()
TOKEN = "Zq8sV2mLp0Xy7RtB4nWc"
LONG = "Continue with your saved reference " + TOKEN + " to finish checkout"

PAGE = page_html(f"""
<h1>Customers</h1>
<label for=who>Customer</label>
<input id=who name=who oninput="
  document.getElementById('echo').textContent = this.value;
  document.getElementById('upper').textContent = 'Save ' + this.value.toUpperCase();
  document.getElementById('spaced').textContent = this.value.split('').join(' ');
  document.getElementById('joined').textContent = this.value.replace(' ', '-');
  document.getElementById('b64').textContent = btoa(this.value);">
<button id=signin type=button>Sign in</button>
<button id=echo type=button>Echo</button>
<button id=upper type=button>Upper</button>
<button id=spaced type=button>Spaced</button>
<button id=joined type=button>Joined</button>
<button id=b64 type=button>Encoded</button>
<button id=labelled type=button aria-labelledby=who></button>
<div role=table><div role=row><div role=cell>
  <button id=inrow type=button>Alice Carter</button></div></div></div>
<div role=grid><div role=row><div role=gridcell>
  <button id=card type=button>Bob Stone</button></div></div></div>
<h2 id=mail tabindex=0>mallory.quinn@example.com</h2>
<button id=order type=button aria-label="Order 100345">Open</button>
<button id=long type=button>{LONG}</button>
""")

LEAKS = ["mallory", "quinn", "m a l l", B64.lower(), "alice", "bob stone", "100345", TOKEN.lower()]


async def test_no_echo_token_or_row_data_becomes_a_display_name(hostile_rig: Rig) -> None:
    assert len(LONG) <= 80
    async with hostile_rig.recording(PAGE) as run:
        await type_into(run.page, "#who", TYPED)
        for button in (
            "signin",
            "echo",
            "upper",
            "spaced",
            "joined",
            "b64",
            "labelled",
            "inrow",
            "card",
            "mail",
            "order",
            "long",
        ):
            await click_centre(run.page, f"#{button}")
        capture = await run.capture()
    targets = [e.target for e in capture.events.events[1:] if e.type == "click"]
    shown = {t.display_name for t in targets if t is not None}
    assert "Sign in" in shown  # chrome is named: the screen does not simply drop everything
    kept = json.dumps(sorted(n for n in shown if n)).lower()
    for leak in LEAKS:
        assert leak not in kept, leak
    assert "@" not in kept
    actions = plan(capture.events.events[1:]).actions
    intents = " ".join(step_intent(a, frozenset(), named=True) for a in actions).lower()
    for leak in LEAKS:
        assert leak not in intents, leak
