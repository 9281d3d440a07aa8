"""The checks of ``skillreel record`` that need no browser and no store, and the record request:
``prepare(request)`` checks every input (the name, the target policy, the files handed in, limits,
secret patterns in the user's own texts) and returns the :class:`PreparedRecording` that
``services.recording`` captures in Chromium. The recording twin of ``services.preflight``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from ..errors import InputError, RecordError, TargetError
from ..model.base import ParamName, check_skill_name, is_label
from ..model.environment import Environment, Viewport
from ..model.limits import (
    DEFAULT_TIMEOUT_MS,
    MAX_DESCRIPTION_CHARS,
    MAX_FAILURE_CONDITION_CHARS,
    MAX_FAILURE_CONDITIONS,
    TIMEOUT_MS_RANGE,
)
from ..record.automation import AssertionsFile, AutomationScript
from ..record.redact import Finding, scan_texts
from ..user_files import parse_document, read_user_file
from .environments import declare_environment, target_environment, target_query

_PARAM = TypeAdapter(ParamName)
_Input = TypeVar("_Input", AutomationScript, AssertionsFile)


@dataclass(frozen=True)
class RecordRequest:
    """What the user asked for (``skillreel record`` options)."""

    name: str
    html_path: Path | None = None
    url: str | None = None
    allowed_origins: tuple[str, ...] = ()
    identity: str | None = None
    storage_state: Path | None = None
    login: str | None = None  # a vault login to sign in with, bound by its name
    environments: tuple[tuple[str, str], ...] = ()  # (name, origin) of other environments (--env)
    keep_query: tuple[str, ...] = ()
    strip_query: tuple[str, ...] = ()
    automation: Path | None = None
    assertions: Path | None = None
    sensitive: tuple[str, ...] = ()
    failure_conditions: tuple[str, ...] = ()
    description: str | None = None
    viewport: tuple[int, int] | None = None
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    resume: bool = False  # continue the recording of this skill that failed (``record.kept``)


@dataclass(frozen=True)
class PreparedRecording:
    """A request whose every input was checked; nothing here has touched a browser or the store."""

    request: RecordRequest
    environment: Environment
    html: str | None
    script: AutomationScript | None
    assertions: AssertionsFile | None
    description: str

    @property
    def interactive(self) -> bool:
        return self.script is None


def default_description(name: str) -> str:
    return (
        f"Replays the web task recorded as {name!r} in Chromium, step by step. "
        f"Use it when that task has to be done again with new inputs."
    )


def prepare(request: RecordRequest) -> PreparedRecording:
    """Check every input of ``request``; raises ``SR_RECORD_*`` (nothing is started or stored)."""
    check_skill_name(request.name)
    _check_options(request)
    environment, html = _environment(request)
    _declared(environment, (), request.environments)  # names and origins, before any browser
    script = _read(AutomationScript, request.automation, "automation file")
    assertions = _read(AssertionsFile, request.assertions, "assertions file")
    description = request.description
    if description is None:
        description = default_description(request.name)
    texts = [("description", description)]
    texts += [(f"failureConditions[{i}]", t) for i, t in enumerate(request.failure_conditions)]
    if assertions is not None:
        texts += [
            (f"assertions[{i}].expected", a.expected)
            for i, a in enumerate(assertions.assertions)
            if isinstance(a.expected, str)
        ]
    _refuse_findings(scan_texts(texts))
    return PreparedRecording(request, environment, html, script, assertions, description)


def _check_options(request: RecordRequest) -> None:
    if request.description is not None and not 1 <= len(request.description) <= MAX_DESCRIPTION_CHARS:
        raise InputError("SR_RECORD_USAGE", "--description must be 1 to 1,024 characters")
    if len(request.failure_conditions) > MAX_FAILURE_CONDITIONS or any(
        not 1 <= len(f) <= MAX_FAILURE_CONDITION_CHARS for f in request.failure_conditions
    ):
        raise InputError("SR_RECORD_USAGE", "--failure takes at most 32 texts of 1 to 512 characters")
    for name in request.sensitive:
        try:
            _PARAM.validate_python(name)
        except ValidationError as exc:
            raise InputError(
                "SR_RECORD_USAGE", "--sensitive takes parameter names like 'card_number'"
            ) from exc
    if not TIMEOUT_MS_RANGE[0] <= request.timeout_ms <= TIMEOUT_MS_RANGE[1]:
        raise InputError("SR_RECORD_USAGE", "--timeout must be 100 to 30,000 ms")
    if request.identity is not None and not is_label(request.identity):
        raise InputError("SR_RECORD_USAGE", "--identity takes a short label (letters, digits, ._@:-)")


def _viewport(request: RecordRequest) -> Viewport:
    if request.viewport is None:
        return Viewport()
    try:
        return Viewport(width=request.viewport[0], height=request.viewport[1])
    except ValidationError as exc:
        raise InputError("SR_RECORD_USAGE", "--viewport must be within 320x240 and 3840x2160") from exc


def _environment(request: RecordRequest) -> tuple[Environment, str | None]:
    viewport = _viewport(request)
    if (request.html_path is None) == (request.url is None):
        raise TargetError("SR_RECORD_TARGET_INVALID", "give exactly one target: --html FILE or --url URL")
    online_only = (
        request.allowed_origins
        or request.identity
        or request.storage_state
        or request.login
        or request.environments
        or request.keep_query
        or request.strip_query
    )
    if request.html_path is not None and online_only:
        raise TargetError(
            "SR_RECORD_TARGET_INVALID",
            "an HTML fixture takes no --allowed-origin, --identity, --storage-state, --login, --env, "
            "--keep-query or --strip-query",
        )
    return target_environment(
        viewport,
        html_path=request.html_path,
        url=request.url,
        allowed_origins=request.allowed_origins,
        query=target_query(request.keep_query, request.strip_query) if request.url is not None else None,
        identity=request.identity,
        storage_state=request.storage_state,
        login=request.login,
    )


def _declared(
    environment: Environment, actions: tuple[Any, ...], environments: tuple[tuple[str, str], ...]
) -> Environment:
    """``environment`` declaring each ``--env NAME=ORIGIN`` (allowlist rebased; no login)."""
    names = [name for name, _ in environments]
    if len(set(names)) != len(names):
        raise InputError("SR_RECORD_USAGE", "--env names an environment twice")
    for name, origin in environments:
        environment = declare_environment(environment, actions, name, origin)
    return environment


def _read(cls: type[_Input], path: Path | None, what: str) -> _Input | None:
    if path is None:
        return None
    return parse_document(cls, read_user_file(path, what=what), what=what)


def _refuse_findings(findings: list[Finding]) -> None:
    if not findings:
        return
    shown = ", ".join(f"{f.path} ({f.category})" for f in findings[:8])
    raise RecordError(
        "SR_RECORD_SECRET_FINDING",
        f"nothing was stored; secrets found in: {shown}",
        details={"findings": [f.to_json() for f in findings]},
    )
