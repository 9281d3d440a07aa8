"""Hover and upload steps (issue 32.1, 32.2) recorded by a scripted demonstration and replayed in
real Chromium on local pages: a CSS ``:hover`` menu and a JavaScript ``mouseenter`` menu, each
replayed on its recorded version and on a redesign; a form that shows the size of the file chosen
for it. Each refusal of a file input comes before anything runs, and neither the file's name nor
its content reaches the store, the audit log or the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillreel.errors import SkillreelError
from skillreel.model.policy import Policy, PolicySettings
from skillreel.services.preflight import ReplayRequest
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.integration.record.rig import scripted
from tests.support.hover_pages import CSS_MENU, CSS_MENU_REDESIGN, JS_MENU, JS_MENU_REDESIGN, page_html
from tests.support.record_replay import record_and_replay
from tests.support.server import LocalServer
from tests.support.uploads import bad_upload
from tests.support.warm import WarmSessions

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HOVER_CASES: dict[str, tuple[str, str, list[dict[str, Any]], str]] = {
    "css-hover": (
        CSS_MENU,
        CSS_MENU_REDESIGN,
        [{"do": "hover", "selector": "#account"}, {"do": "click", "selector": "#refund"}],
        "refund opened",
    ),
    "js-mouseenter": (
        JS_MENU,
        JS_MENU_REDESIGN,
        [{"do": "hover", "selector": "#tools"}, {"do": "click", "selector": "#export"}],
        "export started",
    ),
}
_READ = {"do": "extract", "selector": "#done", "as": "done"}


async def _recorded(
    home: Path, server: LocalServer, tmp_path: Path, sessions: WarmSessions, **kw: Any
) -> Any:
    """:func:`record_and_replay` on a store of its own under ``home``."""
    with Store.open(home) as store:
        return await record_and_replay(server, store, tmp_path, sessions, **kw)


@pytest.mark.parametrize("case", sorted(HOVER_CASES))
async def test_a_hover_menu_is_recorded_and_replayed_on_both_versions(
    case: str, server: LocalServer, skillreel_home: Path, tmp_path: Path, sessions: WarmSessions
) -> None:
    page, redesign, steps, shown = HOVER_CASES[case]
    draft, replayed = await _recorded(
        skillreel_home,
        server,
        tmp_path,
        sessions,
        page=page,
        steps=[*steps, _READ],
        versions=[(page, {}), (redesign, {})],
        name="menu",
    )
    assert [a.kind for a in draft.actions] == ["navigate", "hover", "click", "extract"]
    assert "ui.interact" in draft.capabilities
    for outcome, _ in replayed:
        assert outcome.error is None, outcome.error.to_json()
        assert outcome.outputs == {"done": shown}


async def test_without_a_hover_the_menu_item_is_never_clicked(
    server: LocalServer, skillreel_home: Path, tmp_path: Path, sessions: WarmSessions
) -> None:
    """The hover is what makes the replay work: the click recorded where the menu was always open,
    replayed on the hover menu with no hover step, fails closed on the hidden item (so the test
    above can fail)."""
    always_open = CSS_MENU.replace(".sub{display:none}", ".sub{display:block}")
    _, ((outcome, _),) = await _recorded(
        skillreel_home,
        server,
        tmp_path,
        sessions,
        page=always_open,
        steps=[{"do": "click", "selector": "#refund"}, _READ],
        versions=[(CSS_MENU, {})],
        name="menu",
        timeout_ms=2_000,
    )
    assert outcome.error is not None
    assert outcome.error.code.startswith("SR_REPLAY_UI_")


# ---- upload ---------------------------------------------------------------------------------------

UPLOAD_FORM = page_html(
    "<form id=f onsubmit='return false'><label>Receipt <input type=file name=receipt id=receipt></label>"
    "<button id=send>Send</button></form><p id=size></p><p id=trusted></p>"
    "<script>const r=document.getElementById('receipt');r.addEventListener('change',e=>{"
    "document.getElementById('size').textContent=String(r.files[0].size);"
    "document.getElementById('trusted').textContent=String(e.isTrusted);});</script>"
)
UPLOAD_REDESIGN = (
    UPLOAD_FORM.replace("<form id=f", "<h1>Send a receipt</h1><form id=receipt-form class=card")
    .replace("id=receipt>", "id=receipt-file class=file-pick>")
    .replace("getElementById('receipt')", "getElementById('receipt-file')")
)

SECRET_NAME = "quarterly-zebra-receipt.txt"
SECRET_BODY = b"CONTENT-OF-THE-FILE-7f3a91 " * 10
UPLOAD_STEPS: list[dict[str, Any]] = [
    {"do": "upload", "selector": "#receipt", "file": ""},
    {"do": "extract", "selector": "#size", "as": "size"},
    {"do": "extract", "selector": "#trusted", "as": "trusted"},
]


def _upload_steps(path: Path) -> list[dict[str, Any]]:
    return [{**UPLOAD_STEPS[0], "file": str(path)}, *UPLOAD_STEPS[1:]]


async def _recorded_upload(tmp_path: Path, store: Store) -> Path:
    recorded = tmp_path / "recorded" / SECRET_NAME
    recorded.parent.mkdir()
    recorded.write_bytes(SECRET_BODY)
    html, automation = scripted(tmp_path, UPLOAD_FORM, _upload_steps(recorded))
    await record_skill(store, RecordRequest(name="send-receipt", html_path=html, automation=automation))
    review_skill(store, "send-receipt", "alice", approve=True, expected_revision=1)
    return html


async def test_an_upload_is_recorded_and_replayed_with_the_file_given_at_replay(
    server: LocalServer, tmp_path: Path, skillreel_home: Path, sessions: WarmSessions
) -> None:
    recorded = tmp_path / "recorded" / SECRET_NAME
    recorded.parent.mkdir()
    recorded.write_bytes(SECRET_BODY)
    given = tmp_path / "given" / "another-file.bin"
    given.parent.mkdir()
    given.write_bytes(b"x" * 4321)
    draft, replayed = await _recorded(
        skillreel_home,
        server,
        tmp_path,
        sessions,
        page=UPLOAD_FORM,
        steps=_upload_steps(recorded),
        versions=[(UPLOAD_FORM, {"receipt": f"@{given}"}), (UPLOAD_REDESIGN, {"receipt": f"@{given}"})],
        name="send-receipt",
    )
    assert [a.kind for a in draft.actions] == ["navigate", "upload", "extract", "extract"]
    assert [(p.name, p.type, p.default) for p in draft.parameters] == [("receipt", "file", None)]
    reports = []
    for outcome, _ in replayed:
        assert outcome.error is None, outcome.error.to_json()
        assert outcome.outputs == {"size": "4321", "trusted": "true"}
        assert outcome.report is not None
        reports.append(json.dumps(outcome.report.to_json()))
    automation = tmp_path / "send-receipt-automation.json"
    automation.unlink()  # the test's own file names the path: not skillreel's
    _nothing_of_the_file_kept(skillreel_home, reports, (SECRET_NAME, "another-file", "7f3a91", "given"))


def _nothing_of_the_file_kept(home: Path, reports: list[str], needles: tuple[str, ...]) -> None:
    """No file under the skillreel home (the store, its audit chain) and no report holds any of
    ``needles`` (the recorded and the replayed file's names, the recorded content)."""
    blobs = [p.read_bytes() for p in home.rglob("*") if p.is_file()]
    assert blobs
    for needle in needles:
        for blob in blobs:
            assert needle.encode() not in blob
        for report in reports:
            assert needle not in report


@pytest.mark.parametrize("problem", ["missing", "directory", "symlink", "too-large"])
async def test_a_bad_file_input_is_refused_before_anything_runs(
    problem: str, tmp_path: Path, skillreel_home: Path
) -> None:
    (tmp_path / "bad").mkdir()
    target = bad_upload(tmp_path / "bad", problem)
    with Store.open(skillreel_home) as store:
        html = await _recorded_upload(tmp_path, store)
        runs_before = store.run_count("send-receipt")
        error = await _refusal(
            store, ReplayRequest(name="send-receipt", inputs={"receipt": f"@{target}"}, html_path=html)
        )
        expected = "SR_REPLAY_UPLOAD_TOO_LARGE" if problem == "too-large" else "SR_REPLAY_UPLOAD_REFUSED"
        assert error.code == expected
        assert "file.txt" not in error.message
        assert str(tmp_path) not in error.message
        assert store.run_count("send-receipt") == runs_before  # nothing ran


@pytest.mark.parametrize("where", ["no-policy", "outside", "relative"])
async def test_an_mcp_file_input_must_lie_under_the_policys_upload_dirs(
    where: str, tmp_path: Path, skillreel_home: Path
) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_bytes(b"x")
    inside = allowed / "ok.txt"
    inside.write_bytes(b"y" * 7)
    with Store.open(skillreel_home) as store:
        html = await _recorded_upload(tmp_path, store)
        if where != "no-policy":
            store.set_policy(Policy.from_settings(PolicySettings(upload_dirs=(str(allowed),))))
        path = {"no-policy": str(inside), "outside": str(elsewhere), "relative": "allowed/ok.txt"}[where]
        request = ReplayRequest(
            name="send-receipt", inputs={"receipt": path}, html_path=html, files_from_policy=True
        )
        error = await _refusal(store, request)
        assert error.code == "SR_REPLAY_UPLOAD_OUTSIDE"
        assert "ok.txt" not in error.message
        if where == "outside":  # and a file inside is taken
            request = ReplayRequest(
                name="send-receipt", inputs={"receipt": str(inside)}, html_path=html, files_from_policy=True
            )
            outcome = await replay_skill(store, request)
            assert outcome.error is None, outcome.error.to_json()
            assert outcome.outputs is not None
            assert outcome.outputs["size"] == "7"


async def _refusal(store: Store, request: ReplayRequest) -> SkillreelError:
    """The error a replay refused with (raised by pre-flight, or its outcome's)."""
    try:
        outcome = await replay_skill(store, request)
    except SkillreelError as exc:
        return exc
    assert outcome.error is not None
    assert outcome.run_id is None  # refused before a run was reserved
    return outcome.error
