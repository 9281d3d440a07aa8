"""A typed value shown in page chrome is no row (issue 28, Piccolo Admin's "Back" link).

A single-page admin signs in with a typed user name and then shows it in its top bar. The app shell
(`#app > div`) is a plain div repeated beside a portal div, so "one of like siblings whose text
shows a typed value" fits it: a click on the form's "Back" link was recorded as "the link of the
row that shows the input `username`", and replaying as another user on a page where the shell is
repeated was ambiguous. A row never holds the page's title or navigation: the click keeps its own
identity, recorded and replayed in real Chromium.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillreel.model.actions import ClickAction
from skillreel.services.preflight import ReplayRequest
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.integration.record.rig import page_html
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHELL = """
<div id=app>
  <div>
    <div><div id=nav><h1><a href="#/">Desk</a></h1><span class=user></span></div></div>
    <div class=inner>
      <form id=login action="javascript:void 0"><input name=username><button id=go>Log in</button></form>
      <p><a href="#" id=back>Back</a></p>
      <p id=opened></p>
    </div>
  </div>
  <div>PORTAL</div>
</div>
<script>
document.querySelector("#login").addEventListener("submit", () => {
  document.querySelector(".user").textContent = document.querySelector("[name=username]").value;
});
document.querySelector("#back").addEventListener("click", (e) => {
  e.preventDefault();
  document.querySelector("#opened").textContent = "went back";
});
</script>
"""
ADMIN = page_html(SHELL.replace("PORTAL", ""))
# A second plain div under #app (a portal) now greets the user too.
GREETED = page_html(SHELL.replace("PORTAL", "<p>Welcome back, operator</p>"))
STEPS = [
    {"do": "type", "selector": "[name=username]", "text": "curator"},
    {"do": "click", "selector": "#go"},
    {"do": "click", "selector": "#back"},
    {"do": "extract", "selector": "#opened", "as": "done"},
]


async def test_a_link_beside_the_signed_in_name_is_no_row_chosen_by_it(
    tmp_path: Path, skillreel_home: Path, record_server: LocalServer
) -> None:
    automation = tmp_path / "admin.json"
    automation.write_text(json.dumps({"steps": STEPS}))
    url = record_server.url("/admin")
    record_server.set_page("/admin", ADMIN)
    with Store.open(skillreel_home) as store:
        await record_skill(store, RecordRequest(name="back", url=url, automation=automation))
        review_skill(store, "back", "alice", approve=True, expected_revision=1)
        back = [a for a in store.get("back").draft.actions if isinstance(a, ClickAction)][-1]
        assert back.target.filter is None
        assert getattr(back.target, "row", None) is None
        record_server.set_page("/admin", GREETED)  # two "rows" of #app show the name: one Back link
        request = ReplayRequest(name="back", inputs={"username": "operator"}, url=url, timeout_ms=5_000)
        outcome = await replay_skill(store, request)
        assert outcome.error is None, outcome.error
        assert outcome.outputs == {"done": "went back"}
