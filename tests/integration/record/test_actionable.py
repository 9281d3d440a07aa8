"""The scripted driver acts as Playwright's actionability checks do (issue 28, point 6), in real
Chromium on local pages: a row re-rendered every few milliseconds while it is clicked (20
recordings, none lost), a listbox that slides in and an overlay that fades out before the target
can be clicked, a click that opens another page followed at once by an ``extract`` of it, a
``select`` of the option already selected (a warning), and the true cause of each failure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillreel.errors import SkillreelError
from skillreel.model.actions import ClickAction, ExtractAction
from skillreel.record import actionability
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.store import Store
from tests.integration.record.rig import page_html
from tests.support.cli import run_cli
from tests.support.narrow import narrow
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser]

# Every 4 ms the table body is rebuilt from the same markup: the row clicked is always a new element.
LIVE = page_html("""
<table><tbody id=rows></tbody></table>
<p id=out>none</p>
<script>
const body = document.querySelector("#rows");
const render = () => {
  body.innerHTML = [1, 2, 3, 4, 5].map(
    (n) => `<tr><td>Row ${n}</td><td><button class=open data-n=${n}>Open ${n}</button></td></tr>`
  ).join("");
};
render();
setInterval(render, 4);
document.addEventListener("click", (e) => {
  const b = e.target.closest("button.open");
  if (b) document.querySelector("#out").textContent = "Opened " + b.dataset.n;
});
</script>
""")

# A listbox that slides in (a CSS transition) after its button is pressed; an overlay over the page
# that fades out (still covering it) before it is removed.
ANIMATED = page_html(
    """
<div id=veil></div>
<button id=menu>Choose</button>
<ul id=list role=listbox hidden>
  <li role=option id=a>Alpha</li><li role=option id=b>Beta</li><li role=option id=c>Gamma</li>
</ul>
<p id=out>none</p>
<script>
const veil = document.querySelector("#veil");
setTimeout(() => { veil.style.opacity = "0"; }, 50);
veil.addEventListener("transitionend", () => veil.remove());
const list = document.querySelector("#list");
document.querySelector("#menu").addEventListener("click", () => {
  list.hidden = false;
  requestAnimationFrame(() => requestAnimationFrame(() => list.classList.add("open")));
});
list.addEventListener("click", (e) => {
  const o = e.target.closest("[role=option]");
  if (o) document.querySelector("#out").textContent = "Chose " + o.id;
});
</script>
""",
    head="""<style>
#veil { position: fixed; inset: 0; background: #000; z-index: 10; transition: opacity 400ms linear; }
#list { position: absolute; top: 40px; left: 0; margin: 0; padding: 0; list-style: none;
        transform: translateY(300px); transition: transform 400ms linear; }
#list.open { transform: translateY(0); }
#list li { height: 30px; width: 120px; }
</style>""",
)


def _write(path: Path, steps: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"steps": steps}))
    return path


async def _record(home: Path, name: str, url: str, script: Path, timeout_ms: int = 5_000) -> Any:
    with Store.open(home) as store:
        return await record_skill(
            store, RecordRequest(name=name, url=url, automation=script, timeout_ms=timeout_ms)
        )


@pytest.mark.slow
async def test_a_row_re_rendered_while_it_is_clicked_is_never_lost(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    """Fails before issue 28: the click met a detached element and the recording was lost as
    "the browser went away"."""
    server.set_page("/live", LIVE)
    script = _write(
        tmp_path / "a.json",
        [
            {"do": "click", "selector": "#rows tr:nth-child(3) button.open"},
            {"do": "extract", "selector": "#out", "as": "opened"},
        ],
    )
    lost = []
    for attempt in range(20):
        try:
            result = await _record(skillreel_home, f"live-{attempt}", server.url("/live"), script, 1_500)
        except SkillreelError as exc:
            lost.append(exc.code)
            continue
        kinds = [a.kind for a in result.entry.draft.actions]
        assert kinds == ["navigate", "click", "extract"], kinds
        assert result.warnings == ()
    assert lost == []


async def test_a_sliding_listbox_and_a_fading_overlay_are_waited_out(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    """Fails before issue 28: the first click hit the fading overlay, the second the wrong option
    (the centre of a box still sliding in)."""
    server.set_page("/animated", ANIMATED)
    script = _write(
        tmp_path / "a.json",
        [
            {"do": "click", "selector": "#menu"},
            {"do": "click", "selector": "#b"},
            {"do": "extract", "selector": "#out", "as": "chose", "pattern": "Chose ([a-z])"},
        ],
    )
    result = await _record(skillreel_home, "animated", server.url("/animated"), script)
    draft = result.entry.draft
    assert [a.kind for a in draft.actions] == ["navigate", "click", "click", "extract"]
    assert result.warnings == ()
    # the second click is on option b, not on whatever the sliding list had under that point
    b = narrow(ClickAction, draft.actions[2]).target.candidates
    assert any("#b" in c.selector for c in b), [c.selector for c in b]


async def test_a_click_that_opens_another_page_then_an_extract_of_it(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    """Fails before issue 28: the extract ran while the new page loaded ("the page went away")."""
    server.set_page("/list", page_html('<a id=go href="/detail">Order 7</a>'))
    server.set_route("/detail", body=page_html("<h1 id=total>Total 42</h1>").encode(), delay_s=0.3)
    server.routes["/detail"].headers["Content-Type"] = "text/html"
    script = _write(
        tmp_path / "a.json",
        [
            {"do": "click", "selector": "#go"},
            {"do": "extract", "selector": "#total", "as": "total", "pattern": "Total ([0-9]+)"},
        ],
    )
    result = await _record(skillreel_home, "open-detail", server.url("/list"), script)
    actions = result.entry.draft.actions
    assert [a.kind for a in actions] == ["navigate", "click", "extract"]
    assert narrow(ExtractAction, actions[2]).output == "total"


async def test_a_select_of_the_option_already_selected_is_a_warning(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    server.set_page(
        "/form",
        page_html(
            "<select id=s><option value=a selected>A</option><option value=b>B</option></select>"
            "<button id=b>Go</button>"
        ),
    )
    script = _write(
        tmp_path / "a.json",
        [{"do": "select", "selector": "#s", "value": "a"}, {"do": "click", "selector": "#b"}],
    )
    result = await _record(skillreel_home, "same-option", server.url("/form"), script)
    assert result.warnings == (
        "automation step 1 (select): its option was already selected; nothing was recorded",
    )
    assert result.to_json()["warnings"] == list(result.warnings)


async def test_a_covered_element_times_out_naming_what_it_waited_for(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    server.set_page(
        "/covered",
        page_html('<button id=b>Go</button><div style="position:fixed;inset:0;background:#fff"></div>'),
    )
    script = _write(tmp_path / "a.json", [{"do": "click", "selector": "#b"}])
    with pytest.raises(SkillreelError) as info:
        await _record(skillreel_home, "covered", server.url("/covered"), script, timeout_ms=600)
    assert info.value.code == "SR_RECORD_TARGET_NOT_ACTIONABLE"
    assert info.value.message.startswith("automation step 1 (click): ")
    assert "covered" in info.value.message
    assert info.value.details["step"] == 1


async def test_an_element_replaced_more_times_than_allowed_is_its_own_cause(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    """A Playwright (non-CSS) selector is checked through a handle: on a page that replaces the
    row every 4 ms the handle is always stale, and the step fails as replaced, naming the step."""
    server.set_page("/live", LIVE)
    script = _write(tmp_path / "a.json", [{"do": "click", "selector": "#rows button.open >> nth=2"}])
    with pytest.raises(SkillreelError) as info:
        await _record(skillreel_home, "replaced", server.url("/live"), script, 3_000)
    assert info.value.code == "SR_RECORD_TARGET_REPLACED"
    assert info.value.message.startswith("automation step 1 (click): the page replaced its element 6 times")


async def test_a_page_that_dies_mid_step_is_a_capture_failure_naming_the_step(
    tmp_path: Path, skillreel_home: Path, server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a page or browser that really went away is ``SR_RECORD_CAPTURE_FAILED``, and it names
    the step it was performing; what was captured before is kept."""
    server.set_page("/close", page_html("<button id=a>A</button><button id=b>B</button>"))
    pressed = []
    real_press = actionability.press_at

    async def press_then_die(page: Any, x: float, y: float) -> None:
        pressed.append((x, y))
        if len(pressed) == 2:
            await page.close()
            return
        await real_press(page, x, y)

    monkeypatch.setattr("skillreel.record.actionability.press_at", press_then_die)
    script = _write(
        tmp_path / "a.json", [{"do": "click", "selector": "#a"}, {"do": "click", "selector": "#b"}]
    )
    with pytest.raises(SkillreelError) as info:
        await _record(skillreel_home, "closing", server.url("/close"), script)
    assert info.value.code == "SR_RECORD_CAPTURE_FAILED"
    assert info.value.message.startswith("automation step 2 (click): "), info.value.message
    assert info.value.details["kept"] == {"events": 2, "stepsDone": 1}


async def test_a_checkbox_under_its_skin_is_clicked_through_its_label(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    """A styled checkbox: the input lies under the skin drawn by its label, so the label is what is
    hit at its centre; a click there reaches the input (as Playwright's hit-target check allows)."""
    server.set_page(
        "/skin",
        page_html(
            '<label style="position:relative;display:inline-block;width:40px;height:40px">'
            '<input type=checkbox id=c style="position:absolute;left:10px;top:10px;margin:0;opacity:0">'
            '<span style="position:absolute;inset:0;background:#ccc"></span></label>'
        ),
    )
    script = _write(
        tmp_path / "a.json",
        [{"do": "click", "selector": "#c"}, {"do": "wait", "selector": "#c:checked"}],
    )
    result = await _record(skillreel_home, "skin", server.url("/skin"), script, 1_500)
    assert "click" in [a.kind for a in result.entry.draft.actions]


def test_the_cli_prints_the_warnings(tmp_path: Path, skillreel_home: Path, server: LocalServer) -> None:
    server.set_page(
        "/form",
        page_html("<select id=s><option value=a selected>A</option></select><button id=b>Go</button>"),
    )
    script = _write(
        tmp_path / "a.json",
        [{"do": "select", "selector": "#s", "value": "a"}, {"do": "click", "selector": "#b"}],
    )
    result = run_cli("record", "warned", "--url", server.url("/form"), "--automation", str(script))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "warning: automation step 1 (select): its option was already selected" in result.stdout
