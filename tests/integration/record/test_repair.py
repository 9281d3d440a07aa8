"""Repair one step by showing it (issue 32 point 5), in real Chromium on a local server.

A 5-step skill (start, type the name, Next, Pay, wait for the receipt) whose Pay button is renamed
on version B of the page: the approved revision fails closed on B. ``record --from-step a4`` with an
automation file for the tail replays a1-a3 once (the server counts Next's side effect once) and
records the rest on B: the new draft keeps a1-a3 byte for byte and replays right on B once
approved. ``--only-step a4`` re-points that step with a pick. A prefix that fails stores nothing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from skillreel.errors import SkillreelError
from skillreel.services.diffing import diff_skill
from skillreel.services.preflight import ReplayRequest
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.repairing import RepairRequest, plan_repair, repair_skill
from skillreel.services.replaying import replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.integration.record.rig import page_html
from tests.support.cli import run_cli
from tests.support.server import LocalServer

NAME = "Ada Lovelace"
SCRIPT = """
<script>
  const log = (step) => fetch('/log?step=' + step);
  document.querySelector('#next').onclick = () => {
    log('next'); document.querySelector('#payment').hidden = false;
  };
  document.querySelector('#payment button').onclick = (e) => {
    log(e.target.id); document.querySelector('#done').textContent = 'Paid';
  };
</script>
"""
FORM = (
    "<label for=name>Name</label><input id=name name=name>"
    "<button id=next type=button>Next</button>"
    "<section id=payment hidden>{button}</section><p id=done></p>"
)
VERSION_A = page_html(FORM.format(button="<button id=pay type=button>Pay</button>") + SCRIPT)
VERSION_B = page_html(
    FORM.format(button='<button id=confirm class="wide primary" type=button>Confirm and send</button>')
    + SCRIPT
)
RECORDED = [
    {"do": "type", "selector": "#name", "text": NAME},
    {"do": "click", "selector": "#next"},
    {"do": "click", "selector": "#pay"},
    {"do": "wait", "selector": "#done:not(:empty)"},
]
TAIL = [
    {"do": "click", "selector": "#confirm"},
    {"do": "wait", "selector": "#done:not(:empty)"},
]


def _script(tmp_path: Path, name: str, steps: list[dict[str, str]]) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"steps": steps}))
    return path


def _hits(server: LocalServer) -> list[str]:
    return [
        parse_qs(urlsplit(path).query)["step"][0] for _, path in server.requests if path.startswith("/log")
    ]


async def _approved_on_a(server: LocalServer, store: Store, tmp_path: Path) -> str:
    """Record the skill on version A, approve it; the name of its parameter."""
    server.set_route("/log", body=b"ok")
    server.set_page("/form", VERSION_A)
    script = _script(tmp_path, "recorded", RECORDED)
    result = await record_skill(store, RecordRequest(name="pay", url=server.url("/form"), automation=script))
    draft = result.entry.draft
    assert [a.id for a in draft.actions] == ["a1", "a2", "a3", "a4", "a5"]
    assert [a.kind for a in draft.actions] == ["navigate", "type", "click", "click", "wait"]
    review_skill(store, "pay", "alice", approve=True, expected_revision=1)
    return draft.parameters[0].name


async def _replay(store: Store, server: LocalServer, param: str) -> SkillreelError | None:
    server.requests.clear()
    request = ReplayRequest(name="pay", inputs={param: "Grace"}, timeout_ms=3_000)
    outcome = await replay_skill(store, request)
    return outcome.error


@pytest.mark.browser
@pytest.mark.slow
async def test_from_step_keeps_the_approved_steps_and_the_repair_replays_on_version_b(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    with Store.open(skillreel_home) as store:
        param = await _approved_on_a(server, store, tmp_path)
        approved = store.get("pay")
        server.set_page("/form", VERSION_B)
        failed = await _replay(store, server, param)
        assert failed is not None
        assert failed.action_id == "a4"

        tail = _script(tmp_path, "tail", TAIL)
        server.requests.clear()
        request = RepairRequest(
            name="pay", step="a4", inputs={param: NAME}, automation=tail, expected_revision=approved.revision
        )
        plan = plan_repair(store, request)
        assert plan.to_json()["replayed"] == [
            {"id": "a1", "kind": "navigate", "sideEffects": False},
            {"id": "a2", "kind": "type", "sideEffects": True},
            {"id": "a3", "kind": "click", "sideEffects": True},
        ]
        result = await repair_skill(store, plan)
        assert _hits(server) == ["next", "confirm"]  # the prefix's side effect happened once

        entry = result.entry
        assert (entry.revision, entry.status) == (approved.revision + 1, "draft")
        assert entry.approval is None
        kept, new = entry.draft.actions[:3], entry.draft.actions[3:]
        assert [a.to_json() for a in kept] == [a.to_json() for a in approved.draft.actions[:3]]
        assert [(a.id, a.kind) for a in new] == [("a4", "click"), ("a5", "wait")]
        assert new[0].to_json() != approved.draft.actions[3].to_json()
        assert entry.draft.parameters == approved.draft.parameters
        assert entry.draft.fingerprint_salt == approved.draft.fingerprint_salt
        assert (result.kept, result.changed) == (("a1", "a2", "a3"), ("a4", "a5"))

        diff = diff_skill(store, "pay").to_json()  # the approved revision against the new draft
        assert [(s["id"], s["change"]) for s in diff["steps"]] == [("a4", "changed")]
        assert diff["unchangedSteps"] == 4  # a1-a3 kept, a5 (the wait) recorded alike

        review_skill(store, "pay", "alice", approve=True, expected_revision=entry.revision)
        assert await _replay(store, server, param) is None
        assert _hits(server) == ["next", "confirm"]
    stored = b"".join(p.read_bytes() for p in skillreel_home.rglob("*") if p.is_file())
    assert NAME.encode() not in stored
    assert b"Grace" not in stored


@pytest.mark.browser
@pytest.mark.slow
async def test_only_step_re_points_one_step_and_keeps_the_rest(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    with Store.open(skillreel_home) as store:
        param = await _approved_on_a(server, store, tmp_path)
        approved = store.get("pay")
        server.set_page("/form", VERSION_B)
        pick = _script(tmp_path, "pick", [{"do": "pick", "selector": "#confirm"}])
        server.requests.clear()
        plan = plan_repair(
            store, RepairRequest(name="pay", step="a4", only=True, inputs={param: NAME}, automation=pick)
        )
        result = await repair_skill(store, plan)
        assert _hits(server) == ["next"]  # the pick is swallowed: the page never received it

        draft = result.entry.draft
        assert result.entry.status == "draft"
        before = [a.to_json() for a in approved.draft.actions]
        after = [a.to_json() for a in draft.actions]
        assert after[:3] == before[:3]
        assert after[4:] == before[4:]
        assert after[3]["kind"] == "click"
        assert after[3]["id"] == "a4"
        assert after[3]["target"] != before[3]["target"]
        assert result.changed == ("a4",)

        review_skill(store, "pay", "alice", approve=True, expected_revision=result.entry.revision)
        assert await _replay(store, server, param) is None
        assert _hits(server) == ["next", "confirm"]


@pytest.mark.browser
@pytest.mark.slow
async def test_a_prefix_that_fails_stores_nothing(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    with Store.open(skillreel_home) as store:
        param = await _approved_on_a(server, store, tmp_path)
        server.set_page("/form", page_html("<h1>Gone</h1>"))
        tail = _script(tmp_path, "tail", TAIL)
        before = (store.get("pay").to_json(), store.audit_count(), len(store.revisions("pay")))
        plan = plan_repair(
            store,
            RepairRequest(name="pay", step="a4", inputs={param: NAME}, automation=tail, timeout_ms=1_000),
        )
        with pytest.raises(SkillreelError) as info:
            await repair_skill(store, plan)
        assert info.value.code == "SR_RECORD_REPAIR_PREFIX_FAILED"
        assert info.value.action_id == "a2"
        assert (store.get("pay").to_json(), store.audit_count(), len(store.revisions("pay"))) == before


@pytest.mark.browser
@pytest.mark.slow
async def test_the_cli_lists_the_replayed_steps_and_stores_a_draft(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    with Store.open(skillreel_home) as store:
        param = await _approved_on_a(server, store, tmp_path)
        revision = store.get("pay").revision
    server.set_page("/form", VERSION_B)
    tail = _script(tmp_path, "tail", TAIL)
    server.requests.clear()
    args = ("--from-step", "a4", "--input", f"{param}={NAME}", "--automation", str(tail))
    result = await asyncio.to_thread(
        run_cli, "record", "pay", *args, "--expected-revision", str(revision), "--yes", "--json"
    )
    assert result.exit_code == 0, result.stderr
    data = result.data()
    assert (data["revision"], data["status"]) == (revision + 1, "draft")
    assert (data["kept"], data["changed"]) == (["a1", "a2", "a3"], ["a4", "a5"])
    assert "a3    click     may act on the site" in result.stderr
    assert "a1    navigate  reads only" in result.stderr
    assert NAME not in result.stdout + result.stderr
    assert _hits(server) == ["next", "confirm"]


ECHOING = page_html(
    FORM.format(button="<button id=confirm type=button>Confirm</button>")
    + SCRIPT
    + "<script>document.querySelector('#next').addEventListener('click', () => {"
    + "document.querySelector('#confirm').textContent = 'Pay ' + document.querySelector('#name').value;"
    + "});</script>"
)


@pytest.mark.browser
@pytest.mark.slow
async def test_a_new_step_on_what_shows_a_replayed_input_is_not_described_by_it(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    with Store.open(skillreel_home) as store:
        param = await _approved_on_a(server, store, tmp_path)
        server.set_page("/form", ECHOING)  # the new button's name is the value the kept a2 typed
        plan = plan_repair(
            store,
            RepairRequest(
                name="pay", step="a4", inputs={param: NAME}, automation=_script(tmp_path, "tail", TAIL)
            ),
        )
        result = await repair_skill(store, plan)
        # the button shows the value the kept a2 typed: as in a recording, a click on what shows a
        # typed value is never described by that text; no edit of this recording typed it, so a
        # person does that step (never a locator built from the replayed input)
        assert result.entry.draft.actions[3].kind == "human"
