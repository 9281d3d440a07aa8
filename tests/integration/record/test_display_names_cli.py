"""Readable steps end to end (issue 31.1): ``record --automation`` in real Chromium, then ``show
--json`` and ``show`` name the buttons and fields in clear, so do ``diff``, ``edit``'s editor
document, ``SKILL.md`` and the review page (fetched through its own application, behind its guard);
a sensitive field's label is shown and its value is stored nowhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from skillreel.agent_skills.skill_md import render_skill_md
from skillreel.services.editing import editable
from skillreel.store import Store
from skillreel.ui.app import build_app
from skillreel.ui.guard import Guard
from tests.integration.record.rig import page_html, scripted
from tests.support.cli import run_cli

pytestmark = pytest.mark.browser

PASSWORD = "CanaryPw5z"
FORM = page_html("""
<h1>Sign-up</h1>
<form id=f action="javascript:void 0">
  <label for=email>Email</label><input id=email name=email>
  <label for=pw>Password</label><input id=pw name=pw type=password>
  <label for=plan>Plan</label>
  <select id=plan name=plan><option value=free>Free</option><option value=pro>Pro</option></select>
  <button id=go type=submit>Create account</button>
</form>
""")


def _record(tmp_path: Path) -> None:
    steps = [
        {"do": "type", "selector": "#email", "text": "ann@example.com"},
        {"do": "type", "selector": "#pw", "text": PASSWORD},
        {"do": "select", "selector": "#plan", "value": "pro"},
        {"do": "click", "selector": "#go"},
    ]
    html, automation = scripted(tmp_path, FORM, steps)
    done = run_cli("record", "sign-up", "--html", str(html), "--automation", str(automation), "--json")
    assert done.exit_code == 0, done.stdout + done.stderr


def test_show_skill_md_and_the_review_page_read_the_steps_in_clear(
    tmp_path: Path, skillreel_home: Path
) -> None:
    _record(tmp_path)
    shown = run_cli("show", "sign-up", "--json")
    assert shown.exit_code == 0, shown.stderr
    actions = shown.data()["actions"]
    readable = [
        'type the input `email` into the field "Email"',
        'type the secret input `pw` (from the vault) into the field "Password"',
        'choose the input `plan` in the list "Plan"',
        'click the button "Create account"',
    ]
    assert [a["intent"] for a in actions[1:]] == readable
    assert [a["target"]["displayName"] for a in actions[1:]] == [
        "Email",
        "Password",
        "Plan",
        "Create account",
    ]
    text = run_cli("show", "sign-up")
    assert text.exit_code == 0, text.stderr
    for line in readable:
        assert line in text.stdout
    diff = run_cli("diff", "sign-up")
    assert diff.exit_code == 0, diff.stderr
    assert 'a5 click    added: click the button "Create account"' in diff.stdout
    with Store.open(skillreel_home) as store:
        entry = store.get("sign-up")
        everything = json.dumps([entry.to_json(), entry.events.to_json()])
        listing = editable(store, "sign-up")["steps"]
    assert [s["does"] for s in listing[1:]] == readable  # edit's editor document
    assert PASSWORD not in everything
    assert PASSWORD.lower() not in everything.lower()
    skill_md = render_skill_md(entry, entry.revision)
    assert 'click the button "Create account"' in skill_md
    assert 'into the field "Email"' in skill_md
    guard = Guard(port=8123, token="t" * 32, host_name="r-abc123.localhost")
    with TestClient(build_app(guard, home=skillreel_home), base_url=f"http://{guard.host}") as client:
        assert client.get(f"/?token={guard.token}", follow_redirects=False).status_code == 303
        page = client.get("/skills/sign-up")
    assert page.status_code == 200
    assert "click the button &#34;Create account&#34;" in page.text
    assert "into the field &#34;Email&#34;" in page.text
    assert PASSWORD not in page.text
