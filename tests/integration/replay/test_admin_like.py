"""Record on the old version of a Django-admin-like site, replay with other inputs on the same and
on the new version (tests/integration/adminsite.py): the right element every time, and hostile
variants fail closed with nothing posted.

The site's POST log is the click log: what the application would have changed. Recording runs the
real recorder (scripted demonstration with trusted input, assertions resolved at the end) and
signs in as ``admin`` on ``/admin/`` (issue 10: the user name in the URL was a secret finding).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillreel.model.lifecycle import approve
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import ReplayOutcome, ReplayRequest, replay_skill
from skillreel.store import AuditNote, Store, utc_now
from skillreel.vault import secret_env_name
from tests.integration.adminsite import AdminSite, posts
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

PASSWORD = "Rec-pass-1"


def sign_in(user: str) -> list[dict[str, str]]:
    return [
        {"do": "type", "selector": "#id_username", "text": user},
        {"do": "type", "selector": "#id_password", "text": PASSWORD},
        {"do": "click", "selector": "#login-form input[type=submit]"},
    ]


TASKS: dict[str, dict[str, Any]] = {
    "create-book": {
        "steps": [
            *sign_in("admin"),
            {"do": "click", "selector": "#content-main a[href='/admin/library/book/add/']"},
            {"do": "type", "selector": "#id_title", "text": "The Recorded Atlas"},
            {"do": "type", "selector": "#id_author", "text": "Rhea Corder"},
            {"do": "click", "selector": "input[name=_save]"},
        ],
        "assert": {
            "kind": "assert",
            "selector": ".messagelist .success",
            "check": "text_contains",
            "expected": "was added successfully",
        },
        "record": {"added": "The Recorded Atlas"},
    },
    "bulk-delete": {
        "steps": [
            *sign_in("admin"),
            {"do": "click", "selector": "#content-main th a[href='/admin/library/book/']"},
            {"do": "type", "selector": "#searchbar", "text": "Emma"},
            {"do": "press", "key": "Enter"},
            {"do": "click", "selector": "#action-toggle"},
            {"do": "select", "selector": "select[name=action]", "value": "delete_selected"},
            {"do": "click", "selector": "button[name=index]"},
            {"do": "click", "selector": "#content form input[type=submit]"},
        ],
        "assert": {
            "kind": "assert",
            "selector": ".messagelist .success",
            "check": "text_contains",
            "expected": "Successfully deleted",
        },
        "record": {"query": "Emma"},
    },
    "open-result": {
        "steps": [
            *sign_in("admin"),
            {"do": "click", "selector": "#content-main th a[href='/admin/library/book/']"},
            {"do": "type", "selector": "#searchbar", "text": "Middlemarch"},
            {"do": "click", "selector": "#changelist-search input[type=submit]"},
            {"do": "click", "selector": "#result_list th.field-title a"},
        ],
        "assert": {
            "kind": "assert",
            "selector": "#content h1",
            "check": "text_equals",
            "expected": "Change book",
        },
        "record": {"query": "Middlemarch"},
    },
}


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data))
    return path


async def record(server: LocalServer, store: Store, tmp_path: Path, task: str) -> None:
    spec = TASKS[task]
    AdminSite(server, "old").serve(**spec["record"])
    request = RecordRequest(
        name=task,
        url=server.url("/admin/login/?next=/admin/"),
        automation=write(tmp_path / f"{task}.automation.json", {"steps": spec["steps"]}),
        assertions=write(tmp_path / f"{task}.assertions.json", {"assertions": [spec["assert"]]}),
        description="Sign in to the admin as admin and work on the library's books.",
    )
    result = await record_skill(store, request)
    assert [p.name for p in result.entry.draft.parameters][:2] == ["username", "password"]
    store.update(
        task, lambda e: approve(e, "reviewer", utc_now()), AuditNote(kind="review", reviewer="reviewer")
    )


async def replay(
    server: LocalServer,
    store: Store,
    task: str,
    inputs: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    *,
    timeout_ms: int = 6_000,
    sessions: WarmSessions,
) -> ReplayOutcome:
    monkeypatch.setenv(secret_env_name(task, "password"), "Other-pass-2")
    server.requests.clear()
    server.bodies.clear()
    return await replay_skill(
        store, ReplayRequest(name=task, inputs=inputs, timeout_ms=timeout_ms), session_factory=sessions
    )


def signed_in(found: list[tuple[str, dict[str, list[str]]]]) -> bool:
    return bool(found) and found[0] == (
        "/admin/login/post/",
        {
            "csrfmiddlewaretoken": ["t0k3n"],
            "username": ["operator"],
            "password": ["Other-pass-2"],
            "next": ["/admin/"],
        },
    )


@pytest.fixture
def store(skillreel_home: Path) -> Any:
    with Store.open() as opened:
        yield opened


@pytest.mark.parametrize("version", ["old", "new"])
async def test_create_book_on_both_versions(
    version: str,
    server: LocalServer,
    store: Store,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sessions: WarmSessions,
) -> None:
    await record(server, store, tmp_path, "create-book")
    AdminSite(server, version).serve(added="A Replayed Almanac")
    outcome = await replay(
        server,
        store,
        "create-book",
        {"username": "operator", "title": "A Replayed Almanac", "author": "Paul Player"},
        monkeypatch,
        sessions=sessions,
    )
    assert outcome.status == "succeeded", outcome.error and outcome.error.to_json()
    found = posts(server)
    assert signed_in(found)
    assert found[1:] == [
        (
            "/admin/library/book/add/post/",
            {
                "csrfmiddlewaretoken": ["t0k3n"],
                "title": ["A Replayed Almanac"],
                "author": ["Paul Player"],
                "_save": ["Save"],
            },
        )
    ]


@pytest.mark.parametrize(
    ("books", "code"), [("gone", "SR_REPLAY_UI_TARGET_NOT_FOUND"), ("twice", "SR_REPLAY_UI_TARGET_AMBIGUOUS")]
)
async def test_create_book_fails_closed_when_the_add_link_is_gone_or_twice(
    books: str,
    code: str,
    server: LocalServer,
    store: Store,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sessions: WarmSessions,
) -> None:
    """The book model's row is missing (only other models' "Add" links remain, one of them in the
    same table) or listed twice: no add form is ever opened, nothing is posted after signing in."""
    await record(server, store, tmp_path, "create-book")
    AdminSite(server, "new").serve(added="A Replayed Almanac", books=books)
    outcome = await replay(
        server,
        store,
        "create-book",
        {"username": "operator", "title": "A Replayed Almanac", "author": "Paul Player"},
        monkeypatch,
        timeout_ms=5_000,
        sessions=sessions,
    )
    assert outcome.error is not None
    assert outcome.error.code == code
    found = posts(server)
    assert signed_in(found)
    assert len(found) == 1
    assert not any(path.startswith("/admin/library/book/add/") for _, path in server.requests)


@pytest.mark.parametrize("version", ["old", "new"])
async def test_bulk_delete_with_confirmation_on_both_versions(
    version: str,
    server: LocalServer,
    store: Store,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sessions: WarmSessions,
) -> None:
    """Recorded with one matching book; replayed with a query that matches two, so the confirmation
    page holds one more hidden input before "Yes, I'm sure" (its position moves), and in the new
    version the select-all checkbox has gained an aria-label."""
    await record(server, store, tmp_path, "bulk-delete")
    AdminSite(server, version).serve(query="Walden")
    outcome = await replay(
        server,
        store,
        "bulk-delete",
        {"username": "operator", "q": "Walden", "action": "delete_selected"},
        monkeypatch,
        sessions=sessions,
    )
    assert outcome.status == "succeeded", outcome.error and outcome.error.to_json()
    found = posts(server)
    assert signed_in(found)
    assert [(path, fields.get("_selected_action"), fields.get("action")) for path, fields in found[1:]] == [
        ("/admin/library/book/action/", ["3", "7"], ["delete_selected"]),
        ("/admin/library/book/delete/", ["3", "7"], ["delete_selected"]),
    ]


@pytest.mark.parametrize("version", ["old", "new"])
async def test_open_a_search_result_named_after_the_query(
    version: str,
    server: LocalServer,
    store: Store,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sessions: WarmSessions,
) -> None:
    """The result link's text is the searched title (redacted at recording): the recorder makes it
    an input-chosen target (the result link whose text holds the query `q` as a whole token, a
    structure only, no page text kept), so it opens the right result on a page that shows another
    title."""
    await record(server, store, tmp_path, "open-result")
    entry = store.get("open-result")
    click = entry.draft.actions[-2]
    assert click.kind == "click"
    fingerprint = click.target.fingerprint
    assert (fingerprint.name_hash, fingerprint.text_hash, fingerprint.row_hash) == (None, None, None)
    assert click.to_json()["target"]["filter"] == {"containsToken": {"ref": "parameter", "name": "q"}}
    AdminSite(server, version).serve(query="Emma")
    outcome = await replay(
        server, store, "open-result", {"username": "operator", "q": "Emma"}, monkeypatch, sessions=sessions
    )
    assert outcome.status == "succeeded", outcome.error and outcome.error.to_json()
    assert ("GET", "/admin/library/book/9/change/?_changelist_filters=q%3DEmma") in server.requests
