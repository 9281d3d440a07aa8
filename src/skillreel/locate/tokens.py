"""The whole-token text filter (ARCHITECTURE section 15), pure; ``locate/collect.js`` twins it.

A text *contains a value as a whole token* when the value, whitespace-normalised and compared
case-insensitively, occurs in the normalised text with no letter or digit right before or after it:
``1007`` is in ``Order 1007`` and ``INV-1007``, never in ``Order 10071`` or ``A1007``. An empty value
is in no text. The text is the page's, read at replay time and compared in the page; the value is
an input, an output or an item field: nothing of the page is stored.
"""

from __future__ import annotations

import re

_SPACES = re.compile(r"\s+")


def normalise(text: str) -> str:
    return _SPACES.sub(" ", text).strip().lower()  # as JavaScript's toLowerCase (collect.js)


def _word(ch: str) -> bool:
    return ch.isalnum()


def contains_token(text: str, value: str) -> bool:
    """Whether ``text`` holds ``value`` as a whole token (see the module docstring)."""
    hay, needle = normalise(text), normalise(value)
    if not needle:
        return False
    start = hay.find(needle)
    while start >= 0:
        end = start + len(needle)
        before = hay[start - 1] if start > 0 else ""
        after = hay[end] if end < len(hay) else ""
        if not (before and _word(before)) and not (after and _word(after)):
            return True
        start = hay.find(needle, start + 1)
    return False
