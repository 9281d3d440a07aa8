"""Chromium dying mid-replay: the replay fails with SR_REPLAY_UI_BROWSER_CRASHED, it is audited,
nothing else in the store changes, and no Chromium process is left behind."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from skillreel.model.actions import ClickAction, NavigateAction, TypeAction
from skillreel.model.refs import ParameterRef
from skillreel.replay.engine import StepProgress
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import Store
from tests.support.describe import close_describer, describe_url
from tests.support.factory import build_draft, store_approved, url_environment
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><body><main><label for="q">Query</label><input id="q" name="q">
<button id="go" type="button">Go</button></main></body></html>"""


def descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def chromium_browsers() -> list[int]:
    """Our Chromium browser processes (not renderers or helpers): descendants without --type=."""
    pids = []
    for pid in descendants(os.getpid()):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and b"chrom" in argv[0] and not any(a.startswith(b"--type=") for a in argv):
            pids.append(pid)
    return pids


def chromium_processes() -> list[int]:
    alive = []
    for pid in descendants(os.getpid()):
        try:
            if b"chrom" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]:
                alive.append(pid)
        except OSError:
            continue
    return alive


async def test_a_browser_killed_mid_replay_fails_cleanly(server: LocalServer, store: Store) -> None:
    bundles = await describe_url(server, "/app", PAGE, {"q": "#q", "go": "#go"})
    url = server.url("/app")
    entry = store_approved(
        store,
        build_draft(
            "crashy",
            url_environment(url),
            [
                NavigateAction(id="a1", url=url),
                TypeAction(id="a2", target=bundles["q"], value=ParameterRef(name="q")),
                ClickAction(id="a3", target=bundles["go"]),
            ],
        ),
    )
    killed: list[int] = []
    close_describer()  # every Chromium of this process is killed below: not the describing one too

    def kill_at_a3(step: StepProgress) -> None:
        if step.action_id == "a3" and step.phase == "start":
            for pid in chromium_browsers():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    outcome = await replay_skill(
        store, ReplayRequest(name="crashy", inputs={"q": "x"}, timeout_ms=5_000), progress=kill_at_a3
    )

    assert killed
    assert outcome.error is not None
    assert (outcome.error.code, outcome.error.action_id) == ("SR_REPLAY_UI_BROWSER_CRASHED", "a3")
    after = store.get("crashy")
    assert after == entry
    event = store.audit_events()[-1]
    assert (event.kind, event.outcome, event.code, event.revision) == (
        "run-end",
        "failed",
        "SR_REPLAY_UI_BROWSER_CRASHED",
        entry.revision,
    )
    (run,) = store.runs("crashy")
    assert (run.outcome, run.record.steps_run, run.record.side_effects) == ("failed", 3, True)
    assert store.verify_audit().ok
    assert chromium_processes() == []
