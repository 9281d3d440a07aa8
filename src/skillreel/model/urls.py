"""Pure URL rules: target URLs, exact origins, loopback, and stripping tokens from URLs.

Used by the model (to re-validate environments) and by ``sandbox.allowlist`` (to decide requests).
Error messages here never repeat the URL: they name the rule that failed.

**Query keys** (:class:`QueryRule`). A query pair is stripped when its key names a credential
(:data:`CREDENTIAL_KEYS`: ``token``, ``password``, ``client_secret``...) or its value looks like a
token (:func:`looks_like_token`: a JWT, a long hex or mixed-case random string); the keys that are
credentials as often as business keys (:data:`BUSINESS_KEYS`: ``code``, ``state``, ``key``,
``session``) are held to a stricter bar (:func:`looks_like_secret_code`: eight or more characters
with upper case, lower case and digits). Any other pair is kept, so the business keys
``state=open``, ``code=FR`` or ``key=orders`` survive while OAuth's ``code=4/0AX4Xf...`` does
not. A reviewer keeps (``keep``) or strips (``strip``) a key by name, whatever the rule says. The
fragment is always dropped. Skills recorded before this rule carry the
first one (:data:`V1_RULE`: every key of :data:`TOKEN_KEYS` stripped by name alone), and keep it.
"""

from __future__ import annotations

import ipaddress
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal
from urllib.parse import parse_qsl, unquote_plus, urlencode, urlsplit, urlunsplit

# Query parameters and fragment keys that may carry credentials (seed 004: the unsolved leak
# channel). The first rule (V1_RULE) strips all of them by name; free text is cleaned of them.
TOKEN_KEYS = frozenset(
    {
        "code",
        "token",
        "access_token",
        "id_token",
        "refresh_token",
        "state",
        "session",
        "sessionid",
        "session_id",
        "sig",
        "signature",
        "otp",
        "password",
        "passwd",
        "pwd",
        "key",
        "api_key",
        "apikey",
        "secret",
        "client_secret",
        "auth",
        "jwt",
        "nonce",
    }
)
# Keys that are business keys as often as credentials: stripped only when the value looks like one.
BUSINESS_KEYS: Final = frozenset({"code", "state", "key", "session"})
# Keys that name a credential whatever their value.
CREDENTIAL_KEYS: Final = TOKEN_KEYS - BUSINESS_KEYS

StripReason = Literal["credential-key", "token-value", "strip-query", "v1-token-key"]

_JWT: Final = re.compile(r"eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*")
_TOKEN_ALPHABET: Final = re.compile(r"[A-Za-z0-9_\-+/=.~]+")
_HEX: Final = re.compile(r"[0-9a-fA-F]+")
MIN_TOKEN_CHARS: Final = 16


def looks_like_token(value: str) -> bool:
    """True for a value shaped like a credential rather than a business value: a JWT; 16 or more
    characters of a token alphabet (no spaces, not a path) that are hex with letters and digits
    (``8dce6ced32ad...``, a UUID), random mixed case (``aVz1SoRcvMxqMu2J``: at least a quarter of
    the letters in each case) or letters and digits alternating often (``k3j4h5g6f7d8s9a0q1w2``).
    Words, slugs, dates and codes (``summer-sale-2024-promo``, ``INV-2024-00012345``) are not."""
    v = value.strip()
    if _JWT.search(v):
        return True
    if len(v) < MIN_TOKEN_CHARS or v.startswith("/") or not _TOKEN_ALPHABET.fullmatch(v):
        return False
    digits = sum(c.isdigit() for c in v)
    letters = [c for c in v if c.isalpha()]
    bare = v.replace("-", "")
    if len(bare) >= MIN_TOKEN_CHARS and _HEX.fullmatch(bare) and digits and letters:
        return True
    upper = sum(c.isupper() for c in letters)
    lower = len(letters) - upper
    if upper >= 3 and lower >= 3 and min(upper, lower) * 4 >= len(letters):
        return True
    switches = sum(
        1 for a, b in itertools.pairwise(v) if a.isalnum() and b.isalnum() and a.isdigit() != b.isdigit()
    )
    return bool(digits and letters) and switches >= max(6, len(v) // 4)


MIN_SECRET_CODE_CHARS: Final = 8


def looks_like_secret_code(value: str) -> bool:
    """The stricter bar of the :data:`BUSINESS_KEYS`: :func:`looks_like_token`, or eight or more
    characters of a token alphabet with upper case, lower case and digits (``CanaryCode4Tn``,
    ``Xy7kP2qL``), which business codes (``FR``, ``SUMMER24``, ``INV-2024-0001``, ``orders``)
    rarely are."""
    v = value.strip()
    if looks_like_token(v):
        return True
    if len(v) < MIN_SECRET_CODE_CHARS or v.startswith("/") or not _TOKEN_ALPHABET.fullmatch(v):
        return False
    return any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(c.islower() for c in v)


@dataclass(frozen=True)
class QueryRule:
    """Which query keys a URL keeps: ``keep`` and ``strip`` are the reviewer's choices (lower-case
    key names); ``v1`` is the first rule (every :data:`TOKEN_KEYS` name stripped, values ignored)."""

    keep: frozenset[str] = frozenset()
    strip: frozenset[str] = frozenset()
    v1: bool = False

    def strip_reason(self, key: str, value: str) -> StripReason | None:
        """Why the pair ``key=value`` is stripped, or None when it is kept."""
        name = key.lower()
        if self.v1:
            return "v1-token-key" if name in TOKEN_KEYS else None
        if name in self.strip:
            return "strip-query"
        if name in self.keep:
            return None
        if name in CREDENTIAL_KEYS:
            return "credential-key"
        if looks_like_token(key):
            return "token-value"
        redirect = value.startswith("/") or "://" in value
        shaped = looks_like_secret_code if name in BUSINESS_KEYS else looks_like_token
        if shaped(value) or (redirect and _nested_token(value)):
            return "token-value"
        return None


def _nested_token(value: str) -> bool:
    """A redirect target (a path or URL in a value) that carries a credential of its own."""
    parts = urlsplit(value)
    pairs = parse_qsl(parts.query, keep_blank_values=True) + parse_qsl(parts.fragment, keep_blank_values=True)
    return any(k.lower() in CREDENTIAL_KEYS or looks_like_token(v) for k, v in pairs)


DEFAULT_RULE: Final = QueryRule()
V1_RULE: Final = QueryRule(v1=True)


def query_rule(keep: Iterable[str] = (), strip: Iterable[str] = ()) -> QueryRule:
    return QueryRule(frozenset(k.lower() for k in keep), frozenset(k.lower() for k in strip))


_DEFAULT_PORTS = {"http": 80, "https": 443}


class URLRuleError(ValueError):
    """A URL or origin broke a rule; ``str(exc)`` names the rule, never the URL."""


def is_loopback_host(host: str) -> bool:
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _host_port(url: str) -> tuple[str, str, int]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise URLRuleError("not a valid URL") from exc
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise URLRuleError("only http and https URLs are allowed")
    if not parts.hostname:
        raise URLRuleError("the URL has no host")
    if parts.username is not None or parts.password is not None:
        raise URLRuleError("URLs with user:password are refused")
    return scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[scheme]


def _format_origin(scheme: str, host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    if _DEFAULT_PORTS[scheme] == port:
        return f"{scheme}://{shown}"
    return f"{scheme}://{shown}:{port}"


def origin_of(url: str) -> str:
    """The exact origin (``scheme://host[:port]``) of an http(s) URL."""
    scheme, host, port = _host_port(url)
    return _format_origin(scheme, host, port)


def check_transport(url: str) -> None:
    """HTTPS anywhere; plain HTTP only to a loopback host."""
    scheme, host, _ = _host_port(url)
    if scheme == "http" and not is_loopback_host(host):
        raise URLRuleError("plain http is allowed only on loopback; use https")


def _pairs(query: str) -> list[tuple[str, str, str]]:
    """``(segment as written, key, value)`` for each ``&``-separated pair (key and value decoded)."""
    found = []
    for segment in query.split("&"):
        if segment:
            key, _, value = segment.partition("=")
            found.append((segment, unquote_plus(key), unquote_plus(value)))
    return found


def strip_tokens(url: str, rule: QueryRule = DEFAULT_RULE) -> str:
    """Drop the query pairs ``rule`` strips, and the whole fragment. The kept pairs stay as they
    were written (the first rule re-encoded them, and keeps doing so)."""
    parts = urlsplit(url)
    if rule.v1:
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        query = urlencode([(k, v) for k, v in pairs if not rule.strip_reason(k, v)])
    else:
        query = "&".join(seg for seg, k, v in _pairs(parts.query) if not rule.strip_reason(k, v))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def token_values(url: str) -> list[str]:
    """The values of the credential-bearing query parameters and fragment keys of ``url``: those
    the first rule strips by name and those the default rule strips (token-shaped values too)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    query = parse_qsl(parts.query, keep_blank_values=False)
    fragment = parse_qsl(parts.fragment, keep_blank_values=False)
    found = [v for k, v in query if k.lower() in TOKEN_KEYS or DEFAULT_RULE.strip_reason(k, v)]
    return found + [v for k, v in fragment if k.lower() in TOKEN_KEYS or looks_like_token(v)]


SAFE_KEY: Final = re.compile(r"[A-Za-z0-9_.\[\]-]{1,64}")
UNNAMED_KEY: Final = "?"


def shown_key(key: str) -> str:
    """A query key fit to show and store: itself, or ``?`` when it is no plain name or looks like a
    token (a key can be a credential too)."""
    return key if SAFE_KEY.fullmatch(key) and not looks_like_token(key) else UNNAMED_KEY


def stripped_keys(url: str, rule: QueryRule = DEFAULT_RULE) -> tuple[str, ...]:
    """The query keys :func:`strip_tokens` drops from ``url`` (sorted, unique, :func:`shown_key`)."""
    pairs = _pairs(urlsplit(url).query)
    return tuple(sorted({shown_key(k) for _, k, v in pairs if rule.strip_reason(k, v)}))


def has_token(url: str, rule: QueryRule = DEFAULT_RULE) -> bool:
    """True when the URL carries a query pair ``rule`` strips, or a fragment key that names a
    credential (by the first rule's names: a fragment is never kept)."""
    parts = urlsplit(url)
    if any(rule.strip_reason(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)):
        return True
    pairs = parse_qsl(parts.fragment, keep_blank_values=True)
    return any(k.lower() in TOKEN_KEYS or (not rule.v1 and looks_like_token(v)) for k, v in pairs)


def normalise_target_url(url: str, rule: QueryRule = DEFAULT_RULE) -> str:
    """Validate a target URL and return its normal form (lower-case scheme/host, no default port,
    path at least ``/``, the query pairs ``rule`` strips and the fragment removed)."""
    if len(url) > 2048:
        raise URLRuleError("the URL is longer than 2,048 characters")
    check_transport(url)
    scheme, host, port = _host_port(url)
    parts = urlsplit(strip_tokens(url, rule))
    netloc = _format_origin(scheme, host, port).split("://", 1)[1]
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def rebase_url(url: str, origin: str, onto: str) -> str:
    """``url`` moved from ``origin`` onto the origin ``onto`` (path and query kept); a URL on
    another origin is returned as it is."""
    if origin_of(url) != origin:
        return url
    parts = urlsplit(url)
    target = urlsplit(onto)
    return urlunsplit((target.scheme, target.netloc, parts.path or "/", parts.query, parts.fragment))


def normalise_origin(origin: str) -> str:
    """Validate an exact origin (no path, query or fragment) and return its normal form."""
    parts = urlsplit(origin)
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise URLRuleError("an origin has no path, query or fragment")
    check_transport(origin)
    return origin_of(origin)
