"""The one factory of test data: documents built through the model's own API (never hand-written JSON
with made-up digests), the salt and times they use, every lifecycle state, and skills put through the
real store exactly as the verbs would.

Times run T0 (recorded) < T1 (reviewed, replayed) < T2 (later changes), all in the past, so a verb
run by a test at the current time never moves an entry's clock backwards.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from skillreel.agent_skills.package import Launcher
from skillreel.model import lifecycle
from skillreel.model.actions import (
    Action,
    ClickAction,
    NavigateAction,
    PressAction,
    TypeAction,
    capability_manifest,
    parameter_refs,
)
from skillreel.model.canonical import bytes_digest, tagged_digest
from skillreel.model.draft import Draft, Parameter
from skillreel.model.entry import HealProposal, Installation, StoreEntry
from skillreel.model.environment import (
    Environment,
    HtmlTarget,
    NamedEnvironment,
    UrlTarget,
    build_url_target,
    url_target_digest,
)
from skillreel.model.events import EventsLog, RecordedEvent
from skillreel.model.locators import (
    ElementSet,
    Fingerprint,
    LocatorBundle,
    LocatorCandidate,
    Strategy,
    merge_heal,
)
from skillreel.model.refs import ParameterRef, TextFilter, ValueRef
from skillreel.model.report import ReplayReport, StepResult
from skillreel.model.runs import (
    BatchSlot,
    EndedOutcome,
    Lease,
    RunRecord,
    StepTally,
    can_act,
    finish_run,
)
from skillreel.model.urls import V1_RULE, normalise_target_url, origin_of
from skillreel.model.values import OutputSpec
from skillreel.store import AuditNote, RunFinish, Store
from skillreel.store.lease import boot_id

SALT = "0123456789abcdef0123456789abcdef"
T0 = "2026-01-02T03:04:05Z"
T1 = "2026-01-03T00:00:00Z"
T2 = "2026-01-04T00:00:00Z"
REVIEWER = "alice"


# ---- documents ----------------------------------------------------------------------------------


def bundle(
    selector: str, *, tag: str = "input", type_: str | None = "text", strategy: Strategy = "id"
) -> LocatorBundle:
    return LocatorBundle(
        candidates=(LocatorCandidate(strategy=strategy, selector=selector, match_count=1),),
        fingerprint=Fingerprint(tag=tag, type=type_, parent_path=("html", "body", "form")),
    )


def target(
    selector: str,
    *,
    tag: str = "td",
    type_: str | None = None,
    role: str | None = None,
    within: Literal["item"] | None = None,
    token: ValueRef | None = None,
    count: int = 1,
) -> LocatorBundle:
    """A CSS-selected target without text hashes (schema v2: an extraction target, a target inside
    a loop's item with ``within="item"``, or a target chosen by a whole-token ``token`` filter)."""
    return LocatorBundle(
        candidates=(LocatorCandidate(strategy="css", selector=selector, match_count=count),),
        fingerprint=Fingerprint(tag=tag, type=type_, role=role, parent_path=("html", "body", "main")),
        filter=TextFilter(contains_token=token) if token is not None else None,
        within=within,
    )


def element_set(
    selector: str = "tbody tr", *, tag: str = "tr", count: int = 20, token: ValueRef | None = None
) -> ElementSet:
    """A repeating structure: ``selector`` designates every item."""
    return ElementSet(
        candidates=(LocatorCandidate(strategy="css", selector=selector, match_count=count),),
        fingerprint=Fingerprint(tag=tag, parent_path=("html", "body", "main", "table", "tbody")),
        filter=TextFilter(contains_token=token) if token is not None else None,
    )


def content_free(found: LocatorBundle, *, attribute: str | None = None) -> LocatorBundle:
    """``found`` (a real bundle, as ``tests/support/describe.py`` gives it) without what would hold a hash of
    its text (``LocatorBundle.without_content``): an extraction target."""
    bare = found.without_content(attribute)
    assert bare is not None, "no content-free candidate"
    return bare


def graph_draft(
    actions: Sequence[Action],
    *,
    name: str = "graph-skill",
    parameters: Sequence[Parameter] = (),
    environment: Environment | None = None,
    outputs: Sequence[OutputSpec] = (),
) -> Draft:
    """A draft of exactly these steps (schema v1 or v2, whichever they need). ``parameters`` are
    used as given; every other parameter the steps refer to is a required untyped one."""
    given = {p.name: p for p in parameters}
    params = tuple(given.get(p, Parameter(name=p)) for p in parameter_refs(actions))
    return Draft.build(
        name=name,
        description="A skill under test.",
        actions=tuple(actions),
        parameters=params,
        capabilities=capability_manifest(actions),
        failure_conditions=(),
        environment=environment or html_environment(),
        fingerprint_salt=SALT,
        events_digest=events_log().events_digest,
        outputs=tuple(outputs),
    )


def html_environment(html: str = "<html><body>fixture</body></html>") -> Environment:
    """Bound to this HTML fixture (the digest the sandbox checks before it serves the fixture)."""
    return Environment.build(
        target=HtmlTarget(html_digest=bytes_digest("skillreel.html-fixture/v1", html.encode()))
    )


def url_environment(url: str = "http://127.0.0.1:8000/app", origins: tuple[str, ...] = ()) -> Environment:
    return Environment.build(target=build_url_target(url, origins))


def v1_url_environment(
    url: str = "http://127.0.0.1:8000/app", origins: tuple[str, ...] = (), **fields: Any
) -> Environment:
    """A URL environment exactly as the first version wrote it: the first query-key rule (no
    ``query`` key), no session, no named environments."""
    normal = normalise_target_url(url, V1_RULE)
    allowed = tuple(sorted({origin_of(normal), *origins}))
    target = UrlTarget(url=normal, url_digest=url_target_digest(normal), allowed_origins=allowed)
    return Environment.build(target=target, **fields)


def staging(
    origin: str = "http://127.0.0.1:9000", *, name: str = "staging", login: str | None = None
) -> NamedEnvironment:
    """A named environment on ``origin`` whose allowlist is its origin alone."""
    return NamedEnvironment(name=name, origin=origin, allowed_origins=(origin,), login=login)


LAUNCHER = Launcher(command=("/opt/skillreel/bin/python", "-P", "-m", "skillreel"))


def legacy_value_digest(salt: str, value: str) -> str:
    """The salted value digest events logs carried before issue 11 (``valueDigest``, salted with the
    log's own ``salt``); logs written since carry none. For building such old logs in tests."""
    return tagged_digest("skillreel.value/v1", {"salt": salt, "value": value})


def events_log(n: int = 1) -> EventsLog:
    events = tuple(RecordedEvent(seq=i, type="click") for i in range(n))
    return EventsLog.build(salt=SALT, events=events)


def draft(
    name: str = "search-invoices",
    *,
    environment: Environment | None = None,
    sensitive: bool = False,
    description: str = "Search invoices by customer.",
    events: EventsLog | None = None,
    **overrides: Any,
) -> Draft:
    """Four steps (navigate, type the query, press Enter, click Go) over an HTML fixture."""
    actions = (
        NavigateAction(id="a1", url="https://fixture.skillreel.invalid/"),
        TypeAction(id="a2", target=bundle("#q"), value=ParameterRef(name="query")),
        PressAction(id="a3", key="Enter", target=bundle("#q")),
        ClickAction(id="a4", target=bundle("#go", tag="button", type_="submit")),
    )
    fields: dict[str, Any] = dict(
        name=name,
        description=description,
        actions=actions,
        parameters=(Parameter(name="query", required=True, sensitive=sensitive),),
        capabilities=capability_manifest(actions),
        failure_conditions=("No invoice matches the query.",),
        environment=environment or html_environment(),
        fingerprint_salt=SALT,
        events_digest=(events or events_log()).events_digest,
    )
    fields.update(overrides)
    return Draft.build(**fields)


def build_draft(
    name: str,
    environment: Environment,
    actions: Sequence[Action],
    *,
    sensitive: Sequence[str] = (),
    optional: Sequence[str] = (),
) -> Draft:
    """A draft of exactly these actions; one parameter per parameter they refer to."""
    params = tuple(
        Parameter(name=p, required=p not in optional, sensitive=p in sensitive)
        for p in parameter_refs(actions)
    )
    return Draft.build(
        name=name,
        description="A skill under test.",
        actions=tuple(actions),
        parameters=params,
        capabilities=capability_manifest(actions),
        failure_conditions=(),
        environment=environment,
        fingerprint_salt=SALT,
        events_digest=events_log().events_digest,
    )


def entry(name: str = "search-invoices", now: str = T0, **draft_overrides: Any) -> StoreEntry:
    """A new skill at revision 1 (draft) holding :func:`draft`."""
    log = events_log()
    return lifecycle.new_entry(draft(name, events=log, **draft_overrides), log, now)


# ---- every lifecycle state ----------------------------------------------------------------------


def report_for(entry: StoreEntry, now: str = T1, *, healed: bool = False) -> ReplayReport:
    """A successful replay of the approved revision (``healed``: its last step healed)."""
    assert entry.approval is not None
    actions = entry.draft.actions
    steps = tuple(
        StepResult(
            action_id=a.id,
            healed=healed and i == len(actions) - 1,
            evidence_digest=tagged_digest("skillreel.evidence/v1", {"step": a.id}),
        )
        for i, a in enumerate(actions)
    )
    return ReplayReport.build(
        name=entry.name,
        draft_digest=entry.draft.draft_digest,
        approval_digest=entry.approval.approval_digest,
        environment_digest=entry.draft.environment.environment_digest,
        steps=steps,
        finished_at=now,
    )


def installation(now: str = T1, name: str = "search-invoices") -> Installation:
    return Installation(
        scope="project",
        paths=(f"/project/.agents/skills/{name}",),
        package_digest=bytes_digest("skillreel.package/v1", name.encode()),
        installed_at=now,
    )


def healed_draft(draft: Draft, selector: str = "#go-renamed", *, merged: bool = False) -> Draft:
    """The draft with action a4's locator replaced, as a heal would propose (``merged``: as an
    adopted heal merges it, the recorded candidates and fingerprint kept behind the new ones)."""

    def healed(action: Any) -> Any:
        new = bundle(selector, tag="button", type_="submit")
        if not merged:
            return action.model_copy(update={"target": new})
        moved = Fingerprint(tag="button", type="submit", parent_path=("html", "body", "main", "form"))
        redesigned = LocatorBundle(candidates=new.candidates, fingerprint=moved)  # the page was redesigned
        return action.model_copy(update={"target": merge_heal(action.target, redesigned)})

    actions = tuple(healed(a) if a.id == "a4" else a for a in draft.actions)
    fields = {n: getattr(draft, n) for n in Draft.model_fields if n not in ("draft_digest", "schema_")}
    return Draft.build(**{**fields, "actions": actions})


def proposal_for(
    entry: StoreEntry, now: str = T1, selector: str = "#go-renamed", *, merged: bool = False
) -> HealProposal:
    report = report_for(entry, now, healed=True)
    return HealProposal(
        base_revision=entry.revision,
        base_draft_digest=entry.draft.draft_digest,
        draft=healed_draft(entry.draft, selector, merged=merged),
        healed_actions=("a4",),
        report_digest=report.report_digest,
        proposed_at=now,
    )


def with_legacy_proposal(entry: StoreEntry, proposal: HealProposal, now: str = T1) -> StoreEntry:
    """The next revision of ``entry`` holding ``proposal`` in the entry itself, as the first version's
    replays left one (a store written before runs existed); stores now keep proposals in their rows."""
    return entry.evolve(
        heal_proposal=proposal, revision=entry.revision + 1, updated_at=max(now, entry.updated_at)
    )


# The pure steps from a fresh draft to each state (store_entry applies them with store.update).
def step_approve(e: StoreEntry, now: str = T1) -> StoreEntry:
    return lifecycle.approve(e, REVIEWER, now)


def step_replay(e: StoreEntry, now: str = T1) -> StoreEntry:
    return lifecycle.validate(e, report_for(e, now), now)


def step_enable(e: StoreEntry, now: str = T1) -> StoreEntry:
    return lifecycle.enable(e, installation(now, e.name), now)


def step_revoke(e: StoreEntry, now: str = T1) -> StoreEntry:
    return lifecycle.revoke(e, now)


Step = Callable[[StoreEntry, str], StoreEntry]
STEPS_TO: dict[str, tuple[Step, ...]] = {
    "draft": (),
    "approved": (step_approve,),
    "validated": (step_approve, step_replay),
    "enabled": (step_approve, step_replay, step_enable),
    "revoked": (step_approve, step_replay, step_enable, step_revoke),
}
_NOTE_OF_STEP: dict[Step, AuditNote] = {
    step_approve: AuditNote(kind="review", reviewer=REVIEWER),
    step_replay: AuditNote(kind="validate"),
    step_enable: AuditNote(kind="enable"),
    step_revoke: AuditNote(kind="revoke"),
}


def advance(entry: StoreEntry, status: str, now: str = T1) -> StoreEntry:
    """``entry`` (a draft) walked to ``status`` in memory, one revision per step."""
    for step in STEPS_TO[status]:
        entry = step(entry, now)
    return entry


def validated_entry(name: str = "search-invoices", **draft_overrides: Any) -> StoreEntry:
    """A validated entry (revision 3) built in memory."""
    return advance(entry(name, **draft_overrides), "validated")


# ---- skills in the real store -------------------------------------------------------------------


def store_entry(store: Store, entry: StoreEntry, status: str = "validated", *, now: str = T1) -> StoreEntry:
    """Insert a new skill and walk it to ``status`` through audited store updates, one revision per
    lifecycle step, exactly as the verbs would."""
    current = store.insert(entry, AuditNote(kind="record"))
    for step in STEPS_TO[status]:
        current = store.update(
            entry.name, _at(step, now), _NOTE_OF_STEP[step], expected_revision=current.revision
        )
    return current


def _at(step: Step, now: str) -> Callable[[StoreEntry], StoreEntry]:
    return lambda e: step(e, now)


def seed(
    store: Store,
    name: str = "search-invoices",
    status: str = "draft",
    *,
    now: str = T0,
    **draft_overrides: Any,
) -> StoreEntry:
    """A fresh :func:`entry`, stored and walked to ``status`` with every change at ``now``."""
    return store_entry(store, entry(name, now=now, **draft_overrides), status, now=now)


def store_approved(store: Store, draft: Draft) -> StoreEntry:
    """A new skill holding ``draft``, approved (ready to replay)."""
    return store_entry(store, lifecycle.new_entry(draft, events_log(), T0), "approved")


# ---- replay runs in the real store --------------------------------------------------------------


def started_run(
    store: Store,
    name: str = "search-invoices",
    *,
    lease: Lease | None = None,
    run_id: str | None = None,
    batch: BatchSlot | None = None,
) -> RunRecord:
    """A run of ``name``'s current revision reserved in the store, as a replay does before its browser
    starts (``lease``: the process holding it; default this one; ``batch``: a row of a runset)."""
    from skillreel.services.runs import started_run as run_of  # the product's one way to start a run

    run = run_of(store.get(name), store.actor, store.now(), batch)
    if run_id is not None or lease is not None:
        run = run.evolve(run_id=run_id or run.run_id, lease=lease or run.lease)
    return store.reserve_run(run)


def record_run(
    store: Store,
    name: str = "search-invoices",
    outcome: EndedOutcome = "succeeded",
    *,
    healed: bool = False,
    proposal: HealProposal | None = None,
    batch: BatchSlot | None = None,
) -> RunFinish:
    """A whole run through the store: reserved, then finished as ``outcome`` (every step done on
    success; the first step failed otherwise), with ``proposal`` when given."""
    run = started_run(store, name, batch=batch)
    e = store.get(name)
    actions = e.draft.walk()  # every step, as a run counts them
    if outcome == "succeeded":
        report = report_for(e, store.now(), healed=healed) if e.approval is not None else None
        tally = StepTally(
            steps_run=len(actions),
            steps_acted=sum(1 for a in actions if can_act(a)),
            healed_steps=(actions[-1].id,) if healed else (),
        )
        code = None
    else:
        report, tally = None, StepTally(steps_run=1)
        code = "SR_REPLAY_CANCELLED" if outcome == "cancelled" else "SR_REPLAY_UI_TARGET_NOT_FOUND"
    finished = finish_run(
        run,
        outcome,
        store.now(),
        tally=tally,
        code=code,
        report_digest=report.report_digest if report is not None else None,
        heal_proposal_digest=proposal.draft.draft_digest if proposal is not None else None,
    )
    return store.finish_run(finished, report=report, proposal=proposal)


# ---- signing keys -------------------------------------------------------------------------------


def write_keys(directory: Path, name: str = "key") -> tuple[Path, Path]:
    """A fresh Ed25519 key pair as PEM files: (private, public)."""
    key = Ed25519PrivateKey.generate()
    private = directory / f"{name}.pem"
    private.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    private.chmod(0o600)  # a signing key others may read is refused (SR_RECORD_SECRET_FILE_EXPOSED)
    public = directory / f"{name}.pub"
    public.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return private, public


FIRST_VERSION_STRATEGIES = frozenset({"testid", "id", "name", "aria-label", "label", "placeholder", "css"})


def first_version(bundle: LocatorBundle) -> LocatorBundle:
    """The bundle as the first version's recorder described the same element: no identity-model
    fingerprint fields (accessible name, button value, link, row, caption, route, stable id, scopes) and no
    role-name or href candidates."""
    fingerprint = bundle.fingerprint.model_copy(
        update=dict.fromkeys(
            (
                "name_hash",
                "value_hash",
                "link_hash",
                "row_hash",
                "caption_hash",
                "route_hash",
                "stable_id",
                "stable_name",
                "boundaries",
            )
        )
    )
    kept = tuple(c for c in bundle.candidates if c.strategy in FIRST_VERSION_STRATEGIES)
    return LocatorBundle(candidates=kept, fingerprint=fingerprint)


def dead_lease() -> Lease:
    """The lease of a process that has exited and been reaped."""
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    return Lease(pid=int(child.stdout), boot_id=boot_id())
