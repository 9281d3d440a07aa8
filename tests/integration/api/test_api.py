"""``skillreel.api`` in real Chromium beside the real CLI: a skill recorded from an automation file
through the API, approved, replayed through the API and the CLI with the same documents (run ids,
dates and digests of the run aside), listed and shown exactly as ``--json`` prints them, a batch of
rows, and a draft refused by both alike with nothing run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import skillreel.api as sr
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.integration.record.rig import page_html
from tests.support.cli import run_cli

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGE = page_html(
    """
<form id=search action="javascript:void 0"><input id=q name=q><button id=go type=submit>Go</button></form>
<p id=out></p>
<script>
document.querySelector("#search").addEventListener("submit", () => {
  document.querySelector("#out").textContent = "Found " + document.querySelector("#q").value.length;
});
</script>
"""
)
STEPS = [
    {"do": "type", "selector": "#q", "text": "abc"},
    {"do": "click", "selector": "#go"},
    {"do": "wait", "selector": "#out:not(:empty)"},
    {"do": "extract", "selector": "#out", "as": "found", "pattern": "Found ([0-9]+)", "type": "integer"},
]
PER_RUN = ("runId", "reportDigest", "validatedRevision")  # what differs from one run to the next


@pytest.fixture
def page(tmp_path: Path) -> Path:
    html = tmp_path / "page.html"
    html.write_text(PAGE)
    return html


@pytest.fixture
def automation(tmp_path: Path) -> Path:
    path = tmp_path / "steps.json"
    path.write_text(json.dumps({"steps": STEPS}))
    return path


def _ran(document: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in document.items() if k not in PER_RUN}


async def test_record_replay_list_and_show_through_the_api_match_the_cli(
    skillreel_home: Path, page: Path, automation: Path, tmp_path: Path
) -> None:
    recorded = await sr.record("count-chars", automation=automation, html=page)
    assert recorded["name"] == "count-chars"
    assert recorded["revision"] == 1
    assert [p["name"] for p in recorded["parameters"]] == ["q"]
    with Store.open(skillreel_home) as store:
        review_skill(store, "count-chars", "alice", approve=True, expected_revision=1)

    first = await sr.replay("count-chars", {"q": "hi"}, html=page)  # the first success validates
    assert first["validatedRevision"] == first["revision"] + 1
    by_cli = run_cli("replay", "count-chars", "--html", str(page), "--input", "q=hello", "--json")
    assert by_cli.exit_code == 0, by_cli.stderr
    by_api = await sr.replay("count-chars", {"q": "hello"}, html=page)
    assert by_api["outputs"] == {"found": 5}
    assert by_api["status"] == "succeeded"
    assert by_api["runId"] != by_cli.data()["runId"]
    assert _ran(by_api) == _ran(by_cli.data())

    assert await sr.list_skills() == run_cli("list", "--json").data()
    assert await sr.show("count-chars") == run_cli("show", "count-chars", "--json").data()
    first_revision = run_cli("show", "count-chars", "--revision", "1", "--json").data()
    assert await sr.show("count-chars", 1) == first_revision

    rows = tmp_path / "rows.csv"
    rows.write_text("q\nab\nabcdef\n")
    batch = await sr.replay_batch("count-chars", rows, html=page, workers=2)
    assert batch["counts"]["succeeded"] == 2
    assert [r["outputs"] for r in batch["results"]] == [{"found": 2}, {"found": 6}]
    with Store.open(skillreel_home) as store:
        assert store.run_count("count-chars") == 5  # CLI, API twice, two rows: every run recorded


async def test_a_failed_replay_raises_with_the_clis_code_and_document(
    skillreel_home: Path, page: Path, automation: Path, tmp_path: Path
) -> None:
    await sr.record("count-chars", automation=automation, html=page)
    with Store.open(skillreel_home) as store:
        review_skill(store, "count-chars", "alice", approve=True, expected_revision=1)
    other = tmp_path / "other.html"
    other.write_text(page_html("<p>a page without the form</p>"))
    by_cli = run_cli("replay", "count-chars", "--html", str(other), "--input", "q=x", "--json")
    with pytest.raises(sr.ReplayFailed) as caught:
        await sr.replay("count-chars", {"q": "x"}, html=other)
    envelope = by_cli.json()
    assert by_cli.exit_code == caught.value.exit_status
    assert caught.value.error.to_json() == envelope["error"]
    assert _ran(caught.value.result) == _ran(envelope["data"])


def test_a_draft_is_refused_by_the_api_exactly_as_by_the_cli(
    skillreel_home: Path, page: Path, automation: Path
) -> None:
    sr.record_sync("count-chars", automation=automation, html=page)  # recorded, never approved
    by_cli = run_cli("replay", "count-chars", "--html", str(page), "--input", "q=x", "--json")
    with pytest.raises(sr.ReplayFailed) as caught:
        sr.replay_sync("count-chars", {"q": "x"}, html=page)
    envelope = by_cli.json()
    assert envelope["error"]["code"] == "SR_REPLAY_NOT_APPROVED"
    assert caught.value.code == "SR_REPLAY_NOT_APPROVED"
    assert caught.value.error.to_json() == envelope["error"]
    assert caught.value.result == envelope["data"]
    assert by_cli.exit_code == caught.value.exit_status
    with Store.open(skillreel_home) as store:
        assert store.run_count("count-chars") == 0
        assert store.get("count-chars").status == "draft"


SECRET = "s3cret-pin-do-not-store"
PIN_PAGE = page_html(
    """
<form id=login action="javascript:void 0"><input id=pin name=pin type=password>
<button id=go type=submit>Go</button></form>
<p id=out></p>
<script>
document.querySelector("#login").addEventListener("submit", () => {
  document.querySelector("#out").textContent = "Length " + document.querySelector("#pin").value.length;
});
</script>
"""
)
PIN_STEPS = [
    {"do": "type", "selector": "#pin", "text": "0000"},
    {"do": "click", "selector": "#go"},
    {"do": "wait", "selector": "#out:not(:empty)"},
    {"do": "extract", "selector": "#out", "as": "length", "pattern": "Length ([0-9]+)", "type": "integer"},
]


async def test_secrets_reach_the_page_and_nothing_else(skillreel_home: Path, tmp_path: Path) -> None:
    page = tmp_path / "pin.html"
    page.write_text(PIN_PAGE)
    steps = tmp_path / "pin.json"
    steps.write_text(json.dumps({"steps": PIN_STEPS}))
    recorded = await sr.record("pin-length", automation=steps, html=page, sensitive=["pin"])
    assert [(p["name"], p["sensitive"]) for p in recorded["parameters"]] == [("pin", True)]
    with Store.open(skillreel_home) as store:
        review_skill(store, "pin-length", "alice", approve=True, expected_revision=1)
    with pytest.raises(sr.ReplayFailed) as missing:  # neither the vault nor secrets= holds it
        await sr.replay("pin-length", html=page)
    by_cli = run_cli("replay", "pin-length", "--html", str(page), "--json")
    assert missing.value.code == by_cli.json()["error"]["code"]
    result = await sr.replay("pin-length", html=page, secrets={"pin": SECRET})
    assert result["outputs"] == {"length": len(SECRET)}
    with pytest.raises(sr.ReplayFailed) as on_argv:
        await sr.replay("pin-length", {"pin": SECRET}, html=page)
    assert on_argv.value.code == "SR_REPLAY_SENSITIVE_ON_ARGV"
    assert SECRET not in repr(on_argv.value.result)
    assert SECRET not in str(on_argv.value)
    kept = b"".join(p.read_bytes() for p in skillreel_home.rglob("*") if p.is_file())
    assert SECRET.encode() not in kept
