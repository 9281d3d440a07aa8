"""Scrubbing a Playwright trace before it reaches the --artifacts directory (pure, over bytes)."""

from __future__ import annotations

import base64
import html
import io
import json
import zipfile
from typing import Any
from urllib.parse import quote_plus

from skillreel.model.secret_scan import SecretScanner
from skillreel.sandbox.artifacts import REDACTED, Hidden, encoded_leak, leaks, scrub_trace, storage_secrets

SECRET = "hunter2-Ünïcode/&=+"
TOKEN = "tok-1234567"


def trace(entries: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, body in entries.items():
            archive.writestr(name, body)
    return out.getvalue()


def lines(*events: Any) -> bytes:
    return "\n".join(json.dumps(e) for e in events).encode()


def read(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {n: archive.read(n) for n in archive.namelist()}


NETWORK = {
    "type": "resource-snapshot",
    "snapshot": {
        "request": {
            "url": f"https://app.test/cb?state=1&token={TOKEN}",
            "headers": [{"name": "Cookie", "value": "sid=abc123456"}, {"name": "Accept", "value": "*/*"}],
            "cookies": [{"name": "sid", "value": "abc123456"}],
        },
        "response": {"headers": [{"name": "Set-Cookie", "value": "sid=abc123456; Path=/"}], "cookies": []},
    },
}


def test_every_form_of_a_secret_and_every_url_token_are_replaced_and_cookies_blanked() -> None:
    raw = trace(
        {
            "trace.trace": lines(
                {"type": "before", "method": "fill", "params": {"value": SECRET}},
                {"type": "frame-snapshot", "html": ["INPUT", {"__playwright_value_": SECRET}]},
                {"type": "log", "message": f"navigated to https://app.test/next#access_token={TOKEN}"},
            ),
            "trace.network": lines(NETWORK),
            "resources/post.dat": ("key=" + quote_plus(SECRET)).encode(),
            "resources/page.html": f"<p>{html.escape(SECRET)}</p>".encode(),
        }
    )
    hidden = Hidden.of([SECRET])
    assert leaks(raw, hidden)
    clean = scrub_trace(raw, hidden)
    assert clean is not None
    assert not leaks(clean, hidden)
    files = read(clean)
    everything = b"".join(files.values())
    for value in (SECRET, TOKEN, "abc123456"):
        assert value.encode() not in everything
    fill = json.loads(files["trace.trace"].splitlines()[0])
    assert fill == {"type": "before", "method": "fill", "params": {"value": REDACTED}}
    request = json.loads(files["trace.network"])["snapshot"]["request"]
    assert request["headers"][1] == {"name": "Accept", "value": "*/*"}  # the rest is kept
    assert request["url"] == f"https://app.test/cb?state=1&token={REDACTED}"


def test_a_secret_too_short_to_scrub_withholds_the_trace() -> None:
    raw = trace({"trace.trace": lines({"params": {"value": "123"}})})
    assert scrub_trace(raw, Hidden.of(["123"])) is None
    assert scrub_trace(raw, Hidden.of([])) is not None  # nothing hidden: only cookies and tokens go


def test_storage_state_cookies_and_long_local_storage_values_are_hidden() -> None:
    state = {
        "cookies": [{"name": "sid", "value": "cookie-value-1"}],
        "origins": [
            {
                "origin": "https://app.test",
                "localStorage": [{"name": "a", "value": "1"}, {"name": "jwt", "value": "eyJhbGciOi"}],
            }
        ],
    }
    assert storage_secrets(state) == ["cookie-value-1", "1", "eyJhbGciOi"]
    assert Hidden.of(["s3cret"], state).values == ("cookie-value-1", "eyJhbGciOi", "s3cret")
    assert "cookie-value-1" not in repr(Hidden.of([], state))


def test_a_trace_entry_holding_an_encoded_secret_is_named_and_a_clean_one_is_not() -> None:
    key = "sk-live-0f9e8d7c6b5a"
    scanner = SecretScanner([key])
    snapshot = lines(
        {"type": "frame-snapshot", "html": ["P", {}, base64.b64encode(b"<" + key.encode()).decode()]}
    )
    clean = trace(
        {"trace.trace": lines({"type": "before", "params": {"value": REDACTED}}), "a.png": b"\x89PNG\xff"}
    )
    assert encoded_leak(clean, scanner) is None
    assert encoded_leak(trace({"trace.trace": snapshot}), scanner) == "trace.trace"
    reversed_in_binary = b"\x89PNG\xff" + key[::-1].encode() + b"\x00"
    assert encoded_leak(trace({"resources/x.png": reversed_in_binary}), scanner) == "resources/x.png"
    assert encoded_leak(trace({"trace.trace": snapshot}), SecretScanner([])) is None
