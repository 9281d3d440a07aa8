"""Whether a text holds a secret of a run in any common form (pure): the one scanner every exit uses.

    scanner = SecretScanner([vault_value, cookie_value])
    scanner.finds("...aHVudGVyMjI...")         # True: base64 of a secret
    scanner.hits(["first half", "second half"])  # the texts (by index) that hold a form, pairs too

A page that read a secret (the password field it was typed into, ``document.cookie``,
``localStorage``) can write it into what a replay extracts or into what an artifact keeps. This
module finds, for every secret of a run (vault values, typed sensitive values, the login's cookie and
storage values, the cookies a run ended with):

* the value itself, case-folded, with every whitespace (and zero-width) character taken out of the
  text and the value (upper-cased or spaced);
* the value reversed;
* its UTF-8 bytes in hex (either case);
* its base64 and base64url, in all three alignments: inside a longer encoded stream a value starts
  at byte offset 0, 1 or 2 of a three-byte group, and only the characters whose six bits all come
  from the value are stable; each alignment's stable inner run is a form (matched with case, since
  base64 upper-cased is no longer base64);
* %-encoding (full or partial, ``+`` for a space), HTML character references (decimal, hex, named)
  and JavaScript/JSON escapes (``\\uXXXX``, ``\\xXX``): the text is also read decoded, so any mix
  of encoded and plain characters is found;
* any window of at least ``max(6, ceil(len / 2))`` characters of each of those forms: a value split
  across two outputs leaves at least half of it in one of them. :meth:`SecretScanner.hits` also
  reads the texts joined (in order, in reverse order, and each ordered pair while there are few), so
  a short value split in two is found too, and the smaller part of a split beside the part that
  holds a window (when it is more than a few characters).

A secret shorter than :data:`MIN_ENCODED` (4) characters is found raw (case-folded) only: its
encodings and windows are two or three characters long and would match ordinary text everywhere,
masking every output; and so short a value is a guess away anyway. An encoded form shorter than
:data:`MIN_WINDOW` is left out for the same reason (a 4-character value's base64 is 5 characters).

What is not promised: a page that held the secret can always write it in a form no scanner knows
(encrypted with a key of its own, spelled out, one character per output in shuffled order). The
scan makes the common forms fail closed; it cannot make a hostile page harmless.

The work is bounded: a form is found through its anchors (every window of ``w`` characters holds one
of the form's aligned chunks of ``ceil(w / 2)`` characters), each a ``str.find`` over the text, and
only an anchor's occurrences are extended by hand. :attr:`SecretScanner.work` counts those
extensions and the anchors searched, so a test can bound the work instead of timing it.

:func:`skillreel.model.exposure.extracts_after_secret` is the review's rule for a skill that reads
a page after typing a secret into it: masking cannot be complete there.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote_plus

__all__ = [
    "MIN_ENCODED",
    "MIN_WINDOW",
    "SecretScanner",
    "window_length",
]

MIN_ENCODED: Final = 4  # a shorter secret is found raw only (module docstring)
MIN_WINDOW: Final = 6  # the shortest window of a form that counts, and the shortest encoded form
MAX_PAIRED: Final = 16  # the texts :meth:`SecretScanner.hits` also reads in ordered pairs
MAX_PAIRED_CHARS: Final = 1 << 20  # ... while all those pairs come to at most this many characters
_INVISIBLE: Final = re.compile(r"[\s\u00ad\u180e\u200b-\u200f\u2060\ufeff]+")
_ESCAPE: Final = re.compile(r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|\\(.)", re.DOTALL)


def window_length(form: str) -> int:
    """The shortest run of ``form`` that counts as the form: max(6, ceil(len / 2)), at most all."""
    return min(len(form), max(MIN_WINDOW, -(-len(form) // 2)))


def _stripped(text: str) -> str:
    return _INVISIBLE.sub("", text)


def _unescaped(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1) or match.group(2)
        return chr(int(code, 16)) if code else match.group(3)

    return _ESCAPE.sub(one, text)


def views(text: str) -> tuple[str, ...]:
    """The text as read: as it is and decoded (%-encoding, HTML references, escapes), each with its
    whitespace taken out; without repeats."""
    out = [text]
    if "%" in text or "+" in text:
        out.append(unquote_plus(text, errors="replace"))
    if "&" in text:
        out.append(html.unescape(text))
    if "\\" in text:
        out.append(_unescaped(text))
    return tuple(dict.fromkeys(_stripped(v) for v in out))


def base64_runs(data: bytes) -> set[str]:
    """The stable inner runs of ``data``'s base64 and base64url in all three alignments: the
    characters of a longer stream that encode only bits of ``data``."""
    runs: set[str] = set()
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + data + bytes(2)).decode("ascii")
        first = -(-8 * offset // 6)  # the first character whose six bits start inside data
        last = (8 * (offset + len(data))) // 6  # one past the last whose bits end inside data
        inner = encoded[first:last]
        runs.update((inner, inner.replace("+", "-").replace("/", "_")))
    return runs


@dataclass(frozen=True)
class _Anchor:
    """A chunk of a form at ``offset``: a window of ``window`` characters of the form holds one."""

    form: str
    offset: int
    window: int


def _anchors(form: str) -> list[tuple[str, _Anchor]]:
    w = window_length(form)
    if len(form) - w < 4 or w <= 8:  # few windows, or short ones: every window is its own anchor
        return [(form[i : i + w], _Anchor(form, i, w)) for i in range(len(form) - w + 1)]
    size = (w + 1) // 2  # a window of w characters holds a whole chunk of this size at k * size
    return [(form[i : i + size], _Anchor(form, i, w)) for i in range(0, len(form) - size + 1, size)]


class SecretScanner:
    """The forms of a run's secrets (module docstring) and the scan of texts for them."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self._raw: set[str] = set()  # short secrets, case-folded: found as they are only
        folded: set[str] = set()  # forms found in the case-folded text
        cased: set[str] = set()  # forms found with case (base64)
        for secret in secrets:
            bare = _stripped(secret)
            if not bare:
                continue
            if len(bare) < MIN_ENCODED:
                self._raw.add(secret.casefold())
                continue
            plain = bare.casefold()
            folded.update((plain, plain[::-1], secret.encode("utf-8").hex()))
            cased.update(r for r in base64_runs(secret.encode("utf-8")) if len(r) >= MIN_WINDOW)
        self._folded = self._index(folded)
        self._cased = self._index(cased)
        self.work = 0

    @staticmethod
    def _index(forms: set[str]) -> dict[str, list[_Anchor]]:
        index: dict[str, list[_Anchor]] = {}
        for form in sorted(forms):
            for chunk, anchor in _anchors(form):
                index.setdefault(chunk, []).append(anchor)
        return index

    def __bool__(self) -> bool:
        return bool(self._raw or self._folded or self._cased)

    def finds(self, text: str, *, decoded: bool = True) -> bool:
        """Whether ``text`` holds any form of any secret; ``decoded=False`` reads it as it is only
        (bytes that are no text, such as an image: %-, HTML- or escape-decoding means nothing there)."""
        if not self or not text:
            return False
        if self._raw:
            lowered = text.casefold()
            if any(s in lowered for s in self._raw):
                return True
        for view in views(text) if decoded else (_stripped(text),):
            if self._cased and self._search(view, self._cased):
                return True
            if self._folded and self._search(view.casefold(), self._folded):
                return True
        return False

    def _search(self, text: str, index: dict[str, list[_Anchor]]) -> bool:
        for chunk, anchors in index.items():
            self.work += 1
            at = text.find(chunk)
            while at != -1:
                for anchor in anchors:
                    self.work += 1
                    if _extends(text, at, len(chunk), anchor):
                        return True
                at = text.find(chunk, at + 1)
        return False

    def hits(self, texts: Sequence[str]) -> set[int]:
        """The indexes of ``texts`` that hold a form: each alone; while there are at most
        :data:`MAX_PAIRED` texts, each that continues a form another one holds (the rest of a
        secret split in two) and each ordered pair that holds one joined (:meth:`_paired`); then
        the texts joined in order and in reverse order (the fewest in a row that hold it). Texts are
        read one by one only when all of them, read as one (a NUL between them), hold a form."""
        if not self or not any(texts):
            return set()
        alone = self.finds("\x00".join(texts))
        found = {i for i, text in enumerate(texts) if alone and self.finds(text)}
        rest = [i for i in range(len(texts)) if i not in found and texts[i]]
        if len(texts) <= MAX_PAIRED:
            holders = sorted(found)
            found.update(j for j in rest if any(self._continues(texts[i], texts[j]) for i in holders))
            rest = [j for j in rest if j not in found]
            found.update(self._paired(texts, rest))
        for order in (rest, rest[::-1]):
            found.update(self._joined(texts, [i for i in order if i not in found]))
        return found

    def _paired(self, texts: Sequence[str], rest: list[int]) -> set[int]:
        """The texts of ``rest`` that hold a form joined in an ordered pair. All pairs are read
        first as one text (a NUL between pairs, which no form holds), so that only a hit reads them
        one by one; none when that text would be over :data:`MAX_PAIRED_CHARS`."""
        pairs = [(i, j) for i in rest for j in rest if i != j]
        if sum(len(texts[i]) + len(texts[j]) for i, j in pairs) > MAX_PAIRED_CHARS:
            return set()
        if not pairs or not self.finds("\x00".join(texts[i] + texts[j] for i, j in pairs)):
            return set()
        return {k for i, j in pairs if self.finds(texts[i] + texts[j]) for k in (i, j)}

    def _continues(self, holder: str, text: str) -> bool:
        """Whether ``text`` goes on (or leads up to) a form that ``holder`` holds part of: joined to
        the last (or first) few characters of ``holder``, too few to hold a form alone, it holds one."""
        bare = _stripped(holder)
        tail, head = bare[-(MIN_WINDOW - 1) :], bare[: MIN_WINDOW - 1]
        return (self.finds(tail + text) and not self.finds(tail)) or (
            self.finds(text + head) and not self.finds(head)
        )

    def _joined(self, texts: Sequence[str], order: list[int]) -> list[int]:
        """The shortest run of ``order`` (found by halving: a run holds a form when a shorter one
        does) whose joined texts hold a form; none when the whole does not."""

        def holds(lo: int, hi: int) -> bool:
            return self.finds("".join(texts[i] for i in order[lo:hi]))

        if len(order) < 2 or not holds(0, len(order)):
            return []
        lo, hi = 0, len(order) - 1  # the last start that still holds, by bisection
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if holds(mid, len(order)) else (lo, mid - 1)
        start, lo, hi = lo, lo + 1, len(order)  # the first end that holds
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if holds(start, mid) else (mid + 1, hi)
        return order[start:lo]


def _extends(text: str, at: int, size: int, anchor: _Anchor) -> bool:
    """Whether the anchor's chunk found at ``at`` grows, both ways, into a window of its form."""
    form, offset, window = anchor.form, anchor.offset, anchor.window
    left = 0
    most = min(offset, at, window - size)
    while left < most and text[at - left - 1] == form[offset - left - 1]:
        left += 1
    right = 0
    most = min(len(form) - offset - size, len(text) - at - size, window - size - left)
    while right < most and text[at + size + right] == form[offset + size + right]:
        right += 1
    return left + size + right >= window
