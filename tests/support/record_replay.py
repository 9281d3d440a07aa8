"""Record a scripted demonstration on a local page, then replay it, in real Chromium: the shared
setup of the record-then-replay tests (pickers, rows chosen by input, clicks)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from skillreel.model.draft import Draft
from skillreel.model.lifecycle import approve
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import RecordResult, record_skill
from skillreel.services.replaying import ReplayOutcome, ReplayRequest, replay_skill
from skillreel.store import AuditNote, Store, utc_now
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

Logged = list[dict[str, list[str]]]


def logged(server: LocalServer) -> Logged:
    """The page's own account of what it did: the queries of its ``/log`` requests, in order."""
    return [parse_qs(urlsplit(path).query) for _, path in server.requests if path.startswith("/log")]


async def record_result(
    server: LocalServer,
    store: Store,
    tmp_path: Path,
    page: str,
    steps: Sequence[dict[str, Any]],
    name: str,
    *,
    path: str = "/form",
) -> RecordResult:
    """Record ``steps`` (automation steps) on ``page``, served at ``path``, as skill ``name``."""
    server.set_route("/log", body=b"ok")
    server.set_page(path, page)
    automation = tmp_path / f"{name}-automation.json"
    automation.write_text(json.dumps({"steps": list(steps)}))
    request = RecordRequest(name=name, url=server.url(path), automation=automation)
    return await record_skill(store, request)


async def record(
    server: LocalServer, store: Store, tmp_path: Path, page: str, steps: Sequence[dict[str, Any]], name: str
) -> Draft:
    """:func:`record_result`'s draft."""
    return (await record_result(server, store, tmp_path, page, steps, name)).entry.draft


async def replay(
    server: LocalServer,
    store: Store,
    sessions: WarmSessions,
    name: str,
    inputs: dict[str, Any],
    timeout_ms: int,
) -> ReplayOutcome:
    """Approve ``name`` (once) and replay it with ``inputs``, the server's log cleared first."""
    if store.get(name).status == "draft":
        store.update(
            name, lambda e: approve(e, "reviewer", utc_now()), AuditNote(kind="review", reviewer="reviewer")
        )
    server.requests.clear()
    request = ReplayRequest(name=name, inputs=inputs, timeout_ms=timeout_ms)
    return await replay_skill(store, request, session_factory=sessions)


async def record_and_replay(
    server: LocalServer,
    store: Store,
    tmp_path: Path,
    sessions: WarmSessions,
    *,
    page: str,
    steps: Sequence[dict[str, Any]],
    versions: Sequence[tuple[str, dict[str, Any]]],
    name: str = "skill",
    timeout_ms: int = 8_000,
) -> tuple[Draft, list[tuple[ReplayOutcome, Logged]]]:
    """Record ``steps`` on ``page``, then replay the skill on each ``(page, inputs)`` of
    ``versions`` in turn (served where it was recorded); the draft, and each replay's outcome with
    what the page logged during it (:func:`logged`)."""
    draft = await record(server, store, tmp_path, page, steps, name)
    replayed = []
    for version, inputs in versions:
        server.set_page("/form", version)
        outcome = await replay(server, store, sessions, name, inputs, timeout_ms)
        replayed.append((outcome, logged(server)))
    return draft, replayed
