"""PURE projection of a value-free events log onto a Draft (ARCHITECTURE section 6).

``project(events, options)`` is a function of its arguments only: the same log and options always
give the same draft, byte for byte, and so the same ``draftDigest``. The draft keeps the log's
``eventsDigest``; the store entry keeps the log itself.

Rules, in order:

1. Each event becomes at most one step: ``navigate`` -> navigate; ``click`` -> click; ``input`` ->
   ``type`` (an ``otp`` control -> ``human``); ``select`` -> select; ``press`` -> press; ``human``
   -> human; ``observe``/``assert`` -> the user's checks; ``download`` -> download. An event on
   another page than the previous one's is preceded by a ``page`` step: ``to: "main"`` for the
   first page, ``to: "popup"`` for a popup newer than any visited before; a ``close`` event (the
   popup closed) is ``to: "main", close: true``. An event on an older popup becomes a ``human``
   step (replay follows the newest popup only).
2. Consecutive edits of the same field keep only the last one (not a choice made in a picker's
   list that stayed open, control ``multiselect``: it takes each, one ``choose`` step each);
   consecutive ``human`` steps with the same reason are one step (a person does that part at once).
3. Every ``type``/``select`` gets its own parameter, named from the field's hint and made unique
   with ``_2``, ``_3``...; a parameter is sensitive when its field was (password) or the user named
   it with ``--sensitive``. Action ids are ``a1``, ``a2``... in order.
4. Schema v2 (issue 12): a select whose option values were captured makes an ``enum`` parameter of
   those values (not when sensitive); a marked element (``extract`` event) becomes an ``extract``
   step; a ``wait`` event a ``wait`` step (for a text: a literal, or an earlier edit's parameter by
   name, never a sensitive one); a ``scroll`` event a ``scroll`` step; a ``hover`` event a
   ``hover`` step; an ``upload`` event an ``upload`` step with its own ``file`` parameter (never
   sensitive, never a default: the path is given at replay), replacing the person's step of the
   click on that file input just before it; a ``dialog`` event a
   ``dialog`` step when it follows the step that opened it (a click, press, type, select or
   navigation), else a human step. A click chosen by a typed value (``chosenBy``) gets a target
   filtered by that edit's parameter (whole token), when that edit is the parameter's final value
   and the parameter is not sensitive; otherwise a person does it (a ``human`` step): never a guess.
5. A ``choose`` event (an option chosen in a popup picker: ``record/picker.js``) becomes a
   ``choose`` step on the combobox with its own parameter, like a select: an ``enum`` of the
   option names its list showed when they were captured (screened, each name once), else a free
   string (a list that was searched or loads lazily). Typing into the combobox right before (a
   searchable one: the typed text filtered the list) is part of the choice, not a step.
6. A target keeps the display name its event's target holds (issue 31: page chrome in clear, for
   people only, screened at capture by ``record.redact.screen_display_name``); a target chosen by
   a typed value (a filter) keeps none.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

from ..errors import InputError, RecordError
from ..model.actions import (
    Action,
    AssertAction,
    ChooseAction,
    ClickAction,
    DialogAction,
    DownloadAction,
    ExtractAction,
    HoverAction,
    HumanAction,
    NavigateAction,
    ObserveAction,
    PageAction,
    PressAction,
    ScrollAction,
    SelectAction,
    TypeAction,
    UploadAction,
    WaitAction,
    capability_manifest,
)
from ..model.draft import Draft, Parameter
from ..model.environment import Environment
from ..model.events import EventsLog, FieldInfo, RecordedEvent
from ..model.limits import MAX_ACTIONS
from ..model.locators import LocatorBundle
from ..model.refs import LiteralValue, OutputRef, ParameterRef, TextFilter


@dataclass(frozen=True)
class ProjectionOptions:
    """What the draft takes from the user rather than from the log."""

    name: str
    description: str
    environment: Environment
    failure_conditions: tuple[str, ...] = ()
    sensitive: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Plan:
    """The actions and parameters a log projects to, and which event each parameter came from."""

    actions: tuple[Action, ...]
    parameters: tuple[Parameter, ...]
    sources: dict[str, tuple[int, ...]] = dc_field(default_factory=dict)  # parameter -> its edits' seqs


@dataclass
class _Step:
    kind: str
    seq: int
    target: LocatorBundle | None = None
    info: FieldInfo | None = None
    extra: dict[str, Any] = dc_field(default_factory=dict)
    merged: tuple[int, ...] = ()


def _retrying(event: RecordedEvent) -> _Step | None:
    """The event's step, with the retry an automation step gave it (issue 33)."""
    step = _step(event)
    if step is not None and event.retry is not None and step.kind == event.type:
        step.extra["retry"] = event.retry
    return step


def _paged(events: Sequence[RecordedEvent]) -> Iterable[_Step | None]:
    """The steps of ``events`` with a ``page`` step wherever the page changes (rule 1)."""
    current, newest = 0, 0
    for event in events:
        if event.type == "close":
            if current != event.page and event.page > newest:
                yield _Step("page", event.seq, extra={"to": "popup"})
            current, newest = 0, max(newest, event.page)
            yield _Step("page", event.seq, extra={"to": "main", "close": True})
            continue
        if event.page != current and event.page != 0 and event.page <= newest:
            yield _Step("human", event.seq, event.target, extra={"reason": "other"})
            continue
        if event.page != current:
            to = "main" if event.page == 0 else "popup"
            current, newest = event.page, max(newest, event.page)
            yield _Step("page", event.seq, extra={"to": to, "close": False})
        yield _retrying(event)


def _step(event: RecordedEvent) -> _Step | None:
    kind = {"input": "type"}.get(event.type, event.type)
    if kind == "type" and event.field is not None and event.field.control == "otp":
        return _Step("human", event.seq, event.target, extra={"reason": "otp"})
    if kind == "navigate":
        return _Step(kind, event.seq, extra={"url": event.url, "reason": event.reason}) if event.url else None
    if kind in ("type", "select", "choose", "upload"):
        if event.field is None or event.target is None:
            return _Step("human", event.seq, event.target, extra={"reason": "other"})
        extra = {"options": event.options, "from": event.from_output, "labels": event.option_labels}
        return _Step(kind, event.seq, event.target, event.field, extra=extra)
    if kind == "click" and event.target is None:
        return _Step("human", event.seq, extra={"reason": "other"})
    extras: dict[str, dict[str, Any]] = {
        "press": {"key": event.key},
        "human": {"reason": event.reason or "other"},
        "assert": {
            "check": event.check,
            "expected": event.expected,
            "at_least": event.at_least,
            "at_most": event.at_most,
        },
        "extract": {"extraction": event.extraction},
        "dialog": {"accept": event.accept, "expects": event.dialog},
        "wait": {"until": event.until, "expected": event.expected, "input": event.input},
        "scroll": {"to": event.to, "max_rounds": event.max_rounds},
        "click": {"chosen_by": event.chosen_by},
        "download": {"output": event.output},
    }
    return _Step(kind, event.seq, event.target, extra=extras.get(kind, {}))


def _same_field(a: _Step, b: _Step) -> bool:
    """Two edits of one field (not a choice in a list that stayed open: it takes several)."""
    return (
        a.kind == b.kind
        and not (b.info is not None and b.info.control == "multiselect")
        and a.info is not None
        and b.info is not None
        and a.info.param_hint == b.info.param_hint
        and a.target is not None
        and b.target is not None
        and a.target.candidates[0] == b.target.candidates[0]
    )


def _filtered(typed: _Step, chosen: _Step) -> bool:
    """Typing into a searchable combobox, then choosing in its list: the typed filter is part of
    the choice (the name chosen is the input), not a parameter of its own."""
    return (
        typed.kind == "type"
        and chosen.kind == "choose"
        and typed.target is not None
        and chosen.target is not None
        and typed.target.candidates[0] == chosen.target.candidates[0]
    )


def _chose_file(last: _Step | None, step: _Step) -> bool:
    """A click on a file input (a person's step until a file is chosen), then the file chosen for
    it: the upload is the step."""
    return (
        last is not None
        and step.kind == "upload"
        and last.kind == "human"
        and last.extra.get("reason") == "upload"
        and (last.target is None or last.target.candidates[0] == step.target.candidates[0])  # type: ignore[union-attr]
    )


def _same_target(a: _Step, b: _Step) -> bool:
    return a.target is not None and b.target is not None and a.target.candidates[0] == b.target.candidates[0]


def _coalesce(steps: Iterable[_Step]) -> list[_Step]:
    out: list[_Step] = []
    for step in steps:
        last = out[-1] if out else None
        if _chose_file(last, step):
            out[-1] = step
        elif last is not None and step.kind == "hover" == last.kind and _same_target(last, step):
            continue  # a scripted hover, then the hover the click's recorder saw: one step
        elif last is not None and step.kind in _EDITS and (_same_field(last, step) or _filtered(last, step)):
            step.merged = (*last.merged, last.seq)
            out[-1] = step
        elif (
            last is not None
            and step.kind == "human" == last.kind
            and step.extra["reason"] == last.extra["reason"]
        ):
            if last.target is None and step.target is not None:
                last.target = step.target
        else:
            out.append(step)
    return out


def _unique(hint: str, used: set[str]) -> str:
    if hint not in used:
        return hint
    n = 2
    while f"{hint[:58]}_{n}" in used:
        n += 1
    return f"{hint[:58]}_{n}"


# The field edits: each becomes a step whose value is a parameter (a choose: the option's name, an
# enum of the names its list showed when they were screened and told apart).
_EDITS = frozenset({"type", "select", "choose"})
_OPENS_DIALOG = frozenset({"click", "press", "type", "select", "choose", "navigate"})


def plan(events: Sequence[RecordedEvent], sensitive: frozenset[str] = frozenset()) -> Plan:
    """The actions and parameters of ``events`` (pure; see the module rules)."""
    steps = _coalesce(s for s in _paged(events) if s is not None)
    actions: list[Action] = []
    parameters: list[Parameter] = []
    sources: dict[str, tuple[int, ...]] = {}
    for n, step in enumerate(steps, start=1):
        action_id = f"a{n}"
        if step.kind in _EDITS and step.extra.get("from") is not None:
            actions.append(_from_output(action_id, step, actions))
        elif step.kind in _EDITS:
            assert step.info is not None
            assert step.target is not None
            name = _unique(step.info.param_hint, set(sources))
            sources[name] = (*step.merged, step.seq)
            is_sensitive = step.info.is_sensitive or name in sensitive
            options = step.extra.get("options")
            typed: dict[str, Any] = {}
            if step.kind != "type" and options and not is_sensitive and len(set(options)) == len(options):
                typed = {"type": "enum", "values": tuple(options)}
                if step.extra.get("labels"):  # the options' label hashes: pre-flight checks a label
                    typed["label_hashes"] = tuple(sorted(set(step.extra["labels"])))
            parameters.append(Parameter(name=name, required=True, sensitive=is_sensitive, **typed))
            cls = {"type": TypeAction, "select": SelectAction, "choose": ChooseAction}[step.kind]
            actions.append(cls(id=action_id, target=step.target, value=ParameterRef(name=name)))
        elif step.kind == "upload":
            assert step.info is not None
            assert step.target is not None
            name = _unique(step.info.param_hint, set(sources))
            sources[name] = (step.seq,)
            parameters.append(Parameter(name=name, required=True, type="file"))
            actions.append(UploadAction(id=action_id, target=step.target, value=ParameterRef(name=name)))
        elif step.kind == "dialog" and (not actions or actions[-1].kind not in _OPENS_DIALOG):
            actions.append(HumanAction(id=action_id, reason="other"))
        elif step.kind == "wait" and step.extra.get("input"):
            actions.append(_input_wait(_action(action_id, step), parameters))
        elif step.kind == "click" and step.extra.get("chosen_by") is not None:
            actions.append(_chosen_click(action_id, step, sources, parameters))
        else:
            action = _action(action_id, step)
            retry = step.extra.get("retry")
            actions.append(action.model_copy(update={"retry": retry}) if retry is not None else action)
    return Plan(tuple(actions), tuple(parameters), sources)


def _from_output(action_id: str, step: _Step, actions: list[Action]) -> Action:
    """An automation edit that typed what an earlier ``extract`` step read (``"from"``): its value
    is that output, never a parameter; never into a sensitive field."""
    assert step.target is not None
    assert step.info is not None
    name = step.extra["from"]
    producer = next((a for a in actions if isinstance(a, ExtractAction) and a.output == name), None)
    if producer is None or step.info.is_sensitive:
        why = "is a sensitive field" if producer is not None else f"follows no extract step into {name!r}"
        raise RecordError("SR_RECORD_AUTOMATION_FAILED", f"step {action_id}: the edit from an output {why}")
    value = OutputRef(step=producer.id, field=name)
    if step.kind == "type":
        return TypeAction(id=action_id, target=step.target, value=value)
    if step.kind == "select":
        return SelectAction(id=action_id, target=step.target, value=value)
    return ChooseAction(id=action_id, target=step.target, value=value)


def _input_wait(wait: Action, parameters: list[Parameter]) -> Action:
    """A scripted wait for an input's text: the input is an earlier edit's parameter, never a
    sensitive one (its value is not compared with the page's)."""
    assert isinstance(wait, WaitAction)
    assert isinstance(wait.value, ParameterRef)
    parameter = next((p for p in parameters if p.name == wait.value.name), None)
    if parameter is None or parameter.sensitive:
        why = "is sensitive" if parameter is not None else "names no parameter an earlier edit made"
        raise RecordError("SR_RECORD_PARAMETER_UNKNOWN", f"step {wait.id}: the wait's input {why}")
    return wait


def _chosen_click(
    action_id: str, step: _Step, sources: dict[str, tuple[int, ...]], parameters: list[Parameter]
) -> Action:
    """A click whose element showed a typed value: its target is the like element whose text holds
    that edit's parameter as a whole token, when the edit is the parameter's final value and the
    parameter is not sensitive; otherwise a person does it."""
    assert step.target is not None
    seq = step.extra["chosen_by"]
    name = next((n for n, seqs in sources.items() if seqs[-1] == seq), None)
    parameter = next((p for p in parameters if p.name == name), None)
    if parameter is None or parameter.sensitive:
        return HumanAction(id=action_id, reason="other", target=None)
    chosen = step.target.model_copy(
        update={"filter": TextFilter(contains_token=ParameterRef(name=parameter.name)), "display_name": None}
    )
    return ClickAction(id=action_id, target=LocatorBundle.model_validate(chosen.model_dump()))


def _action(action_id: str, step: _Step) -> Action:
    if step.kind == "navigate":
        return NavigateAction(id=action_id, url=step.extra["url"], reason=step.extra["reason"])
    if step.kind == "click":
        assert step.target is not None
        return ClickAction(id=action_id, target=step.target)
    if step.kind == "press":
        return PressAction(id=action_id, key=step.extra["key"], target=step.target)
    if step.kind == "observe":
        assert step.target is not None
        return ObserveAction(id=action_id, target=step.target)
    if step.kind == "assert":
        return AssertAction(id=action_id, target=step.target, **step.extra)
    if step.kind == "extract":
        return step.extra["extraction"].step(action_id)  # type: ignore[no-any-return]
    if step.kind == "dialog":
        return DialogAction(id=action_id, accept=step.extra["accept"], expects=step.extra["expects"])
    if step.kind == "wait":
        until, expected, given = step.extra["until"], step.extra["expected"], step.extra["input"]
        value = (
            ParameterRef(name=given) if given else LiteralValue(value=expected) if until == "text" else None
        )
        return WaitAction(
            id=action_id,
            until=until,
            target=step.target,
            expected=expected if until == "url" else None,
            value=value,
        )
    if step.kind == "hover":
        assert step.target is not None
        return HoverAction(id=action_id, target=step.target)
    if step.kind == "scroll":
        assert step.target is not None
        return ScrollAction(
            id=action_id, target=step.target, to=step.extra["to"], max_rounds=step.extra["max_rounds"]
        )
    if step.kind == "page":
        return PageAction(id=action_id, to=step.extra["to"], close=step.extra.get("close", False))
    if step.kind == "download":
        assert step.target is not None
        return DownloadAction(id=action_id, target=step.target, output=step.extra["output"])
    return HumanAction(id=action_id, reason=step.extra["reason"], target=step.target)


def project(events: EventsLog, options: ProjectionOptions) -> Draft:
    """The draft ``events`` projects to under ``options``.

    ``SR_RECORD_NOTHING_CAPTURED`` when the demonstration holds nothing but its start,
    ``SR_RECORD_ACTIONS_LIMIT`` past 256 actions, ``SR_RECORD_PARAMETER_UNKNOWN`` when a
    ``--sensitive`` name matches no parameter.
    """
    result = plan(events.events, options.sensitive)
    if all(isinstance(a, NavigateAction) and a.reason == "start" for a in result.actions):
        raise RecordError("SR_RECORD_NOTHING_CAPTURED", "the demonstration produced no action")
    if len(result.actions) > MAX_ACTIONS:
        raise RecordError(
            "SR_RECORD_ACTIONS_LIMIT",
            f"the demonstration produced {len(result.actions)} actions; at most {MAX_ACTIONS}",
        )
    unknown = sorted(options.sensitive - {p.name for p in result.parameters})
    if unknown:
        known = ", ".join(p.name for p in result.parameters) or "none"
        raise InputError(
            "SR_RECORD_PARAMETER_UNKNOWN",
            f"--sensitive names no recorded parameter: {', '.join(unknown)} (parameters: {known})",
        )
    return Draft.build(
        name=options.name,
        description=options.description,
        actions=result.actions,
        parameters=result.parameters,
        capabilities=capability_manifest(result.actions),
        failure_conditions=options.failure_conditions,
        environment=options.environment,
        fingerprint_salt=events.salt,
        events_digest=events.events_digest,
    )
