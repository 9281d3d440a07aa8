"""Pure URL rules: target URLs, exact origins, loopback, and stripping tokens from URLs.

Used by the model (to re-validate environments) and by ``sandbox.allowlist`` (to decide requests).
Error messages here never repeat the URL: they name the rule that failed.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

# Query parameters and fragment keys that carry credentials (seed 004: the unsolved leak channel).
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


def strip_tokens(url: str) -> str:
    """Drop credential-bearing query parameters and the whole fragment."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k.lower() not in TOKEN_KEYS]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def token_values(url: str) -> list[str]:
    """The values of the credential-bearing query parameters and fragment keys of ``url``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    pairs = parse_qsl(parts.query, keep_blank_values=False) + parse_qsl(
        parts.fragment, keep_blank_values=False
    )
    return [v for k, v in pairs if k.lower() in TOKEN_KEYS]


def has_token(url: str) -> bool:
    """True when the URL carries a token-like query parameter or any fragment with a key."""
    parts = urlsplit(url)
    keys = {k.lower() for k, _ in parse_qsl(parts.query, keep_blank_values=True)}
    keys |= {k.lower() for k, _ in parse_qsl(parts.fragment, keep_blank_values=True)}
    return bool(keys & TOKEN_KEYS)


def normalise_target_url(url: str) -> str:
    """Validate a target URL and return its normal form (lower-case scheme/host, no default port,
    path at least ``/``, tokens and fragment removed)."""
    if len(url) > 2048:
        raise URLRuleError("the URL is longer than 2,048 characters")
    check_transport(url)
    scheme, host, port = _host_port(url)
    parts = urlsplit(strip_tokens(url))
    netloc = _format_origin(scheme, host, port).split("://", 1)[1]
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def normalise_origin(origin: str) -> str:
    """Validate an exact origin (no path, query or fragment) and return its normal form."""
    parts = urlsplit(origin)
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise URLRuleError("an origin has no path, query or fragment")
    check_transport(origin)
    return origin_of(origin)
