"""Use case: repair an approved skill by showing it again from one step (``skillreel record NAME
--from-step ID`` / ``--only-step ID``, issue 32 point 5).

When a replay fails closed at one step, recording every step again would repeat the real side
effects of the steps before it. A repair instead:

1. **plans** (:func:`plan_repair`, nothing runs): the skill must have an approved revision as its
   current one (not enabled: revoke it first), ``--expected-revision`` must match, the step must be
   a top-level step (``record.splice.repair_point``), the ``--input`` values must fit the
   parameters of the steps before it (sensitive ones come from the vault, as for a replay), the
   environment and sign-in are checked as a replay's. The plan lists the steps that will run and
   whether each may have side effects, for the person to confirm;
2. **replays** those steps in one sandboxed Chromium session, as a replay would (heal as the policy
   allows; a step that fails is ``SR_RECORD_REPAIR_PREFIX_FAILED`` and nothing is stored), then
3. **records** on the same page: ``--from-step`` records the rest of the task (a person in a headed
   window, or ``--automation FILE``) through the recording use case (``services.recording.capture``
   with this replay as its prelude); ``--only-step`` arms the recorder's mark and the element the
   person clicks (automation: ``{"steps": [{"do": "pick", "selector": S}]}``) becomes the step's
   target, every other step kept;
4. **stores** a new draft revision of the same skill (``record.splice``): the steps before ID byte
   for byte, the new ones after. It needs a review like any draft.

The values replayed are remembered by the recorder as typed (``Recorder.remember_typed``), so what
the page echoes of them stays out of the new steps' locators; the draft is scanned as any recorded
draft before it is stored.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from playwright.async_api import Error as PlaywrightError
from pydantic import Field

from ..errors import InputError, LifecycleError, RecordError, ReplayError, SkillreelError
from ..model.actions import Action, HumanAction, capability_manifest, walk
from ..model.base import Document, check_skill_name
from ..model.draft import Draft, Parameter
from ..model.entry import StoreEntry
from ..model.lifecycle import check_revision, ensure_replayable, replace_draft
from ..model.limits import DEFAULT_TIMEOUT_MS
from ..model.login import LoginState
from ..model.outputs import sensitive_values
from ..model.runs import can_act
from ..record.actionability import click
from ..record.automation import AutomationScript
from ..record.live import OnAction
from ..record.marking import Marking
from ..record.project import plan
from ..record.recorder import Recorder
from ..record.redact import scan
from ..record.splice import prefix_parameters, repair_point, repointed, spliced
from ..replay.driver import PlaywrightDriver
from ..replay.engine import EngineOptions, HumanPrompt, Progress, ReplayEngine
from ..sandbox.cold import browser_session
from ..sandbox.context import BrowserSession
from ..store import AuditNote, Store
from ..user_files import parse_document, read_user_file
from ..vault import EnvKeyringSecrets, SecretSource
from ..vault.logins import LoginVault
from .preflight import (
    InputValue,
    ReplayRequest,
    Target,
    check_capabilities,
    check_environment,
    check_inputs,
    label_inputs,
    secret_missing,
    typed_values,
)
from .record_preflight import PreparedRecording, RecordRequest, _refuse_findings
from .recording import capture

NOT_APPROVED: Final = "SR_RECORD_REPAIR_NOT_APPROVED"
PREFIX_FAILED: Final = "SR_RECORD_REPAIR_PREFIX_FAILED"
PICK_FAILED: Final = "SR_RECORD_REPAIR_PICK_FAILED"


class PickStep(Document):
    """``{"do": "pick", "selector": S}``: the element a scripted ``--only-step`` repair points at."""

    do: Literal["pick"]
    selector: str = Field(min_length=1, max_length=1024)


class PickScript(Document):
    """An ``--only-step`` automation file: ``{"steps": [{"do": "pick", "selector": S}]}``."""

    steps: tuple[PickStep]


@dataclass(frozen=True)
class RepairRequest:
    """One repair as the caller asks for it; ``inputs`` holds non-sensitive values only."""

    name: str
    step: str
    only: bool = False  # ``--only-step``: re-point this one step
    inputs: Mapping[str, InputValue] = field(default_factory=dict, repr=False)
    automation: Path | None = None
    html_path: Path | None = None
    storage_state: Path | None = None
    expected_revision: int | None = None
    timeout_ms: int = DEFAULT_TIMEOUT_MS


@dataclass(frozen=True)
class RepairPlan:
    """A repair that may start: the approved entry, where the kept steps end, what they need."""

    request: RepairRequest
    entry: StoreEntry
    index: int  # the repaired step's place among the top-level steps: the kept steps come before it
    target: Target
    parameters: tuple[Parameter, ...]  # the kept steps' parameters
    values: Mapping[str, str] = field(repr=False)
    labels: frozenset[str]
    heal: bool
    script: AutomationScript | PickScript | None

    @property
    def interactive(self) -> bool:
        return self.script is None

    @property
    def prefix(self) -> tuple[Action, ...]:
        """The steps replayed before the repaired one, as this replay runs them."""
        return self.target.actions[: self.index]

    def to_json(self) -> dict[str, Any]:
        """What will run, content-free: each kept step's id and kind, and whether it may act."""
        return {
            "name": self.entry.name,
            "revision": self.entry.revision,
            "step": self.request.step,
            "mode": "only-step" if self.request.only else "from-step",
            "replayed": [
                {"id": a.id, "kind": a.kind, "sideEffects": can_act(a)}
                for a in self.entry.draft.actions[: self.index]
            ],
        }


@dataclass(frozen=True)
class RepairResult:
    """The stored draft revision: which steps were kept as approved and which are new."""

    entry: StoreEntry
    previous_revision: int
    kept: tuple[str, ...]
    changed: tuple[str, ...]
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        draft = self.entry.draft
        return {
            "name": self.entry.name,
            "revision": self.entry.revision,
            "previousRevision": self.previous_revision,
            "status": self.entry.status,
            "draftDigest": draft.draft_digest,
            "kept": list(self.kept),
            "changed": list(self.changed),
            "actions": [{"id": a.id, "kind": a.kind} for a in draft.actions],
            "parameters": [p.to_json() for p in draft.parameters],
            "warnings": list(self.warnings),
        }


def _approved(store: Store, request: RepairRequest) -> StoreEntry:
    entry = store.get(check_skill_name(request.name))
    check_revision(entry, request.expected_revision)
    if entry.status == "enabled":
        raise LifecycleError(
            "SR_RECORD_STATE_INVALID", f"skill {entry.name!r} is enabled; revoke it before repairing it"
        )
    if entry.approval is None:
        raise InputError(
            NOT_APPROVED,
            f"skill {entry.name!r} is at revision {entry.revision}, a draft: a repair replays approved "
            "steps (review it first, or roll back to an approved revision)",
        )
    return entry


def _script(request: RepairRequest) -> AutomationScript | PickScript | None:
    if request.automation is None:
        return None
    text = read_user_file(request.automation, what="automation file")
    if request.only:
        return parse_document(PickScript, text, what="automation file")
    return parse_document(AutomationScript, text, what="automation file")


def _prefix_draft(draft: Draft, index: int) -> Draft | None:
    prefix = draft.actions[:index]
    if not prefix:
        return None
    return Draft.build(
        name=draft.name,
        description=draft.description,
        actions=prefix,
        parameters=prefix_parameters(draft, prefix),
        capabilities=capability_manifest(prefix),
        environment=draft.environment,
        fingerprint_salt=draft.fingerprint_salt,
        events_digest=draft.events_digest,
    )


def plan_repair(store: Store, request: RepairRequest, secrets: SecretSource | None = None) -> RepairPlan:
    """Every check of the module docstring's first point; raises ``SR_*``, runs and stores nothing."""
    if not 100 <= request.timeout_ms <= 30_000:
        raise InputError("SR_RECORD_USAGE", "--timeout must be 100 to 30,000 ms")
    entry = _approved(store, request)
    draft = entry.draft
    index = repair_point(draft, request.step, needs_target=request.only)
    script = _script(request)
    person = next((a for a in walk(draft.actions[:index]) if isinstance(a, HumanAction)), None)
    if person is not None and script is not None:
        raise ReplayError(
            "SR_REPLAY_HUMAN_REQUIRED",
            f"step {person.id}, before {request.step}, needs a person: repair in a window (without "
            "--automation); nothing was run",
            action_id=person.id,
        )
    approval = ensure_replayable(entry)
    policy = store.policy()
    check_capabilities(draft, approval, policy)
    prefix = _prefix_draft(draft, index)
    if prefix is None and request.inputs:
        raise InputError("SR_RECORD_USAGE", f"no step before {request.step} takes an input")
    given: dict[str, InputValue] = dict(request.inputs)
    if prefix is not None:
        check_inputs(prefix, given)
        source = secrets or EnvKeyringSecrets()
        missing = []
        for param in prefix.parameters:
            if param.sensitive:
                secret = source.get(draft.name, param.name)
                if secret is not None:
                    given[param.name] = secret
                elif param.required:
                    missing.append(param.name)
        if missing:
            raise secret_missing(draft.name, missing)
    replay = ReplayRequest(
        name=draft.name,
        inputs=request.inputs,
        html_path=request.html_path,
        storage_state=request.storage_state,
        timeout_ms=request.timeout_ms,
    )
    target = check_environment(draft, approval, replay, LoginVault(store.home))
    return RepairPlan(
        request=request,
        entry=entry,
        index=index,
        target=target,
        parameters=prefix.parameters if prefix is not None else (),
        values=typed_values(prefix, given) if prefix is not None else {},
        labels=label_inputs(prefix, given) if prefix is not None else frozenset(),
        heal=policy.heal_mode == "runtime",
        script=script,
    )


@dataclass(frozen=True)
class _Watch:
    """Who hears of the kept steps as they replay: the person a ``human`` step asks, the progress."""

    human: HumanPrompt | None = None
    progress: Progress | None = None


def _replayer(repair: RepairPlan, watch: _Watch) -> Callable[[BrowserSession, Recorder], Awaitable[None]]:
    """The prelude of the recording: the kept steps replayed on the open page (not recorded), their
    values remembered by the recorder as typed."""

    async def replay_prefix(session: BrowserSession, recorder: Recorder) -> None:
        recorder.remember_typed(repair.values.values())
        draft, target = repair.entry.draft, repair.target
        options = EngineOptions(
            salt=draft.fingerprint_salt,
            allow_heal=repair.heal,
            timeout_ms=repair.request.timeout_ms,
            url_rule=target.url_rule,
            hidden=sensitive_values(draft, repair.values),
        )
        engine = ReplayEngine(PlaywrightDriver(session), options, human=watch.human, progress=watch.progress)
        try:
            await engine.run(repair.prefix, repair.values, parameters=repair.parameters, labels=repair.labels)
        except SkillreelError as exc:
            where = f"step {exc.action_id}" if exc.action_id else "loading the start page"
            raise RecordError(
                PREFIX_FAILED,
                f"replaying the steps before {repair.request.step} failed at {where} ({exc.code}); "
                "nothing was stored",
                action_id=exc.action_id,
            ) from exc

    return replay_prefix


def _sign_in(repair: RepairPlan) -> tuple[LoginState | None, Path | None]:
    state = repair.target.storage_state
    return (state, None) if isinstance(state, LoginState) else (None, state)


async def repair_skill(
    store: Store,
    repair: RepairPlan,
    *,
    on_action: OnAction | None = None,
    terminal: Callable[[Marking], Awaitable[None]] | None = None,
    on_notice: Callable[[str], None] | None = None,
    human: HumanPrompt | None = None,
    progress: Progress | None = None,
) -> RepairResult:
    """Replay the kept steps, record the new ones on the same page, store the new draft (module
    docstring, points 2 to 4). Any failure stores nothing. ``human`` answers a kept ``human``
    step (interactive only); ``progress`` hears of each kept step as it replays."""
    watch = _Watch(human, progress)
    if repair.request.only:
        return await _repoint(store, repair, watch, on_notice)
    approved = repair.entry.draft
    login_state, storage_state = _sign_in(repair)
    prepared = PreparedRecording(
        request=RecordRequest(
            name=approved.name,
            automation=repair.request.automation,
            storage_state=storage_state,
            timeout_ms=repair.request.timeout_ms,
        ),
        environment=repair.target.environment,
        html=repair.target.html,
        script=repair.script if isinstance(repair.script, AutomationScript) else None,
        assertions=None,
        description=approved.description,
    )
    captured, _denied, warnings = await capture(
        prepared,
        on_action=on_action,
        terminal=terminal,
        on_notice=on_notice,
        login_state=login_state,
        salt=approved.fingerprint_salt,
        prelude=_replayer(repair, watch),
    )
    try:
        sensitive = frozenset(p.name for p in approved.parameters if p.sensitive)
        tail = plan(captured.events.events, sensitive)
        draft = spliced(approved, repair.index, tail.actions, tail.parameters, captured.events.events_digest)
        _refuse_findings(scan(draft, captured.events, captured.typed))
    finally:
        captured.typed.clear()
    kept = tuple(a.id for a in approved.actions[: repair.index])
    changed = tuple(a.id for a in draft.actions[repair.index :])
    note = AuditNote(
        kind="record", digests={"draft": draft.draft_digest, "events": captured.events.events_digest}
    )
    return _store(store, repair, draft, captured.events, note, kept, changed, warnings)


def _store(
    store: Store,
    repair: RepairPlan,
    draft: Draft,
    events: Any,
    note: AuditNote,
    kept: tuple[str, ...],
    changed: tuple[str, ...],
    warnings: tuple[str, ...] = (),
) -> RepairResult:
    store.policy().require_capabilities(draft.capabilities)
    now, previous = store.now(), repair.entry.revision
    entry = store.update(
        draft.name, lambda e: replace_draft(e, draft, events, now), note, expected_revision=previous
    )
    return RepairResult(entry, previous, kept, changed, warnings)


async def _repoint(
    store: Store, repair: RepairPlan, watch: _Watch, on_notice: Callable[[str], None] | None
) -> RepairResult:
    """``--only-step``: replay the kept steps, then the element the person marks is the step's new
    target (a mark: the click is swallowed, the page never receives it)."""
    approved, step = repair.entry.draft, repair.request.step
    login_state, storage_state = _sign_in(repair)
    timeout_ms = repair.request.timeout_ms
    async with browser_session(
        repair.target.environment,
        html=repair.target.html,
        storage_state=login_state or storage_state,
        headless=not repair.interactive,
    ) as session:
        recorder = Recorder(session.context, salt=approved.fingerprint_salt, dialogs=repair.interactive)
        try:
            await _replayer(repair, watch)(session, recorder)
            await recorder.start(session.page)
            async with recorder.starting(None):
                pass
            mark = await recorder.arm_mark(all_items=False)
            if isinstance(repair.script, PickScript):
                await click(
                    session.page, repair.script.steps[0].selector, n=1, do="pick", timeout_ms=timeout_ms
                )
            elif on_notice is not None:
                on_notice(f"click the element step {step} should act on (Ctrl-C discards)")
            marked = await mark
        except PlaywrightError as exc:
            raise RecordError(
                "SR_RECORD_CAPTURE_FAILED", "the browser went away during the repair; nothing was stored"
            ) from exc
        finally:
            await recorder.close()
    if marked.target is None:
        raise RecordError(
            PICK_FAILED, f"the element picked for step {step} cannot be described; nothing was stored"
        )
    draft = repointed(approved, repair.index, marked.target)
    _refuse_findings(scan(draft))
    note = AuditNote(kind="record", digests={"draft": draft.draft_digest, "events": draft.events_digest})
    kept = tuple(a.id for a in approved.actions if a.id != step)
    return _store(store, repair, draft, repair.entry.events, note, kept, (step,))
