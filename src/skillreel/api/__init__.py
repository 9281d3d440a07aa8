"""skillreel as a Python library: the CLI's verbs as functions, async first, each with a blocking twin.

    import skillreel.api as sr

    skills = sr.list_skills_sync()                       # the `list --json` data
    view = sr.show_sync("search")                        # the `show --json` data
    result = await sr.replay("search", {"query": "x"}, html=Path("page.html"))
    result["outputs"]                                    # the `replay --json` data

Every function calls the use case its verb calls (``services/``: the same pre-flight, policy, vault,
masking, run reservation, audit and store writes), so nothing here bypasses a check the CLI makes;
the arguments are checked as the verb's options are (``SR_RECORD_API_USAGE`` where click would
refuse them). A function returns the document the verb prints as its ``--json`` envelope's
``data``. A refusal raises the :class:`~skillreel.errors.SkillreelError` the verb reports, with the
same ``code``; a replay or batch that ran and did not succeed raises :class:`ReplayFailed` /
:class:`BatchFailed` (``SkillreelError``s carrying the verb's code, ``error``: the original, and
``result``: the document). The envelope's warnings become :class:`SkillreelWarning` warnings.

Sensitive inputs come only from the vault or from ``secrets=`` (a mapping read before the vault,
named by sensitive parameters only, never echoed); ``inputs`` refuses them as ``--input`` does.

The blocking twins end in ``_sync`` (``replay_sync``): one module to import, and the name at the
call site says it blocks, where two same-named functions in two namespaces would let a missing
``await`` pass unnoticed. A ``_sync`` function refuses to run inside a running event loop
(``SR_RECORD_API_USAGE``): await the async function there.

A store: pass ``store=`` (from :func:`open_store`, a context manager) or let each call open the
default one (``$SKILLREEL_HOME``). The audit log names the actor the CLI's verb would
(``cli``; ``batch`` for a batch on a store the call opens).
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import wraps
from pathlib import Path
from typing import Any, Literal, ParamSpec, TypeVar

from ..errors import InputError, SkillreelError
from ..model.envelope import ResultWarning
from ..model.limits import (
    DEFAULT_SETTLE_MS,
    DEFAULT_TIMEOUT_MS,
    DEFAULT_WORKERS,
    MAX_OPTION_NUMBER,
    TIMEOUT_MS_RANGE,
    WORKERS_RANGE,
)
from ..model.runs import Actor
from ..replay.engine import StepProgress
from ..store import Store
from . import arguments
from .arguments import InputValue

__all__ = [
    "BatchFailed",
    "ReplayFailed",
    "SkillreelWarning",
    "list_skills",
    "list_skills_sync",
    "open_store",
    "record",
    "record_sync",
    "replay",
    "replay_batch",
    "replay_batch_sync",
    "replay_sync",
    "show",
    "show_sync",
]

P = ParamSpec("P")
T = TypeVar("T")
Document = dict[str, Any]


class ReplayFailed(SkillreelError):
    """A replay that was refused or ran and did not succeed: ``code`` is the one ``replay --json``
    reports, ``error`` the original error (its own class), ``result`` the replay document (the
    steps that ran, whether they acted on the site, the run id)."""

    def __init__(self, error: SkillreelError, result: Document) -> None:
        super().__init__(error.code, error.message, action_id=error.action_id, details=error.details)
        self.error = error
        self.result = result


class BatchFailed(SkillreelError):
    """A batch in which a row did not succeed (``SR_REPLAY_BATCH_FAILED``): ``result`` holds every
    row's result, as ``replay --batch --json`` prints it."""

    def __init__(self, error: SkillreelError, result: Document) -> None:
        super().__init__(error.code, error.message, action_id=error.action_id, details=error.details)
        self.error = error
        self.result = result


class SkillreelWarning(UserWarning):
    """A warning the verb's envelope would carry (``code: message``, content-free)."""


def open_store(home: Path | str | None = None) -> Store:
    """The store at ``home`` (default: ``$SKILLREEL_HOME`` or the user-data directory), opened
    and migrated as the CLI opens it; use it as a context manager (``with open_store() as s:``)."""
    return Store.open(arguments.path("home", home))


async def list_skills(*, store: Store | None = None) -> Document:
    """Every skill with its state and revision, and the store's size: ``list --json``'s data."""
    from ..services.listing import list_skills as listing

    with _using(store) as opened:
        return listing(opened).to_json()


async def show(name: str, revision: int | None = None, *, store: Store | None = None) -> Document:
    """One revision of a skill (the current one unless asked) as a reviewer reads it:
    ``show NAME [--revision N] --json``'s data."""
    from ..services.showing import show_skill

    arguments.skill_name(name)
    arguments.optional_number("revision", revision, 1, MAX_OPTION_NUMBER)
    with _using(store) as opened:
        return show_skill(opened, name, revision).to_json()


async def replay(
    name: str,
    inputs: Mapping[str, InputValue] | None = None,
    *,
    secrets: Mapping[str, str] | None = None,
    html: Path | str | None = None,
    url: str | None = None,
    storage_state: Path | str | None = None,
    environment: str | None = None,
    expected_revision: int | None = None,
    heal: bool = True,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    settle_ms: int = DEFAULT_SETTLE_MS,
    artifacts: Path | str | None = None,
    artifacts_on: Literal["failure", "always"] = "failure",
    progress: Callable[[StepProgress], None] | None = None,
    store: Store | None = None,
    downloads: Path | str | None = None,
) -> Document:
    """Replay an approved skill in headless Chromium: ``replay NAME --json``'s data (``downloads``:
    ``--downloads DIR``, where a skill's download steps save their files). Raises
    :class:`ReplayFailed` when it was refused or did not succeed; cancelling the task ends the run
    as ``cancelled`` (recorded) and raises ``services.replaying.ReplayCancelled`` (a
    ``CancelledError`` with the ``outcome``). ``progress`` hears of each step (content-free);
    a ``human`` step fails closed (there is no one to ask)."""
    from ..services.replaying import replay_skill

    request = arguments.replay_request(
        name, inputs, html, url, storage_state, environment, expected_revision, heal, timeout_ms,
        settle_ms, artifacts, artifacts_on, downloads=downloads,
    )  # fmt: skip
    with _using(store) as opened:
        source = arguments.secret_source(opened, name, secrets)
        outcome = await replay_skill(opened, request, secrets=source, progress=progress)
    document = outcome.to_json()
    _warn(outcome.warnings)
    if outcome.error is not None:
        raise ReplayFailed(outcome.error, document)
    return document


async def replay_batch(
    name: str,
    rows: Path | str,
    inputs: Mapping[str, InputValue] | None = None,
    *,
    secrets: Mapping[str, str] | None = None,
    workers: int = DEFAULT_WORKERS,
    stop_on_failure: bool = False,
    resume: str | None = None,
    html: Path | str | None = None,
    url: str | None = None,
    storage_state: Path | str | None = None,
    environment: str | None = None,
    expected_revision: int | None = None,
    heal: bool = True,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    settle_ms: int = DEFAULT_SETTLE_MS,
    store: Store | None = None,
) -> Document:
    """Replay once per row of a CSV or JSON Lines file on one Chromium: ``replay NAME --batch
    FILE --json``'s data (``inputs``: values every row shares). The file is checked whole before any
    browser starts. Raises :class:`BatchFailed` when a row did not succeed; cancelling the task
    raises ``services.batching.BatchCancelled`` with the ``outcome`` (every run it started recorded)."""
    from ..services.batching import BatchRequest, plan_batch
    from ..services.batching import replay_batch as run_batch

    request = arguments.replay_request(
        name, inputs, html, url, storage_state, environment, expected_revision, heal, timeout_ms,
        settle_ms, None, "failure",
    )  # fmt: skip
    batch = BatchRequest(
        request,
        arguments.required_path("rows", rows),
        arguments.number("workers", workers, *WORKERS_RANGE),
        arguments.flag("stop_on_failure", stop_on_failure),
        arguments.text("resume", resume),
    )
    with _using(store, actor="batch") as opened:
        source = arguments.secret_source(opened, name, secrets)
        plan = plan_batch(opened, batch, source)
        outcome = await run_batch(opened, plan, secrets=source)
    document = outcome.to_json()
    if outcome.error is not None:
        raise BatchFailed(outcome.error, document)
    return document


async def record(
    name: str,
    *,
    automation: Path | str,
    html: Path | str | None = None,
    url: str | None = None,
    allowed_origins: Sequence[str] = (),
    identity: str | None = None,
    storage_state: Path | str | None = None,
    login: str | None = None,
    environments: Mapping[str, str] | None = None,
    keep_query: Sequence[str] = (),
    strip_query: Sequence[str] = (),
    assertions: Path | str | None = None,
    sensitive: Sequence[str] = (),
    failure_conditions: Sequence[str] = (),
    description: str | None = None,
    viewport: tuple[int, int] | None = None,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    resume: bool = False,
    store: Store | None = None,
) -> Document:
    """Record a skill from a scripted demonstration (an automation file, headless): ``record NAME
    --automation FILE --json``'s data. The draft is stored for review, never approved here. A
    person's demonstration needs a terminal: use ``skillreel record`` for it."""
    from ..services.record_preflight import RecordRequest, prepare
    from ..services.recording import record_skill

    request = RecordRequest(
        name=arguments.skill_name(name),
        html_path=arguments.path("html", html),
        url=arguments.text("url", url),
        allowed_origins=arguments.texts("allowed_origins", allowed_origins),
        identity=arguments.text("identity", identity),
        storage_state=arguments.path("storage_state", storage_state),
        login=arguments.text("login", login),
        environments=tuple(arguments.named(environments or {})),
        keep_query=arguments.texts("keep_query", keep_query),
        strip_query=arguments.texts("strip_query", strip_query),
        automation=arguments.required_path("automation", automation),  # never a person's recording
        assertions=arguments.path("assertions", assertions),
        sensitive=arguments.texts("sensitive", sensitive),
        failure_conditions=arguments.texts("failure_conditions", failure_conditions),
        description=arguments.text("description", description),
        viewport=arguments.viewport_size(viewport),
        timeout_ms=arguments.number("timeout_ms", timeout_ms, *TIMEOUT_MS_RANGE),
        resume=arguments.flag("resume", resume),
    )
    prepared = prepare(request)
    with _using(store) as opened:
        return (await record_skill(opened, prepared)).to_json()


def _blocking(verb: Callable[P, Awaitable[T]]) -> Callable[P, T]:
    """The blocking twin of an async function: runs it in a new event loop, refusing inside one."""

    @wraps(verb)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(_awaited(verb(*args, **kwargs)))
        raise InputError(
            "SR_RECORD_API_USAGE",
            f"{verb.__name__}_sync was called inside a running event loop: "
            f"await skillreel.api.{verb.__name__}(...) there",
        )

    run.__name__ = run.__qualname__ = f"{verb.__name__}_sync"
    return run


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable


list_skills_sync = _blocking(list_skills)
show_sync = _blocking(show)
replay_sync = _blocking(replay)
replay_batch_sync = _blocking(replay_batch)
record_sync = _blocking(record)


@contextmanager
def _using(store: Store | None, actor: Actor | None = None) -> Iterator[Store]:
    if store is not None:
        if not isinstance(store, Store):
            raise arguments.usage("store must be a Store from skillreel.api.open_store()")
        yield store
        return
    with Store.open(actor=actor) as opened:
        yield opened


def _warn(found: Sequence[ResultWarning]) -> None:
    for warning in found:
        warnings.warn(f"{warning.code}: {warning.message}", SkillreelWarning, stacklevel=3)
