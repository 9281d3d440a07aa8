"""Traces by step (issue 31, point 5), through the real console script and real Chromium.

The skill of ``test_artifacts`` (type a vault key, click Save, click Next) replayed with
``--artifacts``: the trace's groups, read from ``trace.trace`` as Playwright's viewer reads them,
are the steps in order, titled with their id and intent; the failed step's group holds one titled
with its code and shown as failed; no title holds the typed key, the cookie or the URL token.
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

from skillreel.store import Store
from tests.integration.replay.test_artifacts import COOKIE, KEY, URL_TOKEN, page, replay, skill_on
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser


def trace_events(directory: Path) -> list[dict[str, Any]]:
    with zipfile.ZipFile(directory / "trace.zip") as archive:
        return [json.loads(line) for line in archive.read("trace.trace").decode().splitlines() if line]


def groups(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e.get("type") == "before" and e.get("method") == "tracingGroup"]


def assert_clean(titles: list[str]) -> None:
    for title in titles:
        for hidden in (KEY, COOKIE, URL_TOKEN, "[redacted]"):
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
    assert [t.split(" ")[0] for t in titles] == ["a1", "a2", "a3", "a4", "a4"]
    assert titles[0].startswith("a1 open the start page on http://127.0.0.1")
    assert titles[1] == "a2 type the secret input `apikey` (from the vault) into the field `#key`"
    assert titles[2] == "a3 click the button `#save`"
    assert titles[3] == "a4 click the button `#next`"
    assert titles[4] == "a4 FAILED SR_REPLAY_UI_TARGET_NOT_FOUND"
    assert_clean(titles)
    # the failure's group sits inside a4's and ends with an error: the viewer shows it red
    assert found[4]["parentId"] == found[3]["callId"]
    assert all("parentId" not in g for g in found[:4])
    ends = {e["callId"]: e for e in events if e.get("type") == "after"}
    assert ends[found[4]["callId"]]["error"]["message"] == titles[4]
    assert all("error" not in ends[g["callId"]] for g in found[:4])  # every group was closed


async def test_a_successful_replay_traces_every_step_and_marks_none(
    server: LocalServer, store: Store, tmp_path: Path
) -> None:
    await skill_on(server, store)
    server.set_page("/form", page(next_button=True, echo=True))  # the page even shows the key
    directory = tmp_path / "ok"
    result = replay("--artifacts", str(directory), "--artifacts-on", "always")
    assert result.exit_code == 0, result.stderr
    titles = [g["title"] for g in groups(trace_events(directory))]
    assert [t.split(" ")[0] for t in titles] == ["a1", "a2", "a3", "a4"]
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
