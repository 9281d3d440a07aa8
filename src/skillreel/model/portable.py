"""Portable skills: the same steps on another origin of the same application (pure).

A skill declares named environments (``Environment.environments``); a reviewer approves the ones
it may use (``Approval.approved_environments``). To replay on one, :func:`rebase` moves the
recorded skill onto it:

* the target URL keeps its path and query; only its origin changes;
* the allowlist becomes the environment's own (declared, shown and approved with the draft);
* navigate steps on the recorded origin move with it; one on another origin stays as recorded
  and must be on the environment's allowlist, or the rebase is refused (nothing starts);
* a ``url_matches`` check (or a branch's URL condition) on a full URL of the recorded origin
  moves too; steps inside loops and branches (schema v2) move as the top-level ones do;
* the sign-in is the environment's own login, or none: the recorded sign-in never follows a
  skill to another origin.

:func:`declare` builds a named environment from what a person asked for, rebasing the recorded
allowlist unless the person gave the environment's own. Every failure is a :class:`URLRuleError`
naming the rule (never a URL).

:func:`strip_query_keys` is the reviewer's later choice to strip query keys the recording kept
(``env strip-query``): the start URL, navigate steps, ``url_matches`` checks and the events log
lose them, and the target's rule strips them from every page URL a replay compares.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .actions import Action, AssertAction, BranchAction, LoopAction, NavigateAction, WhileAction
from .conditions import UrlCondition
from .environment import Environment, NamedEnvironment, QueryKeys, UrlTarget, query_keys, url_target_digest
from .events import EventsLog, RecordedEvent
from .limits import MAX_ALLOWED_ORIGINS, MAX_ENVIRONMENTS
from .urls import (
    QueryRule,
    URLRuleError,
    normalise_origin,
    normalise_target_url,
    origin_of,
    rebase_url,
    strip_tokens,
    stripped_keys,
)


@dataclass(frozen=True)
class Rebased:
    """A skill moved onto a named environment: what the browser session and the engine use."""

    name: str
    environment: Environment
    actions: tuple[Action, ...]


def rebase(environment: Environment, actions: Sequence[Action], name: str) -> Rebased:
    """The recorded ``environment`` and ``actions`` moved onto the declared environment ``name``
    (the caller has checked it is declared and approved). Raises :class:`URLRuleError`."""
    named = environment.environment(name)
    target = environment.target
    if named is None or not isinstance(target, UrlTarget):
        raise URLRuleError("the skill declares no such environment")
    url = normalise_target_url(rebase_url(target.url, target.origin, named.origin), target.rule)
    moved = UrlTarget(
        url=url, url_digest=url_target_digest(url), allowed_origins=named.allowed_origins, query=target.query
    )
    rebased = Environment.build(
        target=moved, identity=environment.identity, viewport=environment.viewport, login=named.login
    )
    return Rebased(name, rebased, rebase_actions(actions, target.origin, named))


def rebase_actions(actions: Sequence[Action], origin: str, named: NamedEnvironment) -> tuple[Action, ...]:
    """``actions`` with URLs on ``origin`` moved onto ``named``; a navigate step to a third origin
    off its allowlist raises :class:`URLRuleError` naming the step."""

    def move(action: Action) -> Action:
        if isinstance(action, NavigateAction):
            if origin_of(action.url) != origin and origin_of(action.url) not in named.allowed_origins:
                raise URLRuleError(
                    f"step {action.id} loads a page of an origin off environment {named.name!r}'s allowlist"
                )
            return action.model_copy(update={"url": rebase_url(action.url, origin, named.origin)})
        if isinstance(action, AssertAction) and action.check == "url_matches":
            expected = action.expected
            if isinstance(expected, str) and not expected.startswith("/"):
                return action.model_copy(
                    update={"expected": _rebased_pattern(expected, origin, named.origin)}
                )
        if isinstance(action, BranchAction) and isinstance(action.condition, UrlCondition):
            cond = action.condition
            if not cond.expected.startswith("/"):
                moved = cond.model_copy(
                    update={"expected": _rebased_pattern(cond.expected, origin, named.origin)}
                )
                return action.model_copy(update={"condition": moved})
        return action

    return _each_step(actions, move)


def _each_step(actions: Sequence[Action], change: Callable[[Action], Action]) -> tuple[Action, ...]:
    """``actions`` with ``change`` applied to every step at any depth (a block first, then the
    steps of its loop body or branch lists, the block rebuilt around them)."""
    out: list[Action] = []
    for action in actions:
        action = change(action)
        if isinstance(action, LoopAction | WhileAction):
            action = action.model_copy(update={"body": _each_step(action.body, change)})
        elif isinstance(action, BranchAction):
            action = action.model_copy(
                update={
                    "then": _each_step(action.then, change),
                    "otherwise": _each_step(action.otherwise, change),
                }
            )
        out.append(action)
    return tuple(out)


def _rebased_pattern(expected: str, origin: str, onto: str) -> str:
    """A full-URL ``url_matches`` pattern on ``origin`` moved onto ``onto`` (others unchanged)."""
    prefix = origin + "/"
    if expected == origin or expected.startswith(prefix):
        return onto + expected[len(origin) :]
    return expected


def declare(
    environment: Environment,
    actions: Sequence[Action],
    name: str,
    origin: str,
    allowed_origins: Sequence[str] = (),
    login: str | None = None,
) -> NamedEnvironment:
    """A named environment on ``origin`` for the recorded ``environment``: its allowlist is
    ``origin`` plus ``allowed_origins`` when any are given, else the recorded allowlist rebased
    (the recorded origin replaced by ``origin``). Checked as a replay would use it (the rebase of
    the target and of every navigate step). Raises :class:`URLRuleError`."""
    target = environment.target
    if not isinstance(target, UrlTarget):
        raise URLRuleError("an HTML fixture skill has no other environments")
    home = normalise_origin(origin)
    if home == target.origin:
        raise URLRuleError("an environment's origin differs from the recorded one (that is the default)")
    others = allowed_origins or [o for o in target.allowed_origins if o != target.origin]
    allowed = tuple(sorted({home, *(normalise_origin(o) for o in others)}))
    if len(allowed) > MAX_ALLOWED_ORIGINS:
        raise URLRuleError(f"at most {MAX_ALLOWED_ORIGINS} allowed origins")
    try:
        named = NamedEnvironment(name=name, origin=home, allowed_origins=allowed, login=login)
    except ValueError as exc:
        raise URLRuleError("an environment needs a valid name and login name") from exc
    rebase(with_environment(environment, named), actions, name)  # every check a replay makes
    return named


def with_environment(environment: Environment, named: NamedEnvironment) -> Environment:
    """``environment`` declaring ``named`` (replacing one of the same name), digest recomputed."""
    kept = [e for e in environment.environments if e.name != named.name]
    if len(kept) >= MAX_ENVIRONMENTS:
        raise URLRuleError(f"a skill declares at most {MAX_ENVIRONMENTS} environments")
    return environment.evolve(environments=tuple(sorted([*kept, named], key=lambda e: e.name)))


def without_environment(environment: Environment, name: str) -> Environment:
    """``environment`` no longer declaring ``name`` (the caller checked it was declared)."""
    return environment.evolve(environments=tuple(e for e in environment.environments if e.name != name))


@dataclass(frozen=True)
class Stripped:
    """A skill whose URLs lost the query keys a reviewer chose to strip."""

    environment: Environment
    actions: tuple[Action, ...]
    events: EventsLog


def strip_query_keys(
    environment: Environment, actions: Sequence[Action], events: EventsLog, keys: Sequence[str]
) -> Stripped:
    """``keys`` stripped from every URL the skill holds, and from the page URLs a replay compares:
    they join the target's ``strip`` choices (and leave its ``keep``); a key the start URL carried
    joins ``stripped``. Raises :class:`URLRuleError` for an HTML fixture, a skill recorded before
    query-key choices (the first rule), or a key that is no plain name."""
    target = environment.target
    if not isinstance(target, UrlTarget):
        raise URLRuleError("an HTML fixture skill has no URL query")
    if target.query is None:
        raise URLRuleError("the skill was recorded before query-key choices; record it again to choose")
    wanted = {k.lower() for k in keys}
    chosen = query_keys([k for k in target.query.keep if k not in wanted], [*target.query.strip, *wanted])
    rule = chosen.rule
    stripped = tuple(sorted({*target.query.stripped, *stripped_keys(target.url, rule)}))
    query = QueryKeys(keep=chosen.keep, strip=chosen.strip, stripped=stripped)
    url = normalise_target_url(target.url, rule)
    moved = UrlTarget(
        url=url, url_digest=url_target_digest(url), allowed_origins=target.allowed_origins, query=query
    )
    return Stripped(
        environment.evolve(target=moved),
        _each_step(actions, lambda a: _strip_action(a, rule)),
        events.evolve(events=tuple(_strip_event(e, rule) for e in events.events)),
    )


def _strip_event(event: RecordedEvent, rule: QueryRule) -> RecordedEvent:
    changes: dict[str, str] = {}
    if event.url:
        changes["url"] = strip_tokens(event.url, rule)
    if event.check == "url_matches" and isinstance(event.expected, str):
        changes["expected"] = strip_tokens(event.expected, rule)
    return event.model_copy(update=changes) if changes else event


def _strip_action(action: Action, rule: QueryRule) -> Action:
    if isinstance(action, NavigateAction):
        return action.model_copy(update={"url": strip_tokens(action.url, rule)})
    if (
        isinstance(action, AssertAction)
        and action.check == "url_matches"
        and isinstance(action.expected, str)
    ):
        return action.model_copy(update={"expected": strip_tokens(action.expected, rule)})
    if isinstance(action, BranchAction) and isinstance(action.condition, UrlCondition):
        cond = action.condition
        return action.model_copy(
            update={"condition": cond.model_copy(update={"expected": strip_tokens(cond.expected, rule)})}
        )
    return action
