"""Leak channels closed at capture: passwords, OTP, show-password, page echo, accessibility names."""

from __future__ import annotations

import json

import pytest

from tests.integration.record.conftest import Rig, click_centre, page_html, type_into

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

LOGIN = page_html("""
<form id=f action="javascript:void 0">
  <input id=user name=user>
  <input id=pw name=pw type=password>
  <input id=newpw name=newpw autocomplete="new-password">
  <input id=pw2 name=pw2 type=password><button type=button id=show
    onclick="document.getElementById('pw2').type = 'text'">show</button>
  <span id=slot><input id=pw3 name=pw3 type=password></span><button type=button id=swap
    onclick="document.getElementById('slot').innerHTML = '<input id=pw3 name=pw3 type=text>'">swap</button>
  <input id=otp name=code autocomplete="one-time-code">
  <input id=d1 maxlength=1 inputmode=numeric><input id=d2 maxlength=1 inputmode=numeric>
  <input id=nick name=nick oninput="
      document.getElementById('echo').textContent = 'Hello ' + this.value;
      document.querySelector('.greet').setAttribute('aria-label', 'Greet ' + this.value);
      document.querySelector('.greet').dataset.testid = 'greet-' + this.value;">
  <p id=echo></p><button type=button name=greet class=greet><span id=greet>greet</span></button>
</form>
""")


def dump(events: object) -> str:
    return json.dumps([e.to_json() for e in events]).lower()  # type: ignore[attr-defined]


async def test_password_values_never_leave_the_page(rig: Rig) -> None:
    async with rig.recording(LOGIN) as run:
        await type_into(run.page, "#user", "plain-user")
        await type_into(run.page, "#pw", "CanaryPwA1")
        await type_into(run.page, "#newpw", "CanaryPwB2")
        capture = await run.capture()
    events = capture.events.events[1:]
    assert [(e.type, e.field.control, e.field.sensitive) for e in events if e.field] == [
        ("input", "text", False),
        ("input", "password", True),
        ("input", "password", True),
    ]
    assert events[1].value_digest is None
    assert events[2].value_digest is None
    assert capture.typed.values() == ("plain-user",)


async def test_a_field_seen_as_password_stays_secret_after_show_password(rig: Rig) -> None:
    async with rig.recording(LOGIN) as run:
        await click_centre(run.page, "#show")  # flipped before it was ever touched
        assert await run.page.get_attribute("#pw2", "type") == "text"
        await type_into(run.page, "#pw2", "CanaryShow3")
        await click_centre(run.page, "#swap")  # the field is replaced by a plain one of that name
        await type_into(run.page, "#pw3", "CanarySwap4")
        capture = await run.capture()
    fields = [e.field for e in capture.events.events if e.field]
    assert [(f.control, f.sensitive) for f in fields] == [("password", True), ("password", True)]
    assert capture.typed.values() == ()
    assert "canary" not in dump(capture.events.events)


async def test_one_time_code_fields_are_human_steps(rig: Rig) -> None:
    async with rig.recording(LOGIN) as run:
        await type_into(run.page, "#otp", "CanaryOtp5")
        await type_into(run.page, "#d1", "7")
        await type_into(run.page, "#d2", "8")
        capture = await run.capture()
    events = capture.events.events[1:]
    assert [(e.type, e.reason) for e in events] == [("human", "otp")] * 3
    assert capture.typed.values() == ()


async def test_page_echo_of_typed_text_is_kept_out_of_locators(rig: Rig) -> None:
    async with rig.recording(LOGIN) as run:
        await type_into(run.page, "#nick", "CanaryEcho6")
        await click_centre(run.page, "#greet")
        assert "CanaryEcho6" in (await run.page.inner_text("#echo"))
        capture = await run.capture()
    click = capture.events.events[-1]
    assert click.type == "click"
    assert click.target is not None
    assert click.target.fingerprint.tag == "button"
    assert "canaryecho6" not in dump(capture.events.events)
    assert [c.strategy for c in click.target.candidates] == ["name", "css"]
