"""Traces by step (issue 31, point 5), through the real console script and real Chromium.

A sign-in skill (type a user name, a password from the vault, click Sign in, then Next) replayed with
``--artifacts``: the trace's groups, read from ``trace.trace`` as Playwright's viewer reads them,
are the steps in order, titled with their id and intent; the failed step's group holds one titled
with its code and shown as failed; no title holds a typed value.
``skillreel show-trace DIR --port 0`` serves that trace with Playwright's viewer on loopback.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

import pytest

from skillreel.model.actions import Action, ClickAction, NavigateAction, TypeAction
from skillreel.model.refs import ParameterRef
from skillreel.store import Store
from skillreel.vault import secret_env_name
from tests.support.cli import CliResult, run_cli
from tests.support.describe import describe_url
from tests.support.factory import build_draft, store_approved, url_environment
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

NAME = "sign-in"
PASSWORD = "pw-5e6f7a8b9c0d"
USER = "mallory-user-77"


def page(*, next_button: bool) -> str:
    nxt = '<button id="next" type="button">Next</button>' if next_button else ""
    return (
        '<!doctype html><html><body><main><form><label for="user">User name</label><input id="user">'
        '<label for="pw">Password</label><input id="pw" type="password">'
        f'<button id="signin" type="button" onclick="fetch(\'/signin\')">Sign in</button>{nxt}'
        "</form></main></body></html>"
    )


async def skill_on(server: LocalServer, store: Store) -> None:
    """user, password (from the vault), Sign in, Next; the page served has no Next button."""
    selectors = {"user": "#user", "pw": "#pw", "signin": "#signin", "next": "#next"}
    bundles = await describe_url(server, "/form", page(next_button=True), selectors)
    server.set_page("/form", page(next_button=False))
    server.set_page("/signin", "ok", "text/plain")
    url = server.url("/form")
    steps: list[Action] = [
        NavigateAction(id="a1", url=url),
        TypeAction(id="a2", target=bundles["user"], value=ParameterRef(name="user")),
        TypeAction(id="a3", target=bundles["pw"], value=ParameterRef(name="password")),
        ClickAction(id="a4", target=bundles["signin"]),
        ClickAction(id="a5", target=bundles["next"]),
    ]
    store_approved(store, build_draft(NAME, url_environment(url), steps, sensitive=("password",)))


def replay(*args: str) -> CliResult:
    vault = {secret_env_name(NAME, "password"): PASSWORD}
    return run_cli("replay", NAME, "--input", f"user={USER}", "--timeout", "5000", "--json", *args, env=vault)


def trace_events(directory: Path) -> list[dict[str, Any]]:
    with zipfile.ZipFile(directory / "trace.zip") as archive:
        return [json.loads(line) for line in archive.read("trace.trace").decode().splitlines() if line]


def groups(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e.get("type") == "before" and e.get("method") == "tracingGroup"]


def assert_clean(titles: list[str]) -> None:
    for title in titles:
        for hidden in (PASSWORD, USER, "[redacted]"):
            assert hidden not in title, title


async def test_a_failed_replay_traces_every_step_as_a_group_and_marks_the_failed_one(
    server: LocalServer, store: Store, tmp_path: Path
) -> None:
    await skill_on(server, store)  # the replayed page has no Next button: a4 fails
    directory = tmp_path / "debug"
    result = replay("--artifacts", str(directory))
    assert result.exit_code == 1, result.stderr
    assert result.json()["error"]["code"] == "SR_REPLAY_UI_TARGET_NOT_FOUND"
    assert f"skillreel show-trace {directory}" in result.json()["warnings"][0]["message"]
    events = trace_events(directory)
    found = groups(events)
    titles = [g["title"] for g in found]
    assert [t.split(" ")[0] for t in titles] == ["a1", "a2", "a3", "a4", "a5", "a5"]
    assert titles[0].startswith("a1 open the start page on http://127.0.0.1")
    assert titles[1] == "a2 type the input `user` into the field `#user`"
    assert titles[2] == "a3 type the secret input `password` (from the vault) into the field `#pw`"
    assert titles[3] == "a4 click the button `#signin`"
    assert titles[4] == "a5 click the button `#next`"
    assert titles[5] == "a5 FAILED SR_REPLAY_UI_TARGET_NOT_FOUND"
    assert_clean(titles)
    # the failure's group sits inside a5's and ends with an error: the viewer shows it red
    assert found[5]["parentId"] == found[4]["callId"]
    assert all("parentId" not in g for g in found[:5])
    ends = {e["callId"]: e for e in events if e.get("type") == "after"}
    assert ends[found[5]["callId"]]["error"]["message"] == titles[5]
    assert all("error" not in ends[g["callId"]] for g in found[:5])  # every group was closed


async def test_a_successful_replay_traces_every_step_and_marks_none(
    server: LocalServer, store: Store, tmp_path: Path
) -> None:
    await skill_on(server, store)
    server.set_page("/form", page(next_button=True))
    directory = tmp_path / "ok"
    result = replay("--artifacts", str(directory), "--artifacts-on", "always")
    assert result.exit_code == 0, result.stderr
    titles = [g["title"] for g in groups(trace_events(directory))]
    assert [t.split(" ")[0] for t in titles] == ["a1", "a2", "a3", "a4", "a5"]
    assert not any("FAILED" in t for t in titles)
    assert_clean(titles)


async def test_show_trace_serves_the_trace_with_playwrights_viewer_on_loopback(
    server: LocalServer, store: Store, tmp_path: Path
) -> None:
    await skill_on(server, store)
    directory = tmp_path / "debug"
    assert replay("--artifacts", str(directory)).exit_code == 1
    with subprocess.Popen(  # the real console script, as after a pipx install
        [sys.executable, "-m", "skillreel", "show-trace", str(directory), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    ) as viewer:
        try:
            assert viewer.stdout is not None
            line = ""
            while "Listening on" not in line:
                line = viewer.stdout.readline()
                assert line or viewer.poll() is None, "the viewer ended before serving"
            address = line.split("Listening on", 1)[1].strip()
            assert address.startswith("http://127.0.0.1:")
            with urllib.request.urlopen(address, timeout=30) as answer:
                assert answer.status == 200
                assert "trace" in answer.url
        finally:
            os.killpg(viewer.pid, signal.SIGTERM)
            viewer.wait(timeout=30)
