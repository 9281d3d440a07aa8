"""The environment a recording or a replay runs in, built from its target options.

``record`` builds it from what the user passed (``--html`` or ``--url`` with ``--allowed-origin``,
``--keep-query``/``--strip-query``, ``--identity``, ``--storage-state`` or ``--login``, ``--env``,
``--viewport``) through :func:`target_environment`; a replay checks what it is given against the
recorded document (``services.preflight``), rebased onto a named environment when asked
(``model.portable``). Declaring, changing and removing named environments of a stored skill goes
through :func:`declare_environment` here too, so ``record --env`` and ``env set`` agree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError, TargetError
from ..model.actions import Action
from ..model.environment import (
    ENV_NAME_RULE,
    Environment,
    HtmlTarget,
    QueryKeys,
    Viewport,
    build_url_target,
    query_keys,
)
from ..model.login import LOGIN_NAME_RULE
from ..model.portable import declare, with_environment
from ..model.urls import URLRuleError
from ..sandbox.files import fixture_digest, read_html_fixture, storage_state_file_digest

_ENV_NAME = re.compile(r"[a-z][a-z0-9-]{0,31}")
_LOGIN_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def check_environment_name(name: str) -> str:
    """``SR_RECORD_USAGE`` unless ``name`` is an environment name."""
    if not _ENV_NAME.fullmatch(name):
        raise InputError("SR_RECORD_USAGE", ENV_NAME_RULE)
    return name


def check_login_name(name: str) -> str:
    """``SR_RECORD_USAGE`` unless ``name`` is a login name."""
    if len(name) > 64 or not _LOGIN_NAME.fullmatch(name):
        raise InputError("SR_RECORD_USAGE", LOGIN_NAME_RULE)
    return name


def target_query(keep: Sequence[str] = (), strip: Sequence[str] = ()) -> QueryKeys:
    """``--keep-query``/``--strip-query`` as the target's query-key choices (``SR_RECORD_USAGE``)."""
    try:
        return query_keys(list(keep), list(strip))
    except URLRuleError as exc:
        raise InputError("SR_RECORD_USAGE", f"--keep-query/--strip-query: {exc}") from exc


def target_environment(
    viewport: Viewport,
    *,
    html_path: Path | None = None,
    url: str | None = None,
    allowed_origins: Sequence[str] = (),
    query: QueryKeys | None = None,
    identity: str | None = None,
    storage_state: Path | None = None,
    login: str | None = None,
) -> tuple[Environment, str | None]:
    """The environment of an HTML fixture (read from ``html_path``, bound by its digest, and returned
    with it) or of a URL with its allowlist and query-key choices (``SR_RECORD_TARGET_INVALID`` if
    a URL rule fails). A URL target signs in with a storage-state file (read and bound by its
    digest, after the URL is checked) or a vault login (bound by its name), not both.
    """
    if html_path is not None:
        html = read_html_fixture(html_path)
        return Environment.build(target=HtmlTarget(html_digest=fixture_digest(html)), viewport=viewport), html
    if url is None:
        raise TargetError("SR_RECORD_TARGET_INVALID", "give exactly one target: --html FILE or --url URL")
    if storage_state is not None and login is not None:
        raise InputError("SR_RECORD_USAGE", "sign in with --login NAME or --storage-state FILE, not both")
    try:
        target = build_url_target(url, tuple(allowed_origins), query)
    except URLRuleError as exc:
        raise TargetError("SR_RECORD_TARGET_INVALID", f"the URL target is not allowed: {exc}") from exc
    digest = storage_state_file_digest(storage_state) if storage_state is not None else None
    if login is not None:
        check_login_name(login)
    environment = Environment.build(
        target=target, identity=identity, storage_state_digest=digest, login=login, viewport=viewport
    )
    return environment, None


def declare_environment(
    environment: Environment,
    actions: Sequence[Action],
    name: str,
    origin: str,
    allowed_origins: Sequence[str] = (),
    login: str | None = None,
) -> Environment:
    """``environment`` declaring the named environment ``name`` on ``origin`` (replacing one of the
    same name): its allowlist is ``origin`` plus ``allowed_origins``, or the recorded allowlist
    rebased when none are given; checked as a replay would use it (``SR_RECORD_TARGET_INVALID``)."""
    check_environment_name(name)
    if login is not None:
        check_login_name(login)
    if isinstance(environment.target, HtmlTarget):
        raise TargetError(
            "SR_RECORD_TARGET_INVALID", "a skill recorded on an HTML fixture has no environments"
        )
    try:
        named = declare(environment, actions, name, origin, allowed_origins, login)
        return with_environment(environment, named)
    except URLRuleError as exc:
        raise TargetError("SR_RECORD_TARGET_INVALID", f"environment {name!r}: {exc}") from exc
