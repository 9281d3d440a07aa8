"""Popups, tabs and downloads (issue 32.3, 32.4), recorded from an automation file and replayed in
real Chromium on a local desk site that is then redesigned (other markup, the same words).

The desk's "Open help" link opens a tab (``target=_blank``), its "Open report" button a window
(``window.open``); the help tab sends a ticket (the server sees ``/sent?ticket=...``: the site's
state), and "Download receipt" downloads a file whose suggested name tries to leave the directory.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from skillreel import api
from skillreel.api import ReplayFailed
from skillreel.services.preflight import ReplayRequest
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.integration.record.rig import page_html
from tests.support.desk_pages import DESK_V1, DESK_V2, HELP, POPUP_STEPS, RECEIPT, serve
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]


async def record(store: Store, tmp_path: Path, name: str, url: str, steps: list[dict[str, Any]]) -> None:
    automation = tmp_path / f"{name}.json"
    automation.write_text(json.dumps({"steps": steps}))
    await record_skill(store, RecordRequest(name=name, url=url, automation=automation))
    review_skill(store, name, "alice", approve=True, expected_revision=1)


def shape(store: Store, name: str) -> list[tuple[str, ...]]:
    out = []
    for a in store.get(name).draft.actions:
        data = a.to_json()
        out.append(tuple(str(data[k]) for k in ("kind", "to", "close", "output") if k in data))
    return out


async def test_popups_and_a_download_are_recorded_and_replayed_on_both_versions(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    url = serve(server, DESK_V1)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    with Store.open(skillreel_home) as store:
        await record(store, tmp_path, "desk", url, POPUP_STEPS)
        assert shape(store, "desk") == [
            ("navigate",),
            ("click",),
            ("page", "popup"),
            ("type",),
            ("click",),
            ("page", "main", "True"),
            ("click",),
            ("page", "popup"),
            ("click",),
            ("page", "main"),
            ("download", "receipt"),
        ]
        assert "net.download" in store.get("desk").draft.capabilities
        assert not list(downloads.iterdir())  # recording saved nothing
        saved = []
        for desk, ticket in ((DESK_V1, "T-2"), (DESK_V2, "T-3")):
            serve(server, desk)
            request = ReplayRequest(
                name="desk", inputs={"ticket": ticket}, url=url, timeout_ms=8_000, downloads=downloads
            )
            outcome = await replay_skill(store, request)
            assert outcome.error is None, outcome.error.to_json()
            assert ("GET", f"/sent?ticket={ticket}") in server.requests  # typed in the popup
            assert outcome.outputs is not None
            got = outcome.outputs["receipt"]
            assert got["bytes"] == len(RECEIPT)
            assert got["sha256"] == hashlib.sha256(RECEIPT).hexdigest()
            path = Path(got["path"])
            assert path.parent == downloads.resolve()
            assert path.read_bytes() == RECEIPT
            assert os.stat(path).st_mode & 0o777 == 0o600
            saved.append(got["name"])
        assert server.count("GET", "/approved") == 3  # the window.open popup, each time
        # no path part, no dot-file, never an overwrite
        first, second = saved
        assert first.endswith("receipt.txt")
        assert "/" not in first
        assert not first.startswith(".")
        assert second == first.removesuffix(".txt") + " (1).txt"
        assert sorted(p.name for p in downloads.iterdir()) == sorted(saved)
    # nothing of the file (its digest, its path, its content) reaches the store or the audit
    for kept in (f for f in skillreel_home.rglob("*") if f.is_file()):
        data = kept.read_bytes()
        assert hashlib.sha256(RECEIPT).hexdigest().encode() not in data, kept
        assert str(downloads).encode() not in data, kept
        assert b"receipt 7" not in data, kept


async def test_a_popup_to_an_origin_off_the_allowlist_is_refused_by_the_boundary(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    url = serve(server, DESK_V1)
    with LocalServer() as other, Store.open(skillreel_home) as store:
        other.set_page("/help", HELP)
        await record(store, tmp_path, "help", url, POPUP_STEPS[:4])
        server.set_route("/help", status=302, headers={"Location": other.url("/help")})  # moved away
        outcome = await replay_skill(
            store, ReplayRequest(name="help", inputs={"ticket": "T-9"}, url=url, timeout_ms=3_000)
        )
        assert outcome.error is not None
        assert outcome.error.code == "SR_REPLAY_UI_NETWORK_DENIED"
        assert other.requests == []  # nothing reached the other origin
        assert other.origin not in outcome.error.message


async def test_the_expected_popup_not_opening_fails_closed(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    url = serve(server, DESK_V1)
    with Store.open(skillreel_home) as store:
        await record(store, tmp_path, "help", url, POPUP_STEPS[:4])
        server.set_page("/desk", DESK_V1.replace("target=_blank", ""))  # opens in the same page now
        server.set_page("/help", page_html("<p>moved</p>"))
        before = server.request_count()
        outcome = await replay_skill(
            store, ReplayRequest(name="help", inputs={"ticket": "T-9"}, url=url, timeout_ms=2_000)
        )
        assert outcome.error is not None
        assert outcome.error.code == "SR_REPLAY_UI_POPUP_MISSING"
        assert outcome.error.action_id == "a3"
        assert not any(p.startswith("/sent") for _, p in server.requests[before:])


async def test_a_download_over_the_limit_fails_and_leaves_no_file(
    tmp_path: Path, skillreel_home: Path, server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = serve(server, DESK_V1)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    with Store.open(skillreel_home) as store:
        await record(store, tmp_path, "receipt", url, POPUP_STEPS[-1:])
        monkeypatch.setattr("skillreel.replay.pages.MAX_DOWNLOAD_BYTES", 64)
        outcome = await replay_skill(
            store, ReplayRequest(name="receipt", url=url, timeout_ms=5_000, downloads=downloads)
        )
        assert outcome.error is not None
        assert outcome.error.code == "SR_REPLAY_UI_DOWNLOAD_TOO_LARGE"
        assert list(downloads.iterdir()) == []


async def test_a_download_needs_a_downloads_directory_before_anything_runs(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    url = serve(server, DESK_V1)
    with Store.open(skillreel_home) as store:
        await record(store, tmp_path, "receipt", url, POPUP_STEPS[-1:])
        before = server.request_count()
        for downloads in (None, tmp_path / "missing", tmp_path / "receipt.json"):
            outcome = await replay_skill(
                store, ReplayRequest(name="receipt", url=url, timeout_ms=5_000, downloads=downloads)
            )
            assert outcome.error is not None
            assert outcome.error.code == "SR_REPLAY_DOWNLOADS_DIR_MISSING"
            assert outcome.error.exit_status == 2
        with pytest.raises(ReplayFailed) as info:  # the Python API likewise
            await api.replay("receipt", url=url, timeout_ms=5_000, store=store)
        assert info.value.code == "SR_REPLAY_DOWNLOADS_DIR_MISSING"
        assert server.request_count() == before  # no browser ran
        got = await api.replay("receipt", url=url, timeout_ms=5_000, store=store, downloads=tmp_path)
        assert got["outputs"]["receipt"]["sha256"] == hashlib.sha256(RECEIPT).hexdigest()


async def test_a_download_on_a_skill_without_net_download_is_refused(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    url = serve(server, DESK_V1, receipt=False)  # recorded when the link opened a page
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    with Store.open(skillreel_home) as store:
        await record(store, tmp_path, "plain", url, [{"do": "click", "selector": "#receipt"}])
        assert "net.download" not in store.get("plain").draft.capabilities
        serve(server, DESK_V1)  # the same link downloads now
        cwd = Path.cwd()
        outcome = await replay_skill(
            store, ReplayRequest(name="plain", url=url, timeout_ms=5_000, downloads=downloads)
        )
        assert outcome.error is not None
        assert outcome.error.code == "SR_REPLAY_UI_DOWNLOAD_REFUSED"
        assert list(downloads.iterdir()) == []
        assert not (cwd / "receipt.txt").exists()
