"""Request URLs around two allowlisted origins (``http://127.0.0.1:8000``, ``https://app.example``),
for the tests of ``sandbox.allowlist.routed_pattern`` (the unit test, and the browser test that
reads the pattern in Chromium's JavaScript)."""

from __future__ import annotations

ORIGINS = ("http://127.0.0.1:8000", "https://app.example")

# Other ports, hosts that begin the same, credentials, a port
# written out, other schemes, case, IPv6, local schemes.
URLS = (
    "http://127.0.0.1:8000/",
    "http://127.0.0.1:8000/a/b?q=1#frag",
    "http://127.0.0.1:80001/",
    "http://127.0.0.1:800/",
    "http://127.0.0.1:8000@evil.example/",
    "http://user:pw@127.0.0.1:8000/",
    "http://127.0.0.1:8000.evil.example/",
    "http://127.0.0.10:8000/",
    "HTTP://127.0.0.1:8000/x",
    "https://127.0.0.1:8000/",
    "ws://127.0.0.1:8000/socket",
    "https://app.example/path",
    "https://app.example:443/",
    "https://app.example.evil/",
    "https://app.example@evil/",
    "https://appxexample/",
    "https://APP.example/",
    "http://app.example/",
    "http://[::1]:8000/",
    "data:text/plain,hi",
    "blob:http://127.0.0.1:8000/uuid",
    "about:blank",
    "file:///etc/passwd",
    "ftp://127.0.0.1:8000/",
    "javascript:alert(1)",
    "not a url",
)
