"""sandbox.allowlist: the pure allow/refuse rules both enforcement layers share."""

from __future__ import annotations

import re

import pytest

from skillreel.sandbox.allowlist import (
    EgressDecision,
    decide,
    decide_connect,
    decide_forward,
    routed_pattern,
    split_authority,
)
from skillreel.sandbox.ledger import MAX_DISTINCT_ORIGINS, OVERFLOW_ORIGIN, UNKNOWN_ORIGIN, NetworkLedger
from tests.support.lookalike_urls import URLS

APP = "http://127.0.0.1:8000"
SECURE = "https://app.example"
ALLOWED = (APP, SECURE)


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("http://127.0.0.1:8000/", APP),
        ("http://127.0.0.1:8000/a/b?q=1#frag", APP),
        ("HTTP://127.0.0.1:8000/x", APP),
        ("https://app.example/path", SECURE),
        ("https://APP.example:443/", SECURE),
    ],
)
def test_allowlisted_http_origins_are_allowed(url: str, origin: str) -> None:
    assert decide(url, ALLOWED) == EgressDecision(True, origin, "allowlisted")


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("http://127.0.0.1:8001/", "http://127.0.0.1:8001"),  # another port
        ("http://localhost:8000/", "http://localhost:8000"),  # another host spelling
        ("https://127.0.0.1:8000/", "https://127.0.0.1:8000"),  # another scheme
        ("http://app.example/", "http://app.example"),  # downgraded scheme
        ("https://app.example:8443/", "https://app.example:8443"),
        ("https://evil.example/steal?token=x", "https://evil.example"),
        ("https://sub.app.example/", "https://sub.app.example"),
        ("http://[::1]:8000/", "http://[::1]:8000"),
    ],
)
def test_other_origins_are_refused_and_named_by_origin_only(url: str, origin: str) -> None:
    assert decide(url, ALLOWED) == EgressDecision(False, origin, "not-allowlisted")


@pytest.mark.parametrize(
    ("url", "allowed", "origin"),
    [
        ("ws://127.0.0.1:8000/socket", True, "ws://127.0.0.1:8000"),
        ("wss://app.example/socket", True, "wss://app.example"),
        ("wss://127.0.0.1:8000/socket", False, "wss://127.0.0.1:8000"),  # needs https://127.0.0.1:8000
        ("ws://app.example/socket", False, "ws://app.example"),  # needs http://app.example
        ("ws://127.0.0.1:9999/", False, "ws://127.0.0.1:9999"),
    ],
)
def test_web_sockets_follow_the_http_origin_of_the_same_host_and_port(
    url: str, allowed: bool, origin: str
) -> None:
    decision = decide(url, ALLOWED)
    assert (decision.allowed, decision.origin) == (allowed, origin)


@pytest.mark.parametrize("url", ["data:text/html,hi", "blob:http://127.0.0.1:8000/uuid", "about:blank"])
def test_local_schemes_are_allowed_without_an_origin(url: str) -> None:
    assert decide(url, ()) == EgressDecision(True, None, "local")


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("file:///etc/passwd", "file://"),
        ("FILE:///etc/passwd", "file://"),
        ("ftp://example.com/x", "ftp:"),
        ("chrome://settings", "chrome:"),
        ("filesystem:http://127.0.0.1:8000/temporary/x", "filesystem:"),
        ("javascript:alert(1)", "javascript:"),
    ],
)
def test_other_schemes_are_refused(url: str, origin: str) -> None:
    assert decide(url, ALLOWED) == EgressDecision(False, origin, "scheme-refused")


@pytest.mark.parametrize(
    "url",
    ["", "no-scheme", "://x", "http://user:pw@127.0.0.1:8000/", "http://127.0.0.1:99999/", "http:///nohost"],
)
def test_malformed_urls_are_refused(url: str) -> None:
    decision = decide(url, ALLOWED)
    assert not decision.allowed
    assert decision.origin is None
    assert decision.reason == "malformed"


def test_empty_allowlist_refuses_every_network_request() -> None:
    for url in ("http://127.0.0.1:8000/", "https://fixture.skillreel.invalid/", "ws://127.0.0.1:1/"):
        assert not decide(url, ()).allowed


@pytest.mark.parametrize(
    ("authority", "expected"),
    [
        ("example.com:443", ("example.com", 443)),
        ("EXAMPLE.com:8443", ("example.com", 8443)),
        ("127.0.0.1:1", ("127.0.0.1", 1)),
        ("[::1]:8000", ("::1", 8000)),
    ],
)
def test_split_authority(authority: str, expected: tuple[str, int]) -> None:
    assert split_authority(authority) == expected


@pytest.mark.parametrize(
    "authority",
    [
        "",
        "example.com",
        "example.com:",
        ":443",
        "example.com:0",
        "example.com:65536",
        "example.com:x",
        "::1:80",
        "[::1:80",
        "a@b:80",
        "a/b:80",
        "a b:80",
        "x" * 400 + ":80",
        "é.com:443",
    ],
)
def test_split_authority_refuses_garbage(authority: str) -> None:
    with pytest.raises(ValueError):
        split_authority(authority)


@pytest.mark.parametrize(
    ("host", "port", "allowed", "origin"),
    [
        ("app.example", 443, True, "https://app.example"),
        ("127.0.0.1", 8000, True, "http://127.0.0.1:8000"),  # ws:// to an allowlisted http origin
        ("app.example", 80, False, "http://app.example"),
        ("app.example", 8443, False, "https://app.example:8443"),
        ("evil.example", 443, False, "https://evil.example"),
        ("127.0.0.1", 8001, False, "https://127.0.0.1:8001"),
        ("::1", 8000, False, "https://[::1]:8000"),
    ],
)
def test_connect_is_judged_by_destination(host: str, port: int, allowed: bool, origin: str) -> None:
    decision = decide_connect(host, port, ALLOWED)
    assert (decision.allowed, decision.origin) == (allowed, origin)


def test_connect_to_port_80_of_an_allowlisted_http_host() -> None:
    assert decide_connect("app.example", 80, ("http://app.example",)).allowed


@pytest.mark.parametrize(
    ("target", "allowed", "origin", "reason"),
    [
        ("http://127.0.0.1:8000/x?y=1", True, APP, "allowlisted"),
        ("ws://127.0.0.1:8000/socket", True, "ws://127.0.0.1:8000", "allowlisted"),
        ("http://127.0.0.1:8001/", False, "http://127.0.0.1:8001", "not-allowlisted"),
        ("https://app.example/", False, SECURE, "malformed"),  # https is never forwarded in the clear
        ("/relative", False, None, "malformed"),
        ("*", False, None, "malformed"),
        ("http:/x", False, "http:", "malformed"),
    ],
)
def test_forward_targets(target: str, allowed: bool, origin: str | None, reason: str) -> None:
    decision = decide_forward(target, ALLOWED)
    assert decision.allowed == allowed
    assert decision.reason == reason
    if allowed or reason == "not-allowlisted":
        assert decision.origin == origin


@pytest.mark.parametrize(
    "host", ["fixture.skillreel.invalid", "GAIA.skillreel.invalid", "update.skillreel.invalid."]
)
def test_skillreel_sinkhole_hosts_are_refused_silently_at_the_proxy(host: str) -> None:
    assert decide_connect(host, 443, ALLOWED) == EgressDecision(False, None, "sinkhole")
    assert decide_forward(f"http://{host}/x", ALLOWED).reason == "sinkhole"
    # the routing layer still reports a page's own request to such a host
    assert decide(f"https://{host}/x", ()).reason == "not-allowlisted"


def test_chromiums_own_dictionary_download_is_refused_silently_at_the_proxy_only() -> None:
    # Chromium fetches spell-check dictionaries from a compiled-in host when a text area is typed
    # into: browser traffic, not the page's. Refused, not reported (a replay must not fail on it).
    assert decide_connect("redirector.gvt1.com", 443, ALLOWED) == EgressDecision(False, None, "sinkhole")
    assert decide_connect("Redirector.GVT1.com.", 443, ()).reason == "sinkhole"
    # any other port, a look-alike host or a page's own request is reported as usual
    assert decide_connect("redirector.gvt1.com", 8443, ()).reason == "not-allowlisted"
    assert decide_connect("xredirector.gvt1.com", 443, ()).reason == "not-allowlisted"
    assert decide("https://redirector.gvt1.com/edgedl/x", ()).reason == "not-allowlisted"
    # an allowlist that admits it admits it
    assert decide_connect("redirector.gvt1.com", 443, ("https://redirector.gvt1.com",)).allowed


def test_sinkhole_suffix_is_not_a_prefix_match() -> None:
    assert decide_connect("evilskillreel.invalid", 443, ()).reason == "not-allowlisted"


def test_ledger_counts_marks_and_origins() -> None:
    ledger = NetworkLedger()
    ledger.refuse("http://b")
    mark = ledger.mark()
    assert ledger.since(mark) == 0
    ledger.refuse("http://a")
    ledger.refuse("http://b")
    ledger.refuse(None)
    assert ledger.denied_count == 4
    assert ledger.since(mark) == 3
    assert ledger.denied_origins == (UNKNOWN_ORIGIN, "http://a", "http://b")
    assert ledger.origins_since(mark) == (UNKNOWN_ORIGIN, "http://a", "http://b")
    assert ledger.origins_since(ledger.mark()) == ()


def test_ledger_memory_is_bounded() -> None:
    ledger = NetworkLedger()
    for i in range(MAX_DISTINCT_ORIGINS + 50):
        ledger.refuse(f"https://h{i}.example")
    assert ledger.denied_count == MAX_DISTINCT_ORIGINS + 50
    assert len(ledger.denied_origins) == MAX_DISTINCT_ORIGINS + 1
    assert OVERFLOW_ORIGIN in ledger.denied_origins


# ---- routed_pattern: the URLs routing must decide (the others skip the round trip to Python) ------


def test_a_url_routing_skips_is_one_decide_allows() -> None:
    pattern = routed_pattern(ALLOWED)
    assert pattern is not None
    skipped = [url for url in URLS if not re.search(pattern, url)]
    assert skipped == [
        "http://127.0.0.1:8000/",
        "http://127.0.0.1:8000/a/b?q=1#frag",
        "https://app.example/path",
    ]
    assert all(decide(url, ALLOWED).allowed for url in skipped)


def test_an_origin_not_written_as_origin_of_writes_it_is_not_skipped() -> None:
    """decide never allows an origin written otherwise (case, a default port): none is named."""
    assert routed_pattern(["HTTPS://App.example", "https://app.example:443", "http://[::1]:80"]) is None
    assert routed_pattern([]) is None
    pattern = routed_pattern(["https://app.example", "https://App.example"])
    assert pattern is not None
    assert not re.search(pattern, "https://app.example/x")
    assert re.search(pattern, "https://App.example/x")


def test_dots_in_an_origin_match_only_dots() -> None:
    pattern = routed_pattern(["http://127.0.0.1:8000"])
    assert pattern is not None
    assert re.search(pattern, "http://127a0b0c1:8000/")
    assert re.search(pattern, "http://[::1]:8000/")
    assert not re.search(pattern, "http://127.0.0.1:8000/")
    v6 = routed_pattern(["http://[::1]:8000"])
    assert v6 is not None
    assert not re.search(v6, "http://[::1]:8000/x")
    assert re.search(v6, "http://:1:8000/x")
