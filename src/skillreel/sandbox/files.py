"""The target's input files, read one way everywhere (record, replay, the browser session).

* An HTML fixture: a regular file (no symlink), UTF-8, 1 to 1,000,000 characters; a skill is
  bound to the digest of its UTF-8 bytes (``skillreel.html-fixture/v1``).
* A Playwright storage-state file: a regular file of at most 2 MiB holding a JSON object. It is
  read only to start a browser context; a skill keeps only the ``skillreel.storage-state/v1``
  digest of its canonical JSON, never its content.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from ..errors import InputError
from ..model.canonical import bytes_digest, tagged_digest
from ..model.limits import MAX_HTML_CHARS
from ..user_files import read_user_file

MAX_HTML_BYTES: Final = 4 * MAX_HTML_CHARS  # UTF-8 needs at most 4 bytes a character


def read_html_fixture(path: Path) -> str:
    data = read_user_file(path, what="HTML fixture", limit=MAX_HTML_BYTES)
    try:
        html = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("SR_RECORD_INPUT_MALFORMED", "the HTML fixture is not UTF-8 text") from exc
    if len(html) > MAX_HTML_CHARS:
        raise InputError("SR_RECORD_INPUT_TOO_LARGE", "the HTML fixture exceeds 1,000,000 characters")
    if not html.strip():
        raise InputError("SR_RECORD_INPUT_MALFORMED", "the HTML fixture is empty")
    return html


def fixture_digest(html: str) -> str:
    """The digest an HTML fixture is bound by (its UTF-8 bytes)."""
    return bytes_digest("skillreel.html-fixture/v1", html.encode("utf-8"))


def read_storage_state(path: Path) -> dict[str, Any]:
    data = read_user_file(path, what="storage-state file")
    try:
        state: Any = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise InputError("SR_RECORD_INPUT_MALFORMED", "the storage-state file is not valid JSON") from exc
    if not isinstance(state, dict):
        raise InputError("SR_RECORD_INPUT_MALFORMED", "the storage-state file is not a JSON object")
    return state


def storage_state_digest(state: dict[str, Any]) -> str:
    """The digest a skill keeps of its storage state (canonical JSON, never the content)."""
    try:
        return tagged_digest("skillreel.storage-state/v1", state)
    except (ValueError, TypeError, OverflowError) as exc:
        raise InputError(
            "SR_RECORD_INPUT_MALFORMED", "the storage-state file cannot be canonicalised"
        ) from exc


def storage_state_file_digest(path: Path) -> str:
    """The digest of the storage-state file at ``path`` (read with :func:`read_storage_state`)."""
    return storage_state_digest(read_storage_state(path))
