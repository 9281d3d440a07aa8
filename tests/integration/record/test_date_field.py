"""A date field a person may type into or pick from a calendar (issue 28: date pickers through
their text input), as Vuetify's and MUI's date fields are built: an editable text input with
``aria-haspopup=dialog`` whose calendar opens on click in a dialog teleported to the end of
``<body>`` (its days are buttons). Typing the date is one ``type`` step whose input is the date, on
the recorded page and on its next version (classes renamed, a wrapper added); a date the field
refuses is typed as given and refused by the page's own check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillreel.store import Store
from tests.integration.record.pickers import build_page
from tests.support.record_replay import record_and_replay
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = [pytest.mark.browser, pytest.mark.slow]

_DATE_FIELD = """
<main class="P-app">WRAP_OPEN<form class="P-form" onsubmit="return false">
  <div class="P-field"><label for="due" class="P-label">Due date</label>
    <input id="due" class="P-input" type="text" placeholder="YYYY-MM-DD" aria-haspopup="dialog"
           autocomplete="off"></div>
  <p style="margin-top:260px"><button type="submit" id="save" class="P-btn">Save</button></p>
</form>WRAP_CLOSE</main>
<script>
COMMON
const input = document.getElementById("due");
let dialog = null;
function closeCalendar() { if (dialog) { dialog.remove(); dialog = null; } }
input.addEventListener("click", () => {  // the calendar, teleported to the end of <body>
  if (dialog) return;
  dialog = document.createElement("div");
  dialog.setAttribute("role", "dialog");
  dialog.className = "P-picker";
  dialog.style.cssText = "position:absolute;left:10px;top:70px;background:#fff";
  dialog.innerHTML = [1, 2, 3, 24].map((d) => `<button type="button" class="P-day">${d}</button>`).join("");
  dialog.querySelectorAll("button").forEach((b) => b.addEventListener("click", () => {
    input.value = "2026-12-" + String(b.textContent).padStart(2, "0");
    closeCalendar();
  }));
  document.body.appendChild(dialog);
});
input.addEventListener("input", closeCalendar);  // typing closes the calendar, as the libraries do
document.getElementById("save").addEventListener("click", () => {
  const ok = /^\\d{4}-\\d{2}-\\d{2}$/.test(input.value);
  log(ok ? "due=" + encodeURIComponent(input.value) : "refused=1");
});
</script>
"""


@pytest.fixture
def store(skillreel_home: Path) -> Any:
    with Store.open() as opened:
        yield opened


async def test_a_date_typed_into_its_field_replays_as_a_typed_input_on_two_versions(
    server: LocalServer, store: Store, tmp_path: Path, sessions: WarmSessions
) -> None:
    """The next version too; a date the field refuses is typed as given, and the page refuses it."""
    steps = [{"do": "type", "selector": "#due", "text": "2026-12-24"}, {"do": "click", "selector": "#save"}]
    versions = [
        (build_page(_DATE_FIELD), {"due": "2027-01-31"}),
        (build_page(_DATE_FIELD, changed=True), {"due": "2027-02-28"}),
        (build_page(_DATE_FIELD, changed=True), {"due": "next week"}),
    ]
    draft, replayed = await record_and_replay(
        server,
        store,
        tmp_path,
        sessions,
        page=build_page(_DATE_FIELD),
        steps=steps,
        versions=versions,
        name="due",
    )
    assert [a.kind for a in draft.actions][-2:] == ["type", "click"]
    assert [p.name for p in draft.parameters] == ["due"]
    for outcome, _ in replayed:
        assert outcome.error is None, outcome.error.to_json()
    assert [log for _, log in replayed] == [
        [{"due": ["2027-01-31"]}],
        [{"due": ["2027-02-28"]}],
        [{"refused": ["1"]}],
    ]
