"""The replay use case: pre-flight, one Chromium session, the engine, the report, the store.

    outcome = await replay_skill(store, ReplayRequest(name="search", inputs={"query": "x"}),
                                 secrets=EnvKeyringSecrets(), progress=print_step, human=ask)
    outcome.to_json()   # the `data` of the `replay --json` and `skills_play` envelopes

* :func:`preflight` checks everything that needs no browser (``services/preflight.py``) and lists
  the required sensitive parameters the vault lacks (the MCP server asks a person for them).
* :func:`replay_skill` never raises a :class:`~skillreel.errors.SkillreelError`: it returns a
  :class:`ReplayOutcome`, ``succeeded`` with a :class:`~skillreel.model.report.ReplayReport` only
  when every step succeeded, else ``failed`` with the error (code, content-free message, action id)
  and the steps that finished before it.
* A success is recorded with ``lifecycle.replay_succeeded`` in one store transaction, compare-and-
  set on the revision read at the start (approved becomes validated; other states keep theirs); a
  healed step leaves a pending :class:`~skillreel.model.entry.HealProposal` (the draft with that
  step's locators described afresh from the element acted on) and never rewrites the approved
  draft. Every replay, failed or not, leaves one content-free ``replay`` audit event.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..errors import InputError, ReplayError, ReplayUIError, SkillreelError
from ..model.actions import Action, ExtractAction, HumanAction
from ..model.base import check_skill_name
from ..model.draft import Draft
from ..model.entry import HealProposal, StoreEntry
from ..model.envelope import ResultWarning
from ..model.graph import replace_steps
from ..model.io import mask_outputs, outputs_size
from ..model.lifecycle import replay_succeeded
from ..model.limits import MAX_OUTPUTS_BYTES
from ..model.locators import LocatorBundle
from ..model.report import ReplayReport, StepResult
from ..replay.engine import EngineOptions, HumanPrompt, Progress, ReplayEngine, StepProgress, StepRecord
from ..store import AuditNote, Store
from ..vault import EnvKeyringSecrets, SecretSource, secret_env_name
from .preflight import Preflight, ReplayRequest, check_options, preflight, run_preflight

if TYPE_CHECKING:
    from ..record.redact import TypedValues
    from ..replay.driver import Session

__all__ = [
    "HumanPrompt",
    "Preflight",
    "ReplayOutcome",
    "ReplayRequest",
    "SecretSource",
    "StepProgress",
    "preflight",
    "replay_skill",
    "secret_env_name",
]

log = logging.getLogger(__name__)

SessionFactory = Callable[..., AbstractAsyncContextManager["Session"]]


@dataclass(frozen=True)
class ReplayOutcome:
    """What a replay came to. ``steps`` holds ``(action_id, evidence_digest, healed)`` of the steps
    that finished (all of them on success; those before the failing one otherwise)."""

    status: Literal["succeeded", "failed"]
    name: str
    revision: int | None = None
    report: ReplayReport | None = None
    steps: tuple[tuple[str, str, bool], ...] = ()
    error: SkillreelError | None = None
    heal_proposed: bool = False
    warnings: tuple[ResultWarning, ...] = ()
    # what the skill read from the page: the caller's only (never stored, audited or logged);
    # None when the replay failed (nothing is returned from a failed run)
    outputs: Mapping[str, Any] | None = field(default=None, repr=False)

    @property
    def exit_status(self) -> int:
        return 0 if self.error is None else self.error.exit_status

    def to_json(self) -> dict[str, Any]:
        """The replay document, one shape for success and failure: the ``data`` of the
        ``skillreel replay --json`` and ``skills_play`` envelopes (the error goes beside it)."""
        return {
            "status": self.status,
            "name": self.name,
            "revision": self.revision,
            "reportDigest": self.report.report_digest if self.report is not None else None,
            "steps": [{"actionId": a, "evidenceDigest": d, "healed": h} for a, d, h in self.steps],
            "healed": any(h for _, _, h in self.steps),
            "healProposal": self.heal_proposed,
            "outputs": None if self.outputs is None else dict(self.outputs),
        }


async def replay_skill(
    store: Store,
    request: ReplayRequest,
    *,
    secrets: SecretSource | None = None,
    progress: Progress | None = None,
    human: HumanPrompt | None = None,
    session_factory: SessionFactory | None = None,
) -> ReplayOutcome:
    """Replay one skill; see the module docstring. ``session_factory`` replaces
    ``sandbox.browser.browser_session`` (tests and benchmarks only)."""
    entry: StoreEntry | None = None
    ran: list[StepRecord] = []  # the steps that finished, also when a later one fails
    try:
        check_options(request)
        entry = store.get(request.name)
        checked = run_preflight(entry, store.policy(), request, secrets or EnvKeyringSecrets())
        if checked.missing_sensitive:
            names = ", ".join(checked.missing_sensitive)
            envs = ", ".join(secret_env_name(entry.name, p) for p in checked.missing_sensitive)
            raise ReplayError(
                "SR_REPLAY_PARAMETER_MISSING",
                f"no value for sensitive parameter(s) {names}: set {envs} or store it in the OS keyring",
            )
        records, outputs = await _run(checked, progress, human, session_factory, ran)
        return _record_success(store, checked, records, outputs)
    except SkillreelError as exc:
        _audit_failure(store, request, entry, exc)
        return ReplayOutcome(
            "failed", request.name, entry.revision if entry else None, steps=_step_rows(ran), error=exc
        )
    except Exception:  # a defect: still leave the failed replay in the audit log, then let it surface
        _audit_failure(store, request, entry, SkillreelError("SR_RECORD_INTERNAL", "internal error"))
        raise


async def _run(
    checked: Preflight,
    progress: Progress | None,
    human: HumanPrompt | None,
    session_factory: SessionFactory | None,
    ran: list[StepRecord],
) -> tuple[tuple[StepRecord, ...], dict[str, Any]]:
    from playwright.async_api import Error as PlaywrightError

    from ..replay.driver import PlaywrightDriver

    if session_factory is None:
        from ..sandbox.browser import browser_session

        session_factory = browser_session
    draft = checked.draft
    needs_person = human is not None and any(isinstance(a, HumanAction) for a in draft.walk())
    options = EngineOptions(
        salt=draft.fingerprint_salt,
        allow_heal=checked.heal,
        timeout_ms=checked.timeout_ms,
        settle_ms=checked.settle_ms,
    )
    try:
        async with session_factory(
            draft.environment,
            html=checked.html,
            storage_state=checked.storage_state,
            headless=not needs_person,
        ) as session:
            engine = ReplayEngine(PlaywrightDriver(session), options, human=human, progress=progress)
            try:
                records = await engine.run(
                    draft.actions, checked.values, parameters=draft.parameters, labels=checked.labels
                )
            finally:
                ran.extend(engine.completed)
            return records, engine.outputs
    except PlaywrightError as exc:  # anything the driver did not already translate
        raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the browser failed during the replay") from exc


def _record_success(
    store: Store, checked: Preflight, records: Sequence[StepRecord], read: Mapping[str, Any]
) -> ReplayOutcome:
    entry = checked.entry
    # bounded and masked before anything is stored
    outputs, warnings = caller_outputs(checked.draft, checked.values, read)
    now = store.now()
    report = ReplayReport.build(
        name=entry.name,
        draft_digest=entry.draft.draft_digest,
        approval_digest=checked.approval.approval_digest,
        environment_digest=entry.draft.environment.environment_digest,
        steps=tuple(
            StepResult(
                action_id=r.action_id,
                evidence_digest=r.evidence.evidence_digest,
                healed=r.healed,
                runs=r.runs,
            )
            for r in records
        ),
        finished_at=now,
    )
    proposal = heal_proposal(entry, records, report, now, tuple(checked.values.values()))
    digests = {"report": report.report_digest, "draft": entry.draft.draft_digest}
    if proposal is not None:
        digests["healProposal"] = proposal.draft.draft_digest
    updated = store.update(
        entry.name,
        lambda current: replay_succeeded(current, report, now, proposal),
        AuditNote(kind="replay", digests=digests),
        expected_revision=entry.revision,
    )
    return ReplayOutcome(
        "succeeded",
        entry.name,
        updated.revision,
        report,
        _step_rows(records),
        None,
        proposal is not None,
        warnings,
        outputs if checked.draft.outputs else None,  # a skill that reads nothing returns null
    )


def caller_outputs(
    draft: Draft, values: Mapping[str, str], read: Mapping[str, Any]
) -> tuple[dict[str, Any], tuple[ResultWarning, ...]]:
    """The outputs as the caller gets them: every declared output (null when the run did not
    produce it; a collected object's missing fields null), each value that contains a sensitive
    input (of ``values``, the replay's inputs) masked, the whole within its size bound
    (``SR_REPLAY_OUTPUT_TOO_LARGE``)."""
    shaped: dict[str, Any] = {}
    for spec in draft.outputs:
        value = read.get(spec.name)
        if spec.type == "list" and isinstance(value, list):
            names = [f.name for f in spec.fields]
            value = [{n: row.get(n) for n in names} for row in value]
        shaped[spec.name] = value
    secrets = [values[p.name] for p in draft.parameters if p.sensitive and p.name in values]
    masked, count = mask_outputs(shaped, secrets)
    if outputs_size(masked) > MAX_OUTPUTS_BYTES:
        raise ReplayError(
            "SR_REPLAY_OUTPUT_TOO_LARGE",
            f"the outputs exceed {MAX_OUTPUTS_BYTES // 1024:,} KiB; nothing was returned",
        )
    warnings: tuple[ResultWarning, ...] = ()
    if count:
        warnings = (
            ResultWarning(
                code="SR_REPLAY_OUTPUT_MASKED",
                message=f"{count} output value(s) contained a sensitive input and were masked",
            ),
        )
    return masked, warnings


def _step_rows(records: Sequence[StepRecord]) -> tuple[tuple[str, str, bool], ...]:
    return tuple((r.action_id, r.evidence.evidence_digest, r.healed) for r in records)


def heal_proposal(
    entry: StoreEntry,
    records: Sequence[StepRecord],
    report: ReplayReport,
    now: str,
    values: Sequence[str] = (),
) -> HealProposal | None:
    """A candidate draft whose healed steps carry the locators of the elements actually acted on.

    The fresh locators come from the page, so they pass the recorder's redaction first: candidates
    whose texts echo a value typed in this replay or match a secret pattern are dropped, and
    fingerprint hashes of typed values cleared (``record.redact``). A proposal that would still add
    a finding to the draft is not made (the replay's report says which steps healed either way).
    """
    from ..record.redact import TypedValues, scan

    typed = TypedValues(values)
    salt = entry.draft.fingerprint_salt
    healed = {
        r.action_id: b
        for r in records
        if r.healed
        and r.healed_bundle is not None
        and (b := _clean_bundle(r.healed_bundle, typed, salt)) is not None
    }
    if not healed:
        return None
    draft = entry.draft
    steps = {a.id: a for a in draft.walk() if a.id in healed}
    actions = replace_steps(draft.actions, {i: _retarget(a, healed[i]) for i, a in steps.items()})
    candidate = draft.evolve(actions=actions)
    if candidate.draft_digest == draft.draft_digest:
        return None
    if {(f.path, f.category) for f in scan(candidate, typed=typed)} - {
        (f.path, f.category) for f in scan(draft, typed=typed)
    }:
        log.warning("a heal proposal was not made: its locators would add a redaction finding")
        return None
    return HealProposal(
        base_revision=entry.revision,
        base_draft_digest=draft.draft_digest,
        draft=candidate,
        healed_actions=tuple(a.id for a in draft.walk() if a.id in healed),
        report_digest=report.report_digest,
        proposed_at=now,
    )


def _clean_bundle(bundle: LocatorBundle, typed: TypedValues, salt: str) -> LocatorBundle | None:
    from ..record.redact import scrub_bundle, secret_categories

    kept = tuple(c for c in bundle.candidates if not secret_categories(c.selector))
    if not kept:
        return None
    cleaned: LocatorBundle | None = scrub_bundle(
        LocatorBundle(candidates=kept, fingerprint=bundle.fingerprint), typed, salt
    )
    return cleaned


def _retarget(action: Action, bundle: LocatorBundle) -> Action:
    """``action`` acting on the healed element; an extraction target stays content-free (no hash
    of what it reads), so it gets the healed locators without their text hashes."""
    if isinstance(action, ExtractAction):
        bare = bundle.without_content(action.attribute)
        if bare is None:
            return action  # nothing content-free describes it: the proposal keeps the old target
        bundle = bare
    data = {**action.to_json(), "target": bundle.to_json()}
    retargeted: Action = type(action).parse(data)
    return retargeted


def _audit_failure(
    store: Store, request: ReplayRequest, entry: StoreEntry | None, error: SkillreelError
) -> None:
    """One content-free ``replay`` event per failed replay; a failure to audit never hides the error."""
    name = entry.name if entry is not None else _valid_name(request.name)
    digests = {"draft": entry.draft.draft_digest} if entry is not None else {}
    note = AuditNote(
        kind="replay",
        name=name,
        revision=entry.revision if entry else None,
        outcome="failed",
        code=error.code,
        digests=digests,
    )
    try:
        store.audit(note)
    except SkillreelError as exc:
        log.warning("the failed replay could not be audited: %s", exc.code)


def _valid_name(name: str) -> str | None:
    try:
        return check_skill_name(name)
    except InputError:
        return None
