"""Use case: record a skill from one demonstration (``skillreel record``).

``prepare(request)`` checks every input before a browser starts (name, target policy, files,
limits, secret patterns in the user's own texts). ``record_skill(store, request)`` then captures
the demonstration in Chromium (scripted with ``--automation``, else a person in a headed window),
projects the value-free events log onto a draft (pure), scans everything that would be stored,
drops the typed values, and stores the draft: a new skill, or a new draft revision of an existing
one that is not enabled. Any failure stores nothing; a demonstration that fails keeps what it
captured for ``record --resume`` (``record.kept``), which continues it.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

from playwright.async_api import Error as PlaywrightError

from ..errors import InputError, RecordError, ReplayUIError, SkillreelError, TargetError
from ..model.actions import CAPABILITY_OF_KIND, Capability
from ..model.draft import Draft
from ..model.entry import StoreEntry
from ..model.environment import Environment, UrlTarget
from ..model.events import EventsLog, RecordedEvent
from ..model.lifecycle import new_entry, replace_draft
from ..model.limits import MAX_LOCATOR_CANDIDATES
from ..model.locators import LocatorBundle, LocatorCandidate
from ..model.login import LoginState
from ..model.urls import DEFAULT_RULE
from ..record.automation import AssertionsFile, named_at, perform
from ..record.capture import Capture, Dropped
from ..record.kept import KeptRecording, drop_kept, keep_failure, kept_for_resume
from ..record.live import LiveSteps, OnAction
from ..record.marking import Marking
from ..record.project import ProjectionOptions, plan, project
from ..record.recorder import Recorder
from ..record.redact import scan
from ..sandbox.cold import browser_session
from ..sandbox.context import BrowserSession
from ..sandbox.playwright_start import SETUP as CHROMIUM_SETUP
from ..store import AuditNote, Store
from ..vault.logins import LoginVault
from .record_preflight import (
    PreparedRecording,
    RecordRequest,
    _declared,
    _refuse_findings,
    prepare,
)

CAPTURE_FAILED: Final = "SR_RECORD_CAPTURE_FAILED"
AUTOMATION_FAILED: Final = "SR_RECORD_AUTOMATION_FAILED"


Prelude = Callable[[BrowserSession, Recorder], Awaitable[None]]
_T = TypeVar("_T")


@dataclass
class _Progress:
    """How far a demonstration got: the automation step under way (from 1), or the one after the
    script when it is over (a kept recording counts the steps before it as performed)."""

    step: int = 1

    def at(self, n: int) -> None:
        self.step = n


@dataclass(frozen=True)
class RecordResult:
    """The stored draft revision, and the origins the page asked for that were refused.

    Refused origins are page-chosen strings: a page can encode what was typed into a host name.
    They are shown so the user can extend the allowlist, but never when the recording typed a
    sensitive value (a password, an OTP step or a ``--sensitive`` field): then only their number.
    """

    entry: StoreEntry
    refused: tuple[str, ...]
    warnings: tuple[str, ...] = ()  # content-free: each names a scripted step that recorded nothing
    dropped: tuple[Dropped, ...] = ()  # what the recorder could not keep, counted by reason

    @property
    def origins_hidden(self) -> bool:
        draft = self.entry.draft
        return any(p.sensitive for p in draft.parameters) or any(
            a.kind == "human" and a.reason == "otp" for a in draft.actions
        )

    @property
    def denied_origins(self) -> tuple[str, ...]:
        return () if self.origins_hidden else self.refused

    def to_json(self) -> dict[str, Any]:
        draft = self.entry.draft
        target = draft.environment.target
        query = target.query if isinstance(target, UrlTarget) else None
        return {
            "name": self.entry.name,
            "revision": self.entry.revision,
            "status": self.entry.status,
            "draftDigest": draft.draft_digest,
            "strippedQueryKeys": list(query.stripped) if query is not None else [],
            "environments": [{"name": e.name, "origin": e.origin} for e in draft.environment.environments],
            "parameters": [p.to_json() for p in draft.parameters],
            "actions": [action_summary(a) for a in draft.actions],
            "deniedOrigins": list(self.denied_origins),
            "deniedOriginCount": len(self.refused),
            "deniedOriginsHidden": bool(self.refused) and self.origins_hidden,
            "warnings": list(self.warnings),
            "dropped": [d.to_json() for d in self.dropped],
        }


def action_summary(action: Any) -> dict[str, Any]:
    """An action as the CLI lists it: id, kind and content-free details (never selectors or URLs)."""
    out: dict[str, Any] = {"id": action.id, "kind": action.kind}
    for attr, key in (("reason", "reason"), ("key", "key"), ("check", "check")):
        if getattr(action, attr, None) is not None:
            out[key] = getattr(action, attr)
    value = getattr(action, "value", None)
    if value is not None and getattr(value, "ref", None) == "parameter":
        out["parameter"] = value.name
    for attr, key in (("output", "output"), ("until", "until"), ("accept", "accept")):
        if getattr(action, attr, None) is not None:
            out[key] = getattr(action, attr)
    flt = getattr(getattr(action, "target", None), "filter", None)
    if flt is not None:
        out["chosenBy"] = flt.contains_token.to_json()
    return out


async def _until_gone(session: BrowserSession) -> None:
    """Returns when the first page closes or crashes, or the browser disconnects."""
    gone = asyncio.get_running_loop().create_future()

    def mark(*_: Any) -> None:
        if not gone.done():
            gone.set_result(None)

    session.page.on("close", mark)
    session.page.on("crash", mark)
    session.browser.on("disconnected", mark)
    if session.crashed or session.page.is_closed():
        mark()
    await gone


async def _unless_gone(session: BrowserSession, work: Callable[[], Awaitable[_T]]) -> _T:
    """Run ``work`` (a scripted demonstration, or waiting for the person to finish) unless the
    browser goes away first, which fails the recording at once."""
    done = asyncio.ensure_future(work())
    gone = asyncio.ensure_future(_until_gone(session))
    try:
        finished, _ = await asyncio.wait({done, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (done, gone):
            task.cancel()
        await asyncio.gather(done, gone, return_exceptions=True)
    if gone in finished:
        raise RecordError(CAPTURE_FAILED, "the browser window was closed or crashed; nothing was stored")
    return done.result()


async def _add_assertions(recorder: Recorder, assertions: AssertionsFile) -> None:
    for n, spec in enumerate(assertions.assertions, start=1):
        if spec.check == "url_matches":
            recorder.append_check("assert", None, spec.check, spec.expected)
            continue
        assert spec.selector is not None
        counting = spec.check == "count"
        resolved = await recorder.resolve(spec.selector, all_matches=counting)
        if resolved.count < 0:
            raise InputError(AUTOMATION_FAILED, f"assertion {n}: its selector is not valid CSS")
        if resolved.count == 0:
            raise InputError(AUTOMATION_FAILED, f"assertion {n}: its selector matches no element")
        if resolved.count > 1 and not counting:
            raise InputError(
                AUTOMATION_FAILED, f"assertion {n}: its selector matches {resolved.count} elements"
            )
        target = resolved.target
        if target is None:
            raise InputError(
                AUTOMATION_FAILED,
                f"assertion {n}: its element cannot be described without text typed during the recording",
            )
        if spec.check != "text_equals":
            target = content_free_target(target)
        # The user's own selector is what the check means: it is the first candidate (the only one
        # for a count), before the ones the recorder generated.
        own = LocatorCandidate(strategy="css", selector=spec.selector, match_count=resolved.count)
        generated = () if counting else tuple(c for c in target.candidates if c.selector != spec.selector)
        target = LocatorBundle(
            candidates=(own, *generated)[:MAX_LOCATOR_CANDIDATES], fingerprint=target.fingerprint
        )
        recorder.append_event(spec.kind, target=target, **spec.event_fields)


def content_free_target(bundle: LocatorBundle) -> LocatorBundle:
    """The target of an ``observe`` or ``assert`` without what its content says: a check is about
    content that changes with the data ("Successfully deleted 2 books." after recording "... 1
    book."), so the element is found by its selector, attributes and place, never refused for its
    own text. (A ``text_equals`` target keeps its text: the check requires that very text.)"""
    fp = bundle.fingerprint
    changes: dict[str, Any] = {"text_hash": None}
    if fp.name_hash is not None and fp.name_hash == fp.text_hash:
        changes["name_hash"] = None
    return LocatorBundle(
        candidates=tuple(
            c for c in bundle.candidates if c.strategy != "role-name" or fp.name_hash != fp.text_hash
        ),
        fingerprint=fp.model_copy(update=changes),
    )


def _leave_to_the_person(_dialog: Any) -> None:
    """A dialog listener that does nothing: Playwright then leaves the dialog to the person in the
    headed window (instead of dismissing it), and the recorder records their answer."""


def _unknown_sensitive(events: Sequence[RecordedEvent], sensitive: frozenset[str]) -> str | None:
    """What to say when a ``--sensitive`` name matches none of the parameters recorded so far
    (None when every name matches): the unknown names and the parameters there are."""
    parameters = plan(events, sensitive).parameters
    unknown = sorted(sensitive - {p.name for p in parameters})
    if not unknown:
        return None
    known = ", ".join(p.name for p in parameters) or "none"
    return f"--sensitive names no recorded parameter: {', '.join(unknown)} (parameters: {known})"


def _refuse_unknown_sensitive(events: Sequence[RecordedEvent], sensitive: frozenset[str]) -> None:
    """``SR_RECORD_PARAMETER_UNKNOWN`` when a ``--sensitive`` name matches none of the parameters
    recorded so far. A scripted demonstration checks this once its last field is filled, before the
    steps after it (usually the one that acts on the site) run."""
    problem = _unknown_sensitive(events, sensitive)
    if problem is not None:
        raise InputError(
            "SR_RECORD_PARAMETER_UNKNOWN",
            f"{problem}; the demonstration was stopped before the steps after its last field, "
            "nothing was stored",
        )


async def _until_finished(
    recorder: Recorder,
    sensitive: frozenset[str],
    until_done: Callable[[], Awaitable[None]],
    on_notice: Callable[[str], None] | None,
) -> None:
    """Wait for the person to finish. When a ``--sensitive`` name still matches no field typed,
    say so and wait once more, so the person can type into that field instead of losing the
    demonstration (a second finish ends it; the recording is then refused)."""
    await until_done()
    if not sensitive or on_notice is None:
        return
    await recorder.flush()
    problem = _unknown_sensitive(recorder.events, sensitive)
    if problem is not None:
        on_notice(f"{problem}: type into that field now, or finish again to discard the recording")
        await until_done()


async def _demonstrate(
    prepared: PreparedRecording,
    session: BrowserSession,
    recorder: Recorder,
    until_done: Callable[[], Awaitable[None]] | None,
    terminal: Callable[[Marking], Awaitable[None]] | None,
    on_notice: Callable[[str], None] | None,
    kept: KeptRecording | None,
    progress: _Progress,
    prelude: Prelude | None = None,
) -> tuple[Capture, tuple[str, ...]]:
    environment = prepared.environment
    if prelude is not None:  # a repair: the approved steps before the new ones, not recorded
        await prelude(session, recorder)
    await recorder.start(session.page)
    start_ms = max(prepared.request.timeout_ms, 10_000)
    if kept is None and prelude is None:
        async with recorder.starting(environment.start_url):
            await session.goto_start(timeout_ms=start_ms)
    else:
        async with recorder.starting(None):
            if kept is not None:
                recorder.preload(kept.events.events)
                await _reopen(session, kept.page, start_ms)
    sensitive = frozenset(prepared.request.sensitive)
    warnings: tuple[str, ...] = ()
    if prepared.script is not None:
        script, timeout_ms = prepared.script, prepared.request.timeout_ms

        async def inputs_done() -> None:
            await recorder.flush()
            _refuse_unknown_sensitive(recorder.events, sensitive)

        async def after_action() -> None:
            await recorder.ready(timeout_ms)

        warnings = await _unless_gone(
            session,
            lambda: perform(
                session.page,
                script,
                timeout_ms=timeout_ms,
                between=recorder.settle,
                marks=recorder,
                inputs_done=inputs_done,
                leaving=recorder.flush,
                after_action=after_action,
                on_step=progress.at,
                skip=kept.steps_done if kept is not None else 0,
            ),
        )
        progress.at(len(script.steps) + 1)
    elif terminal is not None:
        session.page.on("dialog", _leave_to_the_person)
        marking, run_terminal = Marking(recorder), terminal

        async def terminal_done() -> None:
            await run_terminal(marking)

        await _unless_gone(session, lambda: _until_finished(recorder, sensitive, terminal_done, on_notice))
    elif until_done is not None:
        session.page.on("dialog", _leave_to_the_person)
        finish = until_done
        await _unless_gone(session, lambda: _until_finished(recorder, sensitive, finish, on_notice))
    else:
        raise InputError("SR_RECORD_USAGE", "an interactive recording needs a terminal (or use --automation)")
    await recorder.settle_page(prepared.request.timeout_ms)  # the last action's page, loaded and quiet
    await recorder.flush()
    if prepared.assertions is not None:
        await _add_assertions(recorder, prepared.assertions)
    if session.crashed:
        raise RecordError(CAPTURE_FAILED, "Chromium exited or a page crashed; nothing was stored")
    return recorder.finish(), warnings


async def _reopen(session: BrowserSession, url: str, timeout_ms: int) -> None:
    """Load the page a kept recording ended on (the allowlist applies as to any navigation)."""
    try:
        await session.page.goto(url, wait_until="load", timeout=timeout_ms)
    except PlaywrightError as exc:
        raise RecordError(CAPTURE_FAILED, "the page the kept recording ended on could not be loaded") from exc


async def capture(
    prepared: PreparedRecording,
    *,
    until_done: Callable[[], Awaitable[None]] | None = None,
    on_action: OnAction | None = None,
    terminal: Callable[[Marking], Awaitable[None]] | None = None,
    login_state: LoginState | None = None,
    on_notice: Callable[[str], None] | None = None,
    kept: KeptRecording | None = None,
    home: Path | None = None,
    salt: str | None = None,
    prelude: Prelude | None = None,
) -> tuple[Capture, tuple[str, ...], tuple[str, ...]]:
    """Run the demonstration in Chromium (signed in with ``login_state`` or the request's
    storage-state file); the capture, the refused origins (sorted) and the warnings. ``kept``: a
    kept recording to continue; ``home``: where a failed demonstration keeps what it captured;
    ``salt``: the skill's fingerprint salt when it exists (:func:`skill_salt`), else a new one;
    ``prelude``: runs on the open page before the recorder starts (``services.repairing``)."""
    salt = salt or secrets.token_hex(16)
    if kept is not None:
        salt = kept.events.salt  # the kept events' hashes and the new ones agree
    live = LiveSteps(on_action, prepared.request.sensitive) if on_action is not None else None
    target = prepared.environment.target
    rule = target.rule if isinstance(target, UrlTarget) else DEFAULT_RULE
    async with _recording_session(
        prepared.environment,
        html=prepared.html,
        storage_state=login_state or prepared.request.storage_state,
        headless=not prepared.interactive,
    ) as session:
        public = (prepared.environment.start_url, prepared.description, *prepared.request.failure_conditions)
        recorder = Recorder(
            session.context,
            salt=salt,
            on_event=live,
            public=public,
            url_rule=rule,
            dialogs=prepared.interactive,
            indicator=prepared.interactive,
        )
        progress = _Progress(kept.steps_done + 1 if kept is not None else 1)
        try:
            try:
                result, warnings = await _demonstrate(
                    prepared, session, recorder, until_done, terminal, on_notice, kept, progress, prelude
                )
            except PlaywrightError as exc:
                raise RecordError(
                    CAPTURE_FAILED, "the browser went away during the recording; nothing was stored"
                ) from exc
            except ReplayUIError as exc:
                if session.crashed:
                    raise RecordError(
                        CAPTURE_FAILED, "Chromium exited or a page crashed; nothing was stored"
                    ) from exc
                raise RecordError(CAPTURE_FAILED, f"{exc.message}; nothing was stored") from exc
        except SkillreelError as exc:
            error, keepable = named_at(exc, prepared.script, progress.step), recorder.keepable()
            if home is None or keepable is None:
                raise error from exc
            raise keep_failure(
                home,
                name=prepared.request.name,
                environment_digest=prepared.environment.environment_digest,
                events=keepable[0],
                page=keepable[1],
                salt=recorder.salt,
                steps_done=progress.step - 1 if prepared.script is not None else 0,
                resumed=kept is not None,
                error=error,
            ) from exc
        finally:
            await recorder.close()
        return result, session.ledger.denied_origins, warnings


@contextlib.asynccontextmanager
async def _recording_session(environment: Environment, **options: Any) -> AsyncIterator[BrowserSession]:
    """The recording's browser session. Chromium that cannot be found or started (no display for a
    headed window) is the recording's problem, ``SR_RECORD_CHROMIUM_SETUP``, never the replay code
    the sandbox raises; whatever the recording itself raises passes unchanged."""
    try:
        async with browser_session(environment, **options) as session:
            yield session
    except ReplayUIError as exc:
        if exc.code != CHROMIUM_SETUP:
            raise
        raise RecordError("SR_RECORD_CHROMIUM_SETUP", exc.message) from exc


def build_draft(prepared: PreparedRecording, captured: Capture) -> tuple[Draft, EventsLog]:
    """Project the capture onto a draft and scan everything that would be stored (pure steps)."""
    request = prepared.request
    options = ProjectionOptions(
        name=request.name,
        description=prepared.description,
        environment=prepared.environment,
        failure_conditions=request.failure_conditions,
        sensitive=frozenset(request.sensitive),
    )
    events = captured.events
    draft = project(events, options)
    if request.environments:
        draft = draft.evolve(environment=_declared(draft.environment, draft.actions, request.environments))
    _refuse_findings(scan(draft, events, captured.typed))
    return draft, events


def store_draft(store: Store, draft: Draft, events: EventsLog) -> StoreEntry:
    """Insert a new skill, or replace the draft of an existing one (refused when enabled)."""
    now = store.now()
    store.policy().require_capabilities(draft.capabilities)
    note = AuditNote(kind="record", digests={"draft": draft.draft_digest, "events": events.events_digest})
    if store.find(draft.name) is None:
        return store.insert(new_entry(draft, events, now), note)
    return store.update(draft.name, lambda entry: replace_draft(entry, draft, events, now), note)


def _login_state(store: Store, name: str | None) -> LoginState | None:
    """The body of the vault login ``--login`` names (``SR_RECORD_SESSION_MISSING``)."""
    if name is None:
        return None
    state = LoginVault(store.home).read(name)
    if state is None:
        raise TargetError(
            "SR_RECORD_SESSION_MISSING",
            f"the vault holds no login {name!r}: run `skillreel login set {name} FILE` first",
        )
    return state


_STEP_KINDS: Final = {
    "goto": "navigate",
    "click": "click",
    "type": "type",
    "select": "select",
    "press": "press",
}


def known_capabilities(prepared: PreparedRecording) -> tuple[Capability, ...]:
    """The capabilities the draft will surely need, known before any browser starts: navigation
    (every draft starts by loading its page), and for a scripted demonstration what its steps and
    assertions do. The policy is checked against them first, so a denied one costs no
    demonstration; the draft's full manifest is checked again before it is stored."""
    kinds = {"navigate"}
    if prepared.script is not None:
        kinds |= {_STEP_KINDS[step.do] for step in prepared.script.steps if step.do in _STEP_KINDS}
    if prepared.assertions is not None:
        kinds |= {spec.kind for spec in prepared.assertions.assertions}
    return tuple(sorted({CAPABILITY_OF_KIND[kind] for kind in kinds}))


def _refuse_enabled(store: Store, name: str) -> None:
    existing = store.find(name)
    if existing is not None and existing.status == "enabled":
        raise RecordError(
            "SR_RECORD_STATE_INVALID", f"skill {name!r} is enabled; revoke it before recording it again"
        )


def skill_salt(store: Store, name: str) -> str | None:
    """The fingerprint salt of the skill ``name`` if the store holds it: names are salted per skill,
    so recording it again gives identical elements identical hashes (``skillreel diff`` then shows
    only what changed)."""
    existing = store.find(name)
    return None if existing is None else existing.draft.fingerprint_salt


async def record_skill(
    store: Store,
    request: RecordRequest | PreparedRecording,
    *,
    until_done: Callable[[], Awaitable[None]] | None = None,
    on_action: OnAction | None = None,
    terminal: Callable[[Marking], Awaitable[None]] | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> RecordResult:
    """Record, project, scan and store one demonstration. Any failure stores nothing.

    ``until_done`` (interactive only) returns when the person finishes; ``terminal`` (interactive,
    instead of ``until_done``) is the terminal's loop, given a :class:`Marking` to mark elements for
    extraction, and returns when the person finishes; ``on_action(id, intent)`` hears of each new
    action as it is captured (its generated intent, ``click the button `#go```);
    ``on_notice(text)`` hears what the person should fix before finishing (a ``--sensitive`` name
    no field typed has produced yet).
    """
    prepared = request if isinstance(request, PreparedRecording) else prepare(request)
    _refuse_enabled(store, prepared.request.name)
    store.policy().require_capabilities(known_capabilities(prepared))
    state = _login_state(store, prepared.request.login)
    kept = (
        kept_for_resume(store.home, prepared.request.name, prepared.environment.environment_digest)
        if prepared.request.resume
        else None
    )
    captured, denied, warnings = await capture(
        prepared,
        until_done=until_done,
        on_action=on_action,
        terminal=terminal,
        on_notice=on_notice,
        login_state=state,
        kept=kept,
        home=store.home,
        salt=skill_salt(store, prepared.request.name),
    )
    try:
        draft, events = build_draft(prepared, captured)
    finally:
        captured.typed.clear()
    entry = store_draft(store, draft, events)
    drop_kept(store.home, prepared.request.name)
    return RecordResult(entry, denied, warnings, captured.dropped)
