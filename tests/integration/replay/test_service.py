"""services.replaying around the engine: a replay is a run and never rewrites the skill, and every
replay, whatever happened, leaves content-free audit events (a refused one exactly one)."""

from __future__ import annotations

import pytest

from skillreel.model.actions import ClickAction, NavigateAction, TypeAction
from skillreel.model.lifecycle import replace_draft
from skillreel.model.refs import ParameterRef
from skillreel.replay.engine import StepProgress
from skillreel.services import replaying
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import AuditNote, Store, utc_now
from tests.support.describe import describe_url
from tests.support.factory import build_draft, events_log, store_approved, url_environment
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser  # every test describes its page's elements in Chromium

PAGE = """<!doctype html><html><body><main><label for="q">Query</label><input id="q" name="q">
<button id="go" type="button">Go</button></main></body></html>"""


async def skill(server: LocalServer, store: Store) -> None:
    bundles = await describe_url(server, "/app", PAGE, {"q": "#q", "go": "#go"})
    url = server.url("/app")
    store_approved(
        store,
        build_draft(
            "service-skill",
            url_environment(url),
            [
                NavigateAction(id="a1", url=url),
                TypeAction(id="a2", target=bundles["q"], value=ParameterRef(name="q")),
                ClickAction(id="a3", target=bundles["go"]),
            ],
        ),
    )


async def test_a_skill_changed_during_the_replay_is_not_overwritten_and_the_run_stays_true(
    server: LocalServer, store: Store
) -> None:
    await skill(server, store)
    before = store.get("service-skill")

    def rerecord(step: StepProgress) -> None:
        if (step.action_id, step.phase) == ("a3", "start"):
            with Store.open() as other:  # another process records the skill again meanwhile
                other.update(
                    "service-skill",
                    lambda e: replace_draft(e, e.draft, events_log(), utc_now()),
                    AuditNote(kind="record"),
                )

    outcome = await replay_skill(
        store, ReplayRequest(name="service-skill", inputs={"q": "x"}), progress=rerecord
    )
    # the run acted on the revision it reserved: it succeeded, and says so (the first version
    # reported SR_RECORD_REVISION_CONFLICT for a replay that had acted); the new draft is untouched
    assert outcome.error is None, outcome.error.to_json()
    assert (outcome.status, outcome.revision, outcome.recorded) == ("succeeded", before.revision, True)
    assert outcome.validated_revision is None
    after = store.get("service-skill")
    assert (after.status, after.revision, after.last_report) == ("draft", before.revision + 1, None)
    event = store.audit_events()[-1]
    assert (event.kind, event.outcome, event.revision, event.run) == (
        "run-end",
        "ok",
        before.revision,
        outcome.run_id,
    )
    (run,) = store.runs("service-skill")
    assert (run.outcome, run.record.revision) == ("succeeded", before.revision)


async def test_refusals_before_the_browser_are_audited_and_change_nothing(
    server: LocalServer, store: Store
) -> None:
    await skill(server, store)
    before = store.get("service-skill")
    count = store.audit_count()
    outcome = await replay_skill(store, ReplayRequest(name="service-skill"))
    assert outcome.error is not None
    assert outcome.error.code == "SR_REPLAY_PARAMETER_MISSING"
    assert outcome.to_json() == {  # the same keys as a success; the error goes beside it in the envelope
        "status": "failed",
        "name": "service-skill",
        "revision": before.revision,
        "runId": None,
        "recorded": False,
        "reportDigest": None,
        "steps": [],
        "sideEffects": False,
        "healed": False,
        "healProposal": False,
        "environment": None,
        "validatedRevision": None,
        "outputs": None,  # a refused replay read nothing
    }
    assert store.get("service-skill") == before
    assert store.audit_count() == count + 1
    event = store.audit_events()[-1]
    assert (event.kind, event.name, event.outcome, event.revision) == (
        "replay-refused",
        "service-skill",
        "failed",
        before.revision,
    )
    unknown = await replay_skill(store, ReplayRequest(name="no-such-skill"))
    assert unknown.error is not None
    assert unknown.error.code == "SR_RECORD_NOT_FOUND"
    assert (store.audit_events()[-1].kind, store.audit_events()[-1].code) == (
        "replay-refused",
        "SR_RECORD_NOT_FOUND",
    )
    assert store.run_count() == 0


async def test_a_defect_is_still_audited_then_raised(
    server: LocalServer, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    await skill(server, store)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(replaying, "run_preflight", broken)
    with pytest.raises(RuntimeError):
        await replay_skill(store, ReplayRequest(name="service-skill", inputs={"q": "x"}))
    event = store.audit_events()[-1]
    assert (event.kind, event.outcome, event.code) == ("replay-refused", "failed", "SR_RECORD_INTERNAL")
