"""A failed recording keeps what it captured and ``record --resume`` completes it (issue 28,
point 6): in real Chromium, a scripted recording that fails at its third step is resumed once
the page is fixed; the stored skill has every step and replays. The bad inputs of ``--resume``
(nothing kept, another target, a changed, oversize or linked kept file) change nothing."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import pytest

from skillreel.errors import SkillreelError
from skillreel.model.environment import Environment, build_url_target
from skillreel.record.kept import KeptRecording, keep, kept_path
from skillreel.services.preflight import ReplayRequest
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.integration.record.rig import page_html
from tests.support import factory
from tests.support.cli import run_cli
from tests.support.server import LocalServer

TYPED = "Canary-Q7xv"
LIST = page_html(
    '<form action="javascript:void 0"><input id=q name=q></form><a id=go href="/detail">Open</a>'
)
BROKEN = page_html("<h1>Invoice</h1>")
FIXED = page_html(
    "<h1>Invoice</h1>"
    "<button id=pay onclick=\"document.querySelector('#done').textContent='Paid'\">Pay</button>"
    "<p id=done></p>"
)
STEPS = [
    {"do": "type", "selector": "#q", "text": TYPED},
    {"do": "click", "selector": "#go"},
    {"do": "click", "selector": "#pay"},
    {"do": "wait", "selector": "#done:not(:empty)"},
    {"do": "extract", "selector": "#done", "as": "done"},
]


@pytest.mark.browser
@pytest.mark.slow
async def test_a_failed_recording_is_resumed_and_the_whole_skill_replays(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    server.set_page("/list", LIST)
    server.set_page("/detail", BROKEN)
    script = tmp_path / "a.json"
    script.write_text(json.dumps({"steps": STEPS}))
    request = RecordRequest(name="pay", url=server.url("/list"), automation=script, timeout_ms=1_000)
    with Store.open(skillreel_home) as store:
        with pytest.raises(SkillreelError) as info:
            await record_skill(store, request)
        error = info.value
        assert error.code == "SR_RECORD_AUTOMATION_FAILED"
        assert error.message.startswith("automation step 3 (click): its selector matches no visible element")
        assert "`skillreel record pay --resume`" in error.message
        assert "skips the 2 automation step(s)" in error.message
        assert error.details["kept"] == {"events": 3, "stepsDone": 2}
        assert store.entries() == []
        kept = kept_path(skillreel_home, "pay")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
        assert TYPED.encode() not in kept.read_bytes()  # nothing typed is kept

        server.set_page("/detail", FIXED)
        result = await record_skill(store, RecordRequest(**{**request.__dict__, "resume": True}))
        actions = result.entry.draft.actions
        assert [a.kind for a in actions] == ["navigate", "type", "click", "click", "wait", "extract"]
        assert [p.name for p in result.entry.draft.parameters] == ["q"]
        assert not kept.exists()  # a success removes what was kept

        review_skill(store, "pay", "alice", approve=True, expected_revision=1)
        outcome = await replay_skill(
            store, ReplayRequest(name="pay", inputs={"q": "other"}, timeout_ms=5_000)
        )
        assert outcome.error is None, outcome.error
        assert outcome.outputs == {"done": "Paid"}
    stored = b"".join(p.read_bytes() for p in skillreel_home.rglob("*") if p.is_file())
    assert TYPED.encode() not in stored


def _kept(name: str, url: str) -> KeptRecording:
    environment = Environment.build(target=build_url_target(url))
    return KeptRecording(
        name=name, environment_digest=environment.environment_digest, page=url, events=factory.events_log(2)
    )


def _resume(home: Path, url: str) -> SkillreelError:
    with Store.open(home) as store, pytest.raises(SkillreelError) as info:
        asyncio.run(record_skill(store, RecordRequest(name="pay", url=url, resume=True)))
    return info.value


URL = "https://app.example.com/list"


def test_resume_with_nothing_kept_is_refused(skillreel_home: Path) -> None:
    error = _resume(skillreel_home, URL)
    assert (error.code, error.exit_status) == ("SR_RECORD_NOTHING_TO_RESUME", 2)
    assert not kept_path(skillreel_home, "pay").exists()


def test_resume_with_another_target_is_refused_and_changes_nothing(skillreel_home: Path) -> None:
    path = keep(skillreel_home, _kept("pay", URL))
    before = path.read_bytes()
    error = _resume(skillreel_home, "https://other.example.com/list")
    assert error.code == "SR_RECORD_RESUME_MISMATCH"
    assert path.read_bytes() == before


@pytest.mark.parametrize("damage", ["edited", "events-edited", "oversize", "symlink", "not-json"])
def test_a_damaged_kept_recording_is_refused_and_changes_nothing(
    skillreel_home: Path, tmp_path: Path, damage: str
) -> None:
    path = keep(skillreel_home, _kept("pay", URL))
    doc = json.loads(path.read_bytes())
    if damage == "edited":
        doc["page"] = "https://app.example.com/elsewhere"
        path.write_text(json.dumps(doc))
    elif damage == "events-edited":
        doc["events"]["events"][1]["type"] = "press"
        path.write_text(json.dumps(doc))
    elif damage == "oversize":
        path.write_bytes(b" " * (32 * 1024 * 1024 + 1))
    elif damage == "symlink":
        other = tmp_path / "elsewhere.json"
        other.write_bytes(path.read_bytes())
        path.unlink()
        path.symlink_to(other)
    else:
        path.write_text("{")
    before = path.read_bytes()
    error = _resume(skillreel_home, URL)
    assert (error.code, error.exit_status) == ("SR_RECORD_KEPT_INVALID", 1)
    assert path.read_bytes() == before
    with Store.open(skillreel_home) as store:
        assert store.entries() == []


def test_the_cli_takes_resume(skillreel_home: Path) -> None:
    result = run_cli("record", "pay", "--url", URL, "--resume", "--json")
    assert result.exit_code == 2
    assert result.json()["error"]["code"] == "SR_RECORD_NOTHING_TO_RESUME"
