"""Page-controlled text made visible: every invisible or control character written as an escape.

A page chooses element ids, class names and labels; a recording keeps some of them (in selectors),
and a person or an agent reads them back in ``show``, ``diff``, the review page and ``SKILL.md``.
A bidi override (U+202E) there reorders what a reader sees around it, a zero-width character hides
a difference, a control character moves the terminal's cursor. :func:`visible` writes each of them
as ``\\u202e`` (``\\x1b`` below U+0100, ``\\U0001d173`` above U+FFFF): the categories Cc (controls),
Cf (format: bidi embeddings, overrides and isolates U+202A-202E, U+2066-2069, marks U+200E-200F,
zero-width U+200B-200D, U+FEFF, ...), Cs (lone surrogates), Co (private use), Cn (unassigned) and
Zl/Zp (line and paragraph separators). Everything else is kept as it is. Pure; the one escaping
function the four readers' renderings share.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any, Final

ESCAPED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def is_invisible(ch: str) -> bool:
    """Whether ``ch`` is a character :func:`visible` escapes."""
    return unicodedata.category(ch) in ESCAPED_CATEGORIES


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` with every invisible or control character escaped (``"a\\u202eb"`` -> ``"a\\\\u202eb"``)."""
    if text.isprintable():  # the common case: nothing to escape (every escaped category is unprintable)
        return text
    return "".join(_escape(ch) if is_invisible(ch) else ch for ch in text)


def visible_tree(value: Any) -> Any:
    """A JSON-like value with :func:`visible` applied to every string in it, keys included."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, Mapping):
        return {visible_tree(k): visible_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [visible_tree(v) for v in value]
    return value
