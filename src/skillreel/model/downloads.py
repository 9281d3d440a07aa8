"""The name a downloaded file is saved under (pure): the page's suggested name made safe.

A page chooses the suggested name, so it is never trusted: only its last path part is kept, control
and path characters become ``_``, leading dots are dropped (no dot-file, no ``..``), it is bounded,
and an empty result is ``download``. :func:`numbered` gives the ``name (n).ext`` forms tried when
the name is taken (a download never overwrites a file).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

MAX_NAME_CHARS: Final = 128
FALLBACK: Final = "download"
_UNSAFE: Final = re.compile(r'[\x00-\x1f\x7f<>:"/\\|?*]')
# names Windows reserves, refused everywhere so a directory stays portable
_RESERVED: Final = frozenset(
    {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
)


def safe_filename(suggested: str) -> str:
    """``suggested`` as a plain file name of this directory (see the module)."""
    name = unicodedata.normalize("NFC", suggested or "")
    name = re.split(r"[/\\]", name)[-1]
    name = _UNSAFE.sub("_", name).strip().lstrip(".").strip()
    if name.split(".")[0].lower() in _RESERVED:
        name = f"_{name}"
    if len(name) > MAX_NAME_CHARS:
        stem, dot, ext = name.rpartition(".")
        if dot and 0 < len(ext) <= 16:
            name = stem[: MAX_NAME_CHARS - len(ext) - 1] + "." + ext
        else:
            name = name[:MAX_NAME_CHARS]
    return name or FALLBACK


def numbered(name: str, n: int) -> str:
    """``name`` itself for 0, else ``stem (n).ext``."""
    if n == 0:
        return name
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return f"{name} ({n})"
    return f"{stem} ({n}).{ext}"
