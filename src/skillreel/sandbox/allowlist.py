"""Pure network policy: may this request, web socket or tunnel reach its destination?

Both enforcement layers ask the same questions here: the routing layer in the browser context
(``context.route`` / ``context.route_web_socket``) and the enforcing forward proxy Chromium is
launched through (``sandbox.proxy``). No I/O, no playwright.

Rules (ARCHITECTURE section 7):

- ``http``/``https``: allowed iff the request's exact origin is in the allowlist.
- ``ws``/``wss``: a web socket is a connection to the same host and port as ``http``/``https``
  (the handshake is an HTTP request), so ``ws://h:p`` is allowed iff ``http://h:p`` is, and
  ``wss://h:p`` iff ``https://h:p`` is. A refusal is reported under the ``ws``/``wss`` origin.
- ``data:``, ``blob:`` and ``about:`` never leave the browser: they are local and allowed.
- Everything else (``file:``, ``ftp:``, ``chrome:``, ``filesystem:``, unknown schemes, URLs that
  do not parse, URLs with ``user:password``) is refused.
- ``CONNECT host:port`` (a tunnel, used by Chromium for ``https``, ``wss`` and, through a proxy,
  for ``ws`` too) carries bytes the proxy cannot inspect, so it is judged by its destination only:
  allowed iff some allowlisted origin has exactly that host and port (``https://h:p``, or
  ``http://h:p`` since a ``ws://`` socket to an allowlisted ``http`` origin is tunnelled too). A
  tunnel to an allowlisted host and port can only ever reach that server, which the allowlist
  already trusts.

At the proxy, hosts under :data:`SINKHOLE_SUFFIX` and tunnels to :data:`BROWSER_DOWNLOAD_HOSTS` that
the allowlist does not admit are refused silently (reason ``"sinkhole"``).

Reported origins are origin strings only (never a path, query or credential) so they can name a
refusal in an error message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal
from urllib.parse import urlsplit

from skillreel.model.urls import URLRuleError, origin_of

Reason = Literal["local", "allowlisted", "not-allowlisted", "scheme-refused", "malformed", "sinkhole"]

LOCAL_SCHEMES: Final = frozenset({"data", "blob", "about"})
# A web socket scheme and the HTTP scheme whose origin admits it (same host, port and security).
_WEB_SCHEMES: Final = {"http": "http", "https": "https", "ws": "http", "wss": "https"}
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
MAX_AUTHORITY_CHARS: Final = 300
# Hosts under this reserved name (RFC 6761: ``.invalid`` never resolves) are skillreel's own: the
# HTML fixture's origin, and where Chromium's account and component-update services are pointed
# (``--gaia-url``, ``--component-updater``) so the browser's own background traffic never looks
# like the page's. The proxy refuses them without reporting; routing still reports page requests.
SINKHOLE_SUFFIX: Final = ".skillreel.invalid"
# Hosts Chromium downloads from with an address compiled in (no switch points them elsewhere): the
# spell-check dictionaries (``https://redirector.gvt1.com/edgedl/chrome/dict/...``, fetched when a
# text area is first typed into). A tunnel to one is the browser's own traffic, refused like a
# sinkhole; a page's own request to such a host still meets routing first and is reported there.
BROWSER_DOWNLOAD_HOSTS: Final = frozenset({"redirector.gvt1.com"})


@dataclass(frozen=True)
class EgressDecision:
    """Whether a request may proceed, and the origin to report it under (``None`` when local)."""

    allowed: bool
    origin: str | None
    reason: Reason


def _scheme_of(url: str) -> str | None:
    head, sep, _ = url.partition(":")
    if not sep or not head or not head[0].isalpha():
        return None
    if not all(c.isalnum() or c in "+-." for c in head):
        return None
    return head.lower()


def _refused_scheme_origin(scheme: str, url: str) -> str:
    if scheme == "file":
        return "file://"
    return f"{scheme}:"


def decide(url: str, allowed_origins: Iterable[str]) -> EgressDecision:
    """Decide one request URL (page, worker, redirect hop or web socket) against the allowlist."""
    allowed = frozenset(allowed_origins)
    scheme = _scheme_of(url)
    if scheme is None:
        return EgressDecision(False, None, "malformed")
    if scheme in LOCAL_SCHEMES:
        return EgressDecision(True, None, "local")
    http_scheme = _WEB_SCHEMES.get(scheme)
    if http_scheme is None:
        return EgressDecision(False, _refused_scheme_origin(scheme, url), "scheme-refused")
    try:
        http_origin = origin_of(http_scheme + url[len(scheme) :])
    except URLRuleError:
        return EgressDecision(False, None, "malformed")
    origin = scheme + http_origin[len(http_scheme) :]
    if http_origin in allowed:
        return EgressDecision(True, origin, "allowlisted")
    return EgressDecision(False, origin, "not-allowlisted")


# The characters an origin may hold for :func:`routed_pattern` to name it (what ``origin_of``
# writes for a host name, an IPv4 or a bracketed IPv6 address, and a port).
_PLAIN_ORIGIN: Final = re.compile(r"^https?://[a-z0-9.\-]+(:[0-9]+)?$|^https?://\[[0-9a-f:.]+\](:[0-9]+)?$")


def routed_pattern(allowed_origins: Iterable[str]) -> str | None:
    """The regular expression (its source, the same in Python and JavaScript) of the request URLs
    the routing layer must decide: every URL except those that begin with exactly an allowlisted
    origin and a slash (the form Chromium writes such a URL in). A URL left out is one
    :func:`decide` allows, so it is continued without a round trip to Python; every other URL
    (another origin, a local or refused scheme, credentials, a port written out) still meets
    :func:`decide`. None (route everything) when no origin can be named so."""
    prefixes = []
    for origin in sorted(set(allowed_origins)):
        if not _PLAIN_ORIGIN.match(origin):
            continue
        try:
            if origin_of(origin + "/") != origin:  # not as origin_of writes it: decide never allows it
                continue
        except URLRuleError:
            continue
        prefixes.append(re.sub(r"([.\[\]])", r"\\\1", origin) + "/")
    if not prefixes:
        return None
    return "^(?!(?:" + "|".join(prefixes) + "))"


def split_authority(authority: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` for IPv6) of a CONNECT request -> (host, port).

    Raises :class:`ValueError` when it is not exactly a host and a port in range.
    """
    if not authority or len(authority) > MAX_AUTHORITY_CHARS:
        raise ValueError("bad authority")
    host, sep, port_text = authority.rpartition(":")
    if not sep or not port_text.isdigit() or not host:
        raise ValueError("bad authority")
    port = int(port_text)
    if not 0 < port < 65536:
        raise ValueError("bad port")
    if host.startswith("["):
        if not host.endswith("]") or len(host) < 3:
            raise ValueError("bad IPv6 host")
        host = host[1:-1]
    elif ":" in host:
        raise ValueError("bad host")
    if any(c in host for c in "/@?#\\ \t") or any(ord(c) < 0x21 or ord(c) > 0x7E for c in host):
        raise ValueError("bad host")
    return host.lower(), port


def _origin_for(scheme: str, host: str, port: int) -> str | None:
    shown = f"[{host}]" if ":" in host else host
    try:
        return origin_of(f"{scheme}://{shown}:{port}/")
    except URLRuleError:
        return None


def decide_connect(host: str, port: int, allowed_origins: Iterable[str]) -> EgressDecision:
    """Decide a ``CONNECT host:port`` tunnel by its destination (see the module docstring).

    A refusal is reported as ``https://host[:port]`` (``http://host`` for port 80), the origin a
    user would most likely have to allow.
    """
    allowed = frozenset(allowed_origins)
    if is_sinkhole_host(host):
        return EgressDecision(False, None, "sinkhole")
    https_origin = _origin_for("https", host, port)
    http_origin = _origin_for("http", host, port)
    if https_origin is None or http_origin is None:
        return EgressDecision(False, None, "malformed")
    if https_origin in allowed or http_origin in allowed:
        return EgressDecision(True, https_origin if https_origin in allowed else http_origin, "allowlisted")
    if port == _DEFAULT_PORTS["https"] and host.lower().rstrip(".") in BROWSER_DOWNLOAD_HOSTS:
        return EgressDecision(False, None, "sinkhole")
    reported = http_origin if port == _DEFAULT_PORTS["http"] else https_origin
    return EgressDecision(False, reported, "not-allowlisted")


def decide_forward(target: str, allowed_origins: Iterable[str]) -> EgressDecision:
    """Decide a forward-proxy request line target (absolute-form ``http://host:port/path``).

    Only ``http`` (and ``ws`` for an Upgrade request) may be forwarded in the clear; anything else
    (origin-form paths, ``https`` in the clear, other schemes) is refused.
    """
    scheme = _scheme_of(target)
    try:
        has_host = bool(urlsplit(target).netloc)
    except ValueError:
        has_host = False
    if scheme not in ("http", "ws") or not has_host:
        return EgressDecision(False, None if scheme is None else decide(target, ()).origin, "malformed")
    decision = decide(target, allowed_origins)
    if not decision.allowed and is_sinkhole_host(urlsplit(target).hostname or ""):
        return EgressDecision(False, None, "sinkhole")
    return decision


def is_sinkhole_host(host: str) -> bool:
    """True for skillreel's own never-resolving hosts (see :data:`SINKHOLE_SUFFIX`)."""
    return host.lower().rstrip(".").endswith(SINKHOLE_SUFFIX)
