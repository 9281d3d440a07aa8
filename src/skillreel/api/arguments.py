"""The arguments of ``skillreel.api``'s functions, checked as the CLI's options are (click's types,
the verbs' own checks), and the source of sensitive values a replay reads: ``secrets=`` first, then
the vault. A refusal is ``SR_RECORD_API_USAGE`` and names the argument, never a value."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import InputError, SkillreelError
from ..model.limits import MAX_OPTION_NUMBER, SETTLE_MS_RANGE, TIMEOUT_MS_RANGE
from ..store import Store

if TYPE_CHECKING:
    from ..services.preflight import ReplayRequest

InputValue = str | int | float | bool


@dataclass(frozen=True)
class GivenThenVault:
    """Sensitive values: the caller's ``secrets=`` first, then the vault (environment, keyring)."""

    given: Mapping[str, str] = field(repr=False)

    def get(self, skill: str, param: str) -> str | None:
        from ..vault import EnvKeyringSecrets

        value = self.given.get(param)
        return value if value is not None else EnvKeyringSecrets().get(skill, param)


def secret_source(store: Store, name: str, secrets: Mapping[str, str] | None) -> GivenThenVault:
    """``secrets=`` checked: a mapping of the skill's sensitive parameters to strings (a name that is
    not one is refused by its name, never its value). A skill that cannot be read is left to the
    replay's own refusal, so it is refused (and audited) as without ``secrets=``."""
    if secrets is None:
        return GivenThenVault({})
    if not isinstance(secrets, Mapping):
        raise usage("secrets must be a mapping of sensitive parameter names to strings")
    for param, value in secrets.items():
        if not isinstance(param, str):
            raise usage(f"secrets holds a key of type {type(param).__name__}: a parameter name is a string")
        if not isinstance(value, str):
            raise usage(f"secrets[{shown(param)}] must be a string")
    try:
        draft = store.get(skill_name(name)).draft
    except SkillreelError:
        return GivenThenVault(dict(secrets))
    for param in sorted(secrets):
        parameter = draft.parameter(param)
        if parameter is None or not parameter.sensitive:
            raise usage(f"secrets holds {shown(param)}, which is not a sensitive parameter of {name!r}")
    return GivenThenVault(dict(secrets))


def replay_request(
    name: str,
    inputs: Mapping[str, InputValue] | None,
    html: Path | str | None,
    url: str | None,
    storage_state: Path | str | None,
    environment: str | None,
    expected_revision: int | None,
    heal: bool,
    timeout_ms: int,
    settle_ms: int,
    artifacts: Path | str | None,
    artifacts_on: Literal["failure", "always"],
    *,
    downloads: Path | str | None = None,
) -> ReplayRequest:
    from ..sandbox.artifacts import DebugOptions
    from ..services.preflight import ReplayRequest

    if artifacts_on not in ("failure", "always"):
        raise usage("artifacts_on must be 'failure' or 'always'")
    if artifacts_on == "always" and artifacts is None:
        raise usage("artifacts_on='always' needs artifacts=DIR")
    return ReplayRequest(
        name=skill_name(name),
        inputs=input_values(inputs),
        html_path=path("html", html),
        url=text("url", url),
        storage_state=path("storage_state", storage_state),
        environment=text("environment", environment),
        expected_revision=optional_number("expected_revision", expected_revision, 1, MAX_OPTION_NUMBER),
        heal=flag("heal", heal),
        timeout_ms=number("timeout_ms", timeout_ms, *TIMEOUT_MS_RANGE),
        settle_ms=number("settle_ms", settle_ms, *SETTLE_MS_RANGE),
        debug=DebugOptions(artifacts=path("artifacts", artifacts), artifacts_on=artifacts_on),
        downloads=path("downloads", downloads),
    )


def input_values(inputs: Mapping[str, InputValue] | None) -> dict[str, InputValue]:
    if inputs is None:
        return {}
    if not isinstance(inputs, Mapping):
        raise usage("inputs must be a mapping of parameter names to values")
    for key, value in inputs.items():
        if not isinstance(key, str) or not key:
            raise usage(f"inputs holds {shown(key)}: a parameter name is a non-empty string")
        if not isinstance(value, str | int | float | bool):
            raise usage(f"inputs[{key!r}] must be a string, number or boolean")
    return dict(inputs)


def usage(message: str) -> InputError:
    return InputError("SR_RECORD_API_USAGE", message)


def shown(key: object) -> str:
    """A key named in an error: a short string as itself, anything else by its type only."""
    return repr(key) if isinstance(key, str) and key.isprintable() and len(key) <= 64 else type(key).__name__


def skill_name(name: object) -> str:
    if not isinstance(name, str):
        raise usage("name must be a skill name (a string)")
    return name


def text(what: str, value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise usage(f"{what} must be a string")
    return value


def texts(what: str, values: object) -> tuple[str, ...]:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise usage(f"{what} must be a list of strings")
    if not all(isinstance(v, str) for v in values):
        raise usage(f"{what} must be a list of strings")
    return tuple(values)


def path(what: str, value: object) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, str | Path):
        raise usage(f"{what} must be a path")
    return Path(value)


def required_path(what: str, value: object) -> Path:
    found = path(what, value)
    if found is None:
        raise usage(f"{what} must be a path")
    return found


def flag(what: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise usage(f"{what} must be True or False")
    return value


def optional_number(what: str, value: object, low: int, high: int) -> int | None:
    return None if value is None else number(what, value, low, high)


def number(what: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise usage(f"{what} must be an integer from {low} to {high}")
    return value


def named(environments: object) -> Iterator[tuple[str, str]]:
    if not isinstance(environments, Mapping):
        raise usage("environments must be a mapping of names to origins")
    for env, origin in environments.items():
        if not isinstance(env, str) or not env or not isinstance(origin, str) or not origin:
            raise usage("environments must map names to origins (non-empty strings)")
        yield env, origin


def viewport_size(viewport: object) -> tuple[int, int] | None:
    if viewport is None:
        return None
    if not isinstance(viewport, tuple) or len(viewport) != 2:
        raise usage("viewport must be (width, height)")
    return number("width", viewport[0], 1, 99_999), number("height", viewport[1], 1, 99_999)
