"""Which accessible names may be kept in clear as a target's display name (issue 31). Pure.

A display name is page chrome a reviewer reads on screen ("Sign in", "User name", "Orders"), kept
beside the salted hashes for people only. :func:`readable_name` is the rule a name passes on its
own, before the recording's typed values are compared with it (``record.redact.screen_display_name``):

* one line (no line break, tab, control or format character; runs of spaces squashed) of at most
  :data:`MAX_DISPLAY_NAME_CHARS` characters, with at least one letter;
* no URL or address: no ``scheme://``, no ``www.``, no ``key=value`` pair, no e-mail address;
* nothing high-entropy: no word shaped like a token (``model.urls.looks_like_token``: a JWT, long
  hex, random mixed case), no run of 12 or more hex digits holding a digit (a 40-hex id), no run of
  20 or more base64 characters (``[A-Za-z0-9+/_=-]``) holding a digit, ``+/=_`` or an inner
  capital (a long plain word stays);
* not digits-heavy: no run of 5 or more digits (``00012345``), and not 4 or more digits making a
  third or more of its letters and digits ("Order 1003" is a record, "Top 10 products" is chrome).

Anything else fails closed: the target keeps its hashes only.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from .limits import MAX_DISPLAY_NAME_CHARS
from .urls import looks_like_token

_UNSEEN: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_ADDRESS: Final = re.compile(r"://|\bwww\.|[^\s=]=[^\s=]|[^\s@]@[^\s@]+\.[^\s@]")
_HEX_RUN: Final = re.compile(r"[0-9a-fA-F]{12,}")
_BASE64_RUN: Final = re.compile(r"[A-Za-z0-9+/_=-]{20,}")
_DIGIT_RUN: Final = re.compile(r"\d{5,}")
_WORD: Final = re.compile(r"[^\s,;:()\[\]{}<>\"'«»“”]+")


def readable_name(text: str | None) -> str | None:
    """``text`` squashed to one line when it may be shown in clear (the module's rules), else None."""
    if not text:
        return None
    if any(unicodedata.category(ch) in _UNSEEN for ch in text):  # a line break, a tab, a bidi control
        return None
    name = " ".join(text.split())
    if not name or len(name) > MAX_DISPLAY_NAME_CHARS or not any(ch.isalpha() for ch in name):
        return None
    if _ADDRESS.search(name) or high_entropy(name) or digits_heavy(name):
        return None
    return name


def high_entropy(text: str) -> bool:
    """Whether ``text`` holds a token-like word, a long hex run with a digit or a long base64 run."""
    if any(any(c.isdigit() for c in run) for run in _HEX_RUN.findall(text)):
        return True
    if any(_encoded_look(run) for run in _BASE64_RUN.findall(text)):
        return True
    return any(looks_like_token(word) for word in _WORD.findall(text))


def _encoded_look(run: str) -> bool:
    """A long base64-alphabet run that is not a plain word: a digit, ``+/=_`` or an inner capital."""
    return any(c.isdigit() or c in "+/=_" for c in run) or any(c.isupper() for c in run[1:])


def digits_heavy(text: str) -> bool:
    """Whether ``text`` reads like a record id: a run of 5+ digits, or 4+ digits that are a third or
    more of its letters and digits."""
    if _DIGIT_RUN.search(text):
        return True
    alnum = [c for c in text if c.isalnum()]
    digits = sum(c.isdigit() for c in alnum)
    return digits >= 4 and digits * 3 >= len(alnum)
