"""The environment a recording or a replay runs in, built from its target options.

``record`` builds it from what the user passed (``--html`` or ``--url`` with ``--allowed-origin``,
``--identity``, ``--storage-state``, ``--viewport``); a replay rebuilds it from the options of this
run and the recorded allowlist, identity and viewport, and compares digests. Both go through
:func:`target_environment`, so the two can never disagree on how an option becomes a document.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..errors import TargetError
from ..model.environment import Environment, HtmlTarget, Viewport, build_url_target
from ..model.urls import URLRuleError
from ..sandbox.files import fixture_digest, read_html_fixture, storage_state_file_digest


def target_environment(
    viewport: Viewport,
    *,
    html_path: Path | None = None,
    url: str | None = None,
    allowed_origins: Sequence[str] = (),
    identity: str | None = None,
    storage_state: Path | None = None,
    storage_state_digest: str | None = None,
) -> tuple[Environment, str | None]:
    """The environment of an HTML fixture (read from ``html_path``, bound by its digest, and returned
    with it) or of a URL with its allowlist (``SR_RECORD_TARGET_INVALID`` if a URL rule fails).

    The storage state is a file to read and bind (``storage_state``, after the URL is checked) or a
    digest already bound (``storage_state_digest``); an HTML fixture takes neither.
    """
    if html_path is not None:
        html = read_html_fixture(html_path)
        return Environment.build(target=HtmlTarget(html_digest=fixture_digest(html)), viewport=viewport), html
    if url is None:
        raise TargetError("SR_RECORD_TARGET_INVALID", "give exactly one target: --html FILE or --url URL")
    try:
        target = build_url_target(url, tuple(allowed_origins))
    except URLRuleError as exc:
        raise TargetError("SR_RECORD_TARGET_INVALID", f"the URL target is not allowed: {exc}") from exc
    if storage_state is not None:
        storage_state_digest = storage_state_file_digest(storage_state)
    return Environment.build(
        target=target, identity=identity, storage_state_digest=storage_state_digest, viewport=viewport
    ), None
