"""PURE URL templates of a ``navigate`` step (issue 33): ``https://shop.test/orders/{order_id}``.

A placeholder ``{name}`` stands for the value of one of the step's ``parts`` (an input, an
earlier step's output, a loop item's field or a literal). Placeholders come after the origin
only (in the path, the query or the fragment), so no value can choose the host. Each value is
percent-encoded as a whole (``quote(value, safe="")``: ``/``, ``?``, ``#``, ``@``, ``&``, ``=``
and ``%`` included), so it stays inside its path segment or query value; a value that would make
a whole path segment ``.`` or ``..`` (which a browser resolves to another path) is refused, as is
a result whose origin is not the template's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final
from urllib.parse import quote, urlsplit

PLACEHOLDER: Final = re.compile(r"\{([a-z][a-z0-9_]{0,63})\}")
_DOT_SEGMENT: Final = re.compile(r"^(?:\.|%2e){1,2}$", re.IGNORECASE)


class TemplateProblem(ValueError):
    """A template or a filled URL that breaks a rule (the message names no value)."""


def _origin_end(url: str) -> int:
    """Where the origin of an absolute URL ends (the first ``/``, ``?`` or ``#`` after ``//``)."""
    start = url.find("//")
    if start < 0:
        raise TemplateProblem("a URL template is an absolute URL")
    ends = [i for i in (url.find(c, start + 2) for c in "/?#") if i >= 0]
    return min(ends, default=len(url))


def placeholders(url: str) -> list[str]:
    """The placeholder names of ``url``, in order (a name used twice is listed twice)."""
    return [m.group(1) for m in PLACEHOLDER.finditer(url)]


def check_template(url: str, names: frozenset[str]) -> None:
    """Every placeholder has a part and every part a placeholder; none in the origin; no other
    brace."""
    used = placeholders(url)
    if set(used) != names:
        raise TemplateProblem("the URL's placeholders and the step's parts differ")
    if "{" in PLACEHOLDER.sub("", url) or "}" in PLACEHOLDER.sub("", url):
        raise TemplateProblem("a URL template has a brace that is no placeholder")
    first = PLACEHOLDER.search(url)
    if first is not None and first.start() < _origin_end(url):
        raise TemplateProblem("a placeholder may not be part of the URL's origin")


def fill(url: str, values: Mapping[str, str]) -> str:
    """The URL with each placeholder replaced by its value, percent-encoded (see the module)."""
    out: list[str] = []
    at = 0
    for match in PLACEHOLDER.finditer(url):
        out.append(url[at : match.start()])
        out.append(quote(values[match.group(1)], safe=""))
        at = match.end()
    out.append(url[at:])
    filled = "".join(out)
    _check_path(_path(url), _path(filled))
    if _origin(filled) != _origin(url[: _origin_end(url)]):
        raise TemplateProblem("the filled URL leaves the template's origin")
    return filled


def _path(url: str) -> str:
    """The path of an absolute URL (a filled value holds no raw ``?`` or ``#``)."""
    cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    return url[_origin_end(url) : cut]


def _check_path(template_path: str, path: str) -> None:
    written = template_path.split("/")
    segments = path.split("/")
    holes = [bool(PLACEHOLDER.search(s)) for s in written]
    if len(holes) != len(segments):  # an encoded value never adds a segment
        raise TemplateProblem("a value changed the URL's path segments")
    for segment, hole in zip(segments, holes, strict=True):
        if hole and _DOT_SEGMENT.match(segment):
            raise TemplateProblem("a value would make a '.' or '..' path segment")


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()
