"""Where sensitive replay inputs come from: never the command line, only the vault.

The vault is an environment variable ``SKILLREEL_SECRET_<SKILL>_<PARAM>`` (upper-case, ``-`` as
``_``) or, failing that, the OS keyring (service ``skillreel``, username ``<skill>/<param>``).
A keyring without a usable backend, or one that fails, counts as holding nothing.

Child processes never inherit the vault's variables: before skillreel starts a browser (the
Playwright Node.js process, which starts Chromium), :func:`seal_environment` moves every
``SKILLREEL_SECRET_*`` variable out of the process environment into this module's memory, where
:class:`EnvKeyringSecrets` still finds it. Only the values a replay needs are read from there, in
the process that replays; a page, an extension, a crash dump or a process listing of the browser
has nothing to show.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

if TYPE_CHECKING:
    from ..model.draft import Parameter

log = logging.getLogger(__name__)

KEYRING_SERVICE: Final = "skillreel"
SECRET_PREFIX: Final = "SKILLREEL_SECRET_"  # noqa: S105 - a variable name prefix, not a secret
# The vault variables moved out of os.environ (process memory only; see seal_environment).
_SEALED: dict[str, str] = {}


class SecretSource(Protocol):
    def get(self, skill: str, param: str) -> str | None: ...


def secret_env_name(skill: str, param: str) -> str:
    """``SKILLREEL_SECRET_<SKILL>_<PARAM>``: upper-case, ``-`` as ``_`` (ARCHITECTURE section 11)."""
    return SECRET_PREFIX + f"{skill}_{param}".upper().replace("-", "_")


def seal_environment() -> int:
    """Move every ``SKILLREEL_SECRET_*`` variable from the process environment into memory, so no
    child process started from now on inherits it (the vault still reads it). Returns how many."""
    names = [key for key in os.environ if key.startswith(SECRET_PREFIX)]
    for key in names:
        _SEALED[key] = os.environ.pop(key)
    return len(names)


def keyring_username(skill: str, param: str) -> str:
    return f"{skill}/{param}"


def parameter_listing(skill: str, parameters: Iterable[Parameter]) -> list[dict[str, Any]]:
    """A skill's parameters as a package manifest and ``skills_list`` show them: name, required,
    sensitive and, for a sensitive one, the environment variable its value is read from; a typed
    (schema v2) parameter also its JSON Schema (type, allowed values, description, default)."""
    return [
        {
            "name": p.name,
            "required": p.required,
            "sensitive": p.sensitive,
            **({"env": secret_env_name(skill, p.name)} if p.sensitive else {}),
            **({"schema": input_schema(p)} if p.v2_fields() else {}),
        }
        for p in parameters
    ]


def input_schema(param: Parameter) -> dict[str, Any]:
    """The JSON Schema of one input (values only: never a value typed at recording)."""
    from ..model.values import value_schema  # here: `seal_environment` callers load no pydantic model

    schema = value_schema(param.type, param.values)
    if param.description:
        schema["description"] = param.description
    if param.default is not None:
        schema["default"] = param.default
    return schema


@dataclass(frozen=True)
class EnvKeyringSecrets:
    """The default :class:`SecretSource`: the environment first, then the OS keyring."""

    environ: Mapping[str, str] | None = None
    use_keyring: bool = True

    def get(self, skill: str, param: str) -> str | None:
        name = secret_env_name(skill, param)
        if self.environ is not None:
            value = self.environ.get(name)
        else:
            value = os.environ.get(name, _SEALED.get(name))
        if value is not None:
            return value
        return _from_keyring(skill, param) if self.use_keyring else None


def _from_keyring(skill: str, param: str) -> str | None:
    try:
        import keyring
        from keyring.errors import KeyringError

        value = keyring.get_password(KEYRING_SERVICE, keyring_username(skill, param))
    except (ImportError, KeyringError, RuntimeError, OSError, ValueError) as exc:
        log.debug("keyring unavailable: %s", type(exc).__name__)
        return None
    return value if isinstance(value, str) else None
