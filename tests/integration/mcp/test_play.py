"""skills_play replays for real: Chromium on a 127.0.0.1 page, driven through `skillreel mcp`."""

from __future__ import annotations

from pathlib import Path

import mcp_types as types
import pytest

from skillreel.store import Store
from tests.integration.mcp.client import data, error, mcp_session
from tests.integration.mcp.live_skill import PAGE, live_skill
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

NAME = "find-invoices"
PIN_ENV = "SKILLREEL_SECRET_FIND_INVOICES_PIN"
PIN = "pin-4711-never-shown"


def assert_played(result: types.CallToolResult, steps: list[str]) -> dict[str, object]:
    body = data(result)
    assert not result.is_error, body
    assert body["status"] == "succeeded"
    assert body["name"] == NAME
    assert [(s["actionId"], s["healed"]) for s in body["steps"]] == [(s, False) for s in steps]
    assert body["healed"] is False
    with Store.open() as store:
        entry = store.get(NAME)
        run = store.run(str(body["runId"]))
    assert entry.status == "enabled"  # a replay keeps the installation
    assert entry.installation is not None
    assert body["revision"] == entry.revision
    assert run is not None  # a replay is a run, recorded with its report, never a new revision
    assert (run.outcome, run.record.actor, run.record.revision) == ("succeeded", "mcp", entry.revision)
    assert body["reportDigest"] == run.record.report_digest is not None
    return body


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_play_succeeds_with_progress_per_step(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path, mode: str
) -> None:
    await live_skill(server, NAME, project_dir)
    progress: list[tuple[float, float | None, str | None]] = []
    async with mcp_session(skillreel_home, tmp_path / "stderr.log", mode=mode) as session:
        result = await session.call("skills_play", {"name": NAME, "inputs": {"customer": "ACME"}}, progress)
    assert_played(result, ["a1", "a2", "a4", "a5"])
    assert [(p, t) for p, t, _ in progress] == [(1.0, 4.0), (2.0, 4.0), (3.0, 4.0), (4.0, 4.0)]
    assert progress[1][2] == "step 2/4 a2 (type) done"
    assert session.stray == []
    assert ("GET", "/invoices") in server.requests


async def test_play_returns_the_outputs_as_structured_content(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    await live_skill(server, NAME, project_dir, extract=True)
    async with mcp_session(skillreel_home, tmp_path / "stderr.log") as session:
        listed = await session.call("skills_list", {})
        result = await session.call("skills_play", {"name": NAME, "inputs": {"customer": "ACME"}})
    body = assert_played(result, ["a1", "a2", "a4", "a5", "a6"])
    assert body["outputs"] == {"found": 3}
    summary = result.content[0]
    assert isinstance(summary, types.TextContent)
    assert summary.text == f"{NAME}: succeeded (revision {body['revision']})\noutputs: found = 3"
    (skill,) = data(listed)["skills"]
    assert skill["outputs"] == {
        "type": "object",
        "properties": {"found": {"type": "integer"}},
        "required": ["found"],
        "additionalProperties": False,
    }


async def test_a_sensitive_value_from_the_environment_is_used_and_never_shown(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    await live_skill(server, NAME, project_dir, sensitive=True)
    stderr = tmp_path / "stderr.log"
    async with mcp_session(
        skillreel_home, stderr, env={PIN_ENV: PIN}, answer=lambda _: pytest.fail("the vault had it")
    ) as session:
        listed = data(await session.call("skills_list"))["skills"][0]
        result = await session.call("skills_play", {"name": NAME, "inputs": {"customer": "ACME"}})
    assert {"name": "pin", "required": True, "sensitive": True, "env": PIN_ENV} in listed["parameters"]
    assert_played(result, ["a1", "a2", "a3", "a4", "a5"])
    assert session.elicited == []
    assert PIN not in str(result.model_dump())
    assert PIN not in stderr.read_text()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_missing_sensitive_value_is_asked_of_the_user_and_used(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path, mode: str
) -> None:
    await live_skill(server, NAME, project_dir, sensitive=True)

    def answer(_: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"pin": PIN})

    async with mcp_session(skillreel_home, tmp_path / "stderr.log", answer=answer, mode=mode) as session:
        result = await session.call("skills_play", {"name": NAME, "inputs": {"customer": "ACME"}})
    assert_played(result, ["a1", "a2", "a3", "a4", "a5"])
    assert len(session.elicited) == 1
    assert PIN not in str(result.model_dump())


async def test_a_missing_sensitive_value_without_a_way_to_ask_starts_no_browser(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    await live_skill(server, NAME, project_dir, sensitive=True)
    before = server.request_count()
    async with mcp_session(skillreel_home, tmp_path / "stderr.log") as session:
        result = await session.call("skills_play", {"name": NAME, "inputs": {"customer": "ACME"}})
    assert result.is_error
    assert error(result)["code"] == "SR_REPLAY_SECRET_MISSING"
    assert PIN_ENV in error(result)["message"]
    assert data(result)["steps"] == []
    assert server.request_count() == before


async def test_a_failed_replay_is_an_error_result_with_the_code(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    await live_skill(server, NAME, project_dir)
    server.set_page("/invoices", "<!doctype html><html><body><p>Maintenance</p></body></html>")
    async with mcp_session(skillreel_home, tmp_path / "stderr.log") as session:
        result = await session.call("skills_play", {"name": NAME, "inputs": {"customer": "ACME"}})
    body = data(result)
    assert result.is_error
    assert body["status"] == "failed"
    assert error(result)["code"] == "SR_REPLAY_UI_TARGET_NOT_FOUND"
    assert error(result)["actionId"] == "a2"
    assert body["reportDigest"] is None
    # the start page loaded, then a2 failed: nothing acted, so a retry repeats nothing
    assert [(s["actionId"], s["status"]) for s in body["steps"]] == [("a1", "done"), ("a2", "failed")]
    assert body["sideEffects"] is False


# The page remembers a visit in a cookie and in localStorage: a second visit in the same browser
# profile finds nothing, so the second play succeeds only in a fresh context.
REMEMBERING = PAGE.replace(
    'const ok = document.getElementById("customer").value.length > 0;',
    'const seen = document.cookie.includes("seen=1") || localStorage.getItem("seen");'
    ' document.cookie = "seen=1; max-age=3600"; localStorage.setItem("seen", "1");'
    ' const ok = !seen && document.getElementById("customer").value.length > 0;',
)


def chromium_browsers(home: Path) -> set[int]:
    """Process ids of the Chromium browser processes (not their renderers) started for ``home``."""
    marker = f"SKILLREEL_HOME={home}".encode()
    found = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            environ = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        name = Path(cmdline[0].decode(errors="replace")).name
        browser = name.startswith("chrom") and "crashpad" not in name
        if browser and marker in environ and not any(arg.startswith(b"--type=") for arg in cmdline):
            found.add(int(proc.name))
    return found


async def test_plays_share_one_chromium_and_nothing_else(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    await live_skill(server, NAME, project_dir)
    server.set_page("/invoices", REMEMBERING)
    server.requests.clear()
    async with mcp_session(skillreel_home, tmp_path / "stderr.log") as session:
        first = await session.call("skills_play", {"name": NAME, "inputs": {"customer": "ACME"}})
        after_first = chromium_browsers(skillreel_home)
        second = await session.call("skills_play", {"name": NAME, "inputs": {"customer": "Initech"}})
        after_second = chromium_browsers(skillreel_home)
    assert_played(first, ["a1", "a2", "a4", "a5"])
    assert_played(second, ["a1", "a2", "a4", "a5"])  # the page found no cookie and no storage
    assert len(after_first) == 1  # the warm Chromium outlives the play...
    assert after_second == after_first  # ...and the second play used it
    assert server.requests.count(("GET", "/invoices")) == 2
