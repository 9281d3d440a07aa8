"""`skillreel replay` through the console script, and the whole path from a recording:
`record --automation` -> `review --approve` -> `replay` -> (page redesigned) heal -> `show` ->
`review --heal-proposal`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillreel.model.actions import (
    Action,
    ClickAction,
    ExtractAction,
    HumanAction,
    NavigateAction,
    TypeAction,
)
from skillreel.model.refs import ParameterRef
from skillreel.sandbox.chromium import find_chromium
from skillreel.store import Store
from tests.support.cli import run_cli
from tests.support.describe import describe_url
from tests.support.factory import build_draft, content_free, graph_draft, store_approved, url_environment
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

FORM = """<!doctype html><html><body><main><form id="f">
<label for="who">Name</label><input id="who" name="who" class="field">
<button id="hello" type="button" class="btn">Say hello</button></form><p id="out"></p></main>
<script>
document.getElementById("hello").addEventListener("click", () => {
  const name = document.getElementById("who") || document.querySelector("input");
  fetch("/hello?name=" + encodeURIComponent(name.value));
  document.getElementById("out").textContent = "Hello " + name.value;
});
</script></body></html>"""

REDESIGNED = """<!doctype html><html><body><main><section class="card"><div class="field-wrap">
<label for="person">Name</label><input id="person" name="person" class="input"></div>
<div class="bar"><button id="greet" type="button" class="btn" aria-label="Greet the person">Say hello
</button></div></section>
<p id="out"></p></main>
<script>
document.getElementById("greet").addEventListener("click", () => {
  const name = document.querySelector("input");
  fetch("/hello?name=" + encodeURIComponent(name.value));
  document.getElementById("out").textContent = "Hello " + name.value;
});
</script></body></html>"""


def hellos(server: LocalServer) -> list[str]:
    return [path for _, path in server.requests if path.startswith("/hello")]


async def skill_on(server: LocalServer, store: Store, name: str = "say-hello") -> None:
    bundles = await describe_url(server, "/form", FORM, {"who": "#who", "hello": "#hello"})
    url = server.url("/form")
    store_approved(
        store,
        build_draft(
            name,
            url_environment(url),
            [
                NavigateAction(id="a1", url=url),
                TypeAction(id="a2", target=bundles["who"], value=ParameterRef(name="who")),
                ClickAction(id="a3", target=bundles["hello"]),
            ],
        ),
    )


async def test_json_output_is_one_document_and_progress_goes_to_stderr(
    server: LocalServer, store: Store
) -> None:
    await skill_on(server, store)
    result = run_cli("replay", "say-hello", "--input", "who=Ada", "--json")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    doc = result.data()
    assert set(doc) == {
        "status",
        "name",
        "revision",
        "runId",
        "recorded",
        "reportDigest",
        "steps",
        "sideEffects",
        "healed",
        "healProposal",
        "validatedRevision",
        "outputs",
        "environment",
    }
    assert doc["outputs"] is None  # a skill that reads nothing returns nothing
    assert doc["environment"] is None  # the recorded environment, not a named one
    # the approved revision 2 was replayed; its first success made revision 3 validated
    assert (doc["status"], doc["name"], doc["revision"], doc["healProposal"], doc["validatedRevision"]) == (
        "succeeded",
        "say-hello",
        2,
        False,
        3,
    )
    assert (doc["recorded"], doc["sideEffects"]) == (True, True)
    assert [s["actionId"] for s in doc["steps"]] == ["a1", "a2", "a3"]
    assert [(s["status"], s["sideEffects"]) for s in doc["steps"]] == [
        ("done", False),
        ("done", True),
        ("done", True),
    ]
    assert all(
        set(s) == {"actionId", "kind", "status", "healed", "sideEffects", "evidenceDigest"}
        for s in doc["steps"]
    )
    assert hellos(server) == ["/hello?name=Ada"]

    human = run_cli("replay", "say-hello", "--input", "who=Grace")
    assert human.exit_code == 0, human.stderr
    assert human.stderr.splitlines() == ["[1/3] a1 navigate: ok", "[2/3] a2 type: ok", "[3/3] a3 click: ok"]
    assert "replayed say-hello revision 3: 3 steps, 0 healed" in human.stdout
    assert [r.outcome for r in store.runs("say-hello")] == ["succeeded", "succeeded"]


async def test_outputs_in_the_json_document_and_on_the_terminal(server: LocalServer, store: Store) -> None:
    bundles = await describe_url(server, "/form", FORM, {"who": "#who", "hello": "#hello", "out": "#out"})
    url = server.url("/form")
    actions: list[Action] = [
        NavigateAction(id="a1", url=url),
        TypeAction(id="a2", target=bundles["who"], value=ParameterRef(name="who")),
        ClickAction(id="a3", target=bundles["hello"]),
        ExtractAction(id="a4", output="greeting", target=content_free(bundles["out"])),
        ExtractAction(id="a5", output="name", target=content_free(bundles["out"]), pattern=r"Hello (\w+)"),
    ]
    store_approved(store, graph_draft(actions, name="greet", environment=url_environment(url)))
    result = run_cli("replay", "greet", "--input", "who=Ada", "--json")
    assert result.exit_code == 0, result.stderr
    assert result.data()["outputs"] == {"greeting": "Hello Ada", "name": "Ada"}
    human = run_cli("replay", "greet", "--input", "who=Grace")
    assert human.exit_code == 0, human.stderr
    shown = human.stdout[human.stdout.index("outputs:") + len("outputs:") :]
    assert json.loads(shown) == {"greeting": "Hello Grace", "name": "Grace"}


@pytest.mark.parametrize(
    ("args", "code", "status"),
    [
        (["replay", "nope", "--json"], "SR_RECORD_NOT_FOUND", 1),
        (["replay", "say-hello", "--json"], "SR_REPLAY_PARAMETER_MISSING", 2),
        (
            ["replay", "say-hello", "--input", "who=x", "--input", "whom=y", "--json"],
            "SR_REPLAY_PARAMETER_UNKNOWN",
            2,
        ),
        (
            ["replay", "say-hello", "--input", "who=x", "--expected-revision", "1", "--json"],
            "SR_RECORD_REVISION_CONFLICT",
            1,
        ),
        (
            ["replay", "say-hello", "--input", "who=x", "--url", "http://127.0.0.1:1/form", "--json"],
            "SR_RECORD_ENVIRONMENT_DRIFT",
            1,
        ),
    ],
)
async def test_refusals_before_the_browser(
    server: LocalServer, store: Store, args: list[str], code: str, status: int, tmp_path: Path
) -> None:
    await skill_on(server, store)
    before = server.request_count()
    chromium, launched = counted_chromium(tmp_path)
    # the Playwright driver boots ahead of the pre-flight; Chromium is never started for a refusal
    result = run_cli(*args, env={"SKILLREEL_CHROMIUM": str(chromium)})
    assert not launched.exists()
    assert result.exit_code == status, result.stdout + result.stderr
    doc = result.json()
    assert (doc["ok"], doc["data"]["status"], doc["error"]["code"]) == (False, "failed", code)
    assert doc["data"]["steps"] == []
    assert server.request_count() == before  # no browser went to the page
    assert store.get("say-hello").revision == 2
    assert (doc["data"]["runId"], store.run_count("say-hello")) == (None, 0)  # refused before a run


def counted_chromium(tmp_path: Path) -> tuple[Path, Path]:
    """A Chromium that leaves a mark when it is started: (the executable, the mark)."""
    mark = tmp_path / "chromium-started"
    wrapper = tmp_path / "chromium"
    wrapper.write_text(f'#!/bin/sh\necho started >> "{mark}"\nexec "{find_chromium()}" "$@"\n')
    wrapper.chmod(0o700)
    return wrapper, mark


async def test_chromium_starts_once_the_pre_flight_passed_and_the_run_is_final_before_the_output(
    server: LocalServer, store: Store, tmp_path: Path
) -> None:
    """The check above can fail: an allowed replay starts the counted Chromium (once). The run's end
    is in the store when the process reports (Chromium and the driver close after that write)."""
    await skill_on(server, store)
    chromium, launched = counted_chromium(tmp_path)
    result = run_cli(
        "replay", "say-hello", "--input", "who=Ada", "--json", env={"SKILLREEL_CHROMIUM": str(chromium)}
    )
    assert result.exit_code == 0, result.stderr
    assert launched.read_text() == "started\n"
    (run,) = store.runs("say-hello")
    assert (run.record.run_id, run.outcome) == (result.data()["runId"], "succeeded")


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--input", "who"], "SR_RECORD_USAGE"),
        (["--timeout", "99"], "SR_RECORD_USAGE"),
        (["--settle", "1001"], "SR_RECORD_USAGE"),
        (["--html", "x.html", "--url", "http://127.0.0.1:1/"], "SR_RECORD_TARGET_INVALID"),
    ],
)
def test_bad_usage_exits_2(args: list[str], code: str) -> None:
    result = run_cli("replay", "say-hello", *args, "--json")
    assert result.exit_code == 2
    assert result.json()["error"]["code"] == code


async def test_a_human_step_fails_closed_without_a_terminal(server: LocalServer, store: Store) -> None:
    server.set_page("/upload", FORM)
    url = server.url("/upload")
    store_approved(
        store,
        build_draft(
            "needs-person",
            url_environment(url),
            [NavigateAction(id="a1", url=url), HumanAction(id="a2", reason="upload")],
        ),
    )
    result = run_cli("replay", "needs-person", "--json")
    assert result.exit_code == 1
    doc = result.json()
    assert (doc["error"]["code"], doc["error"]["actionId"]) == ("SR_REPLAY_HUMAN_REQUIRED", "a2")
    data = doc["data"]
    assert (data["name"], data["revision"], data["reportDigest"]) == ("needs-person", 2, None)
    # the step that ran, then the one it stopped at: the person's step, not done
    assert [(s["actionId"], s["status"]) for s in data["steps"]] == [("a1", "done"), ("a2", "failed")]


@pytest.mark.slow
async def test_record_review_replay_then_heal_and_accept_the_proposal(
    server: LocalServer, tmp_path: Path
) -> None:
    server.set_page("/form", FORM)
    script = tmp_path / "demo.json"
    script.write_text(
        json.dumps(
            {
                "steps": [
                    {"do": "type", "selector": "#who", "text": "Recorded Name"},
                    {"do": "click", "selector": "#hello"},
                    {"do": "wait", "ms": 200},
                ]
            }
        )
    )
    recorded = run_cli(
        "record", "say-hello", "--url", server.url("/form"), "--automation", str(script), "--json"
    )
    assert recorded.exit_code == 0, recorded.stdout + recorded.stderr
    draft = recorded.json()["data"]["draftDigest"]
    reviewed = run_cli(
        "review", "say-hello", "--reviewer", "lead", "--draft-digest", draft, "--approve", "--json"
    )
    assert reviewed.exit_code == 0, reviewed.stdout
    shown = run_cli("show", "say-hello", "--json").data()
    params = [p["name"] for p in shown["parameters"]]
    assert len(params) == 1
    param = params[0]

    server.requests.clear()
    first = run_cli("replay", "say-hello", "--input", f"{param}=Ada", "--json")
    assert first.exit_code == 0, first.stdout
    assert hellos(server) == ["/hello?name=Ada"]
    assert first.data()["healProposal"] is False

    server.set_page("/form", REDESIGNED)
    server.requests.clear()
    healed = run_cli("replay", "say-hello", "--input", f"{param}=Grace", "--json")
    assert healed.exit_code == 0, healed.stdout
    doc = healed.data()
    assert hellos(server) == ["/hello?name=Grace"]
    assert doc["healProposal"] is True
    assert any(s["healed"] for s in doc["steps"])

    before = run_cli("show", "say-hello", "--json").data()
    healed_ids = [s["actionId"] for s in doc["steps"] if s["healed"]]
    assert [p["healedActions"] for p in before["healProposals"]] == [healed_ids]
    assert "review --heal-proposal" in before["next"]
    human_show = run_cli("show", "say-hello")
    assert "pending heal proposal" in human_show.stdout
    proposal = before["healProposal"]["draftDigest"]
    accepted = run_cli(
        "review",
        "say-hello",
        "--heal-proposal",
        "--reviewer",
        "lead",
        "--draft-digest",
        proposal,
        "--approve",
        "--json",
    )
    assert accepted.exit_code == 0, accepted.stdout
    server.requests.clear()
    again = run_cli("replay", "say-hello", "--input", f"{param}=Linus", "--no-heal", "--json")
    assert again.exit_code == 0, again.stdout
    assert not any(s["healed"] for s in again.data()["steps"])
    assert hellos(server) == ["/hello?name=Linus"]
