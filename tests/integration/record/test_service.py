"""services.recording without a browser: storing, re-recording, policy, enabled skills."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

from skillreel.errors import RecordError
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate, text_hash
from skillreel.model.policy import Policy, PolicySettings
from skillreel.record.project import ProjectionOptions, project
from skillreel.sandbox.files import storage_state_digest
from skillreel.services import recording
from skillreel.services.record_preflight import RecordRequest, default_description, prepare
from skillreel.services.recording import (
    _refuse_enabled,
    content_free_target,
    known_capabilities,
    record_skill,
    store_draft,
)
from skillreel.store import Store
from tests.support import factory
from tests.support.factory import T0


def test_store_draft_inserts_then_replaces(skillreel_home: Path) -> None:
    log = factory.events_log(2)
    draft = project(
        log, ProjectionOptions(name="two-clicks", description="d", environment=factory.html_environment())
    )
    now = [T0]
    with Store.open(skillreel_home, clock=lambda: now[0]) as store:
        first = store_draft(store, draft, log)
        now[0] = "2026-01-02T03:04:06Z"
        second = store_draft(store, draft, log)
        assert (first.revision, second.revision) == (1, 2)
        assert (first.updated_at, second.updated_at) == (T0, "2026-01-02T03:04:06Z")
        assert [e.kind for e in store.audit_events("two-clicks")] == ["record", "record"]


def test_a_policy_that_forbids_a_capability_refuses_the_draft(skillreel_home: Path) -> None:
    log = factory.events_log(1)
    draft = project(
        log, ProjectionOptions(name="one-click", description="d", environment=factory.html_environment())
    )
    with Store.open(skillreel_home) as store:
        settings = PolicySettings(allowed_capabilities=("net.navigate", "ui.observe"))
        store.set_policy(Policy.from_settings(settings))
        with pytest.raises(RecordError) as info:
            store_draft(store, draft, log)
        assert info.value.code == "SR_RECORD_POLICY_DENIED"
        assert store.entries() == []


def test_a_policy_that_forbids_what_the_script_will_do_refuses_before_any_browser(
    skillreel_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 11 item 10: what the demonstration will surely need (navigation; a script's clicks and
    typing; an assertions file's checks) is checked against the policy before a browser starts (it
    used to be checked after the demonstration had run)."""
    html = tmp_path / "page.html"
    html.write_text("<button id=go>Go</button>")
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"steps": [{"do": "click", "selector": "#go"}]}))

    async def no_browser(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("a browser was started")

    monkeypatch.setattr(recording, "capture", no_browser)
    request = RecordRequest(name="clicks", html_path=html, automation=script)
    assert known_capabilities(prepare(request)) == ("net.navigate", "ui.interact")
    with Store.open(skillreel_home) as store:
        settings = PolicySettings(allowed_capabilities=("net.navigate", "ui.observe"))
        store.set_policy(Policy.from_settings(settings))
        with pytest.raises(RecordError) as info:
            asyncio.run(record_skill(store, request))
        assert info.value.code == "SR_RECORD_POLICY_DENIED"
        assert store.entries() == []


def test_an_interactive_recording_surely_navigates_and_nothing_more_is_known() -> None:
    prepared = prepare(RecordRequest(name="by-hand", url="https://example.org/"))
    assert known_capabilities(prepared) == ("net.navigate",)


@dataclass
class _Stub:
    status: str


class _StubStore:
    def __init__(self, status: str | None) -> None:
        self._status = status

    def find(self, name: str) -> _Stub | None:
        return _Stub(self._status) if self._status else None


@pytest.mark.parametrize(
    ("status", "refused"),
    [(None, False), ("draft", False), ("validated", False), ("revoked", False), ("enabled", True)],
)
def test_an_enabled_skill_is_not_recorded_over(status: str | None, refused: bool) -> None:
    if refused:
        with pytest.raises(RecordError) as info:
            _refuse_enabled(_StubStore(status), "busy")  # type: ignore[arg-type]  # a stub: find() only
        assert info.value.code == "SR_RECORD_STATE_INVALID"
    else:
        _refuse_enabled(_StubStore(status), "busy")  # type: ignore[arg-type]  # a stub: find() only


def test_prepare_builds_the_environment_before_any_browser(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text('{"cookies": [{"name": "sid", "value": "v", "expires": 1712345678.5}], "origins": []}')
    prepared = prepare(
        RecordRequest(
            name="with-login",
            url="http://127.0.0.1:8000/app?code=X&token=t#y",
            allowed_origins=("https://api.example.test",),
            identity="ops@example",
            storage_state=state,
            viewport=(800, 600),
        )
    )
    environment = prepared.environment
    assert environment.start_url == "http://127.0.0.1:8000/app?code=X"  # a business code stays
    assert environment.allowed_origins == ("http://127.0.0.1:8000", "https://api.example.test")
    assert environment.storage_state_digest == storage_state_digest(
        {"cookies": [{"name": "sid", "value": "v", "expires": 1712345678.5}], "origins": []}
    )
    assert (environment.viewport.width, environment.viewport.height) == (800, 600)
    assert prepared.description == default_description("with-login")
    assert 1 <= len(prepared.description) <= 1024
    assert prepared.interactive


def test_a_content_free_target_keeps_no_content_features() -> None:
    """A check is about content that changes with the data ("Successfully deleted 2 books." after
    recording "... 1 book."): its target is found by selector, attributes and place."""
    said = text_hash(factory.SALT, "Successfully deleted 1 book.")
    fp = Fingerprint(
        tag="li",
        attributes={"class": text_hash(factory.SALT, "success")},  # type: ignore[dict-item]
        text_hash=said,
        name_hash=said,
    )
    bundle = LocatorBundle(
        candidates=(
            LocatorCandidate(strategy="role-name", selector=f"role=listitem name={said}", match_count=1),
            LocatorCandidate(strategy="css", selector="ul > li", match_count=1),
        ),
        fingerprint=fp,
    )
    checked = content_free_target(bundle)
    assert [c.strategy for c in checked.candidates] == ["css"]
    assert (checked.fingerprint.text_hash, checked.fingerprint.name_hash) == (None, None)
    assert checked.fingerprint.attributes == fp.attributes
    labelled = bundle.model_copy(
        update={"fingerprint": fp.model_copy(update={"name_hash": text_hash(factory.SALT, "Status")})}
    )
    assert content_free_target(labelled).fingerprint.name_hash == text_hash(factory.SALT, "Status")
