"""The review page's pure decisions: its own Host only, the page token, same-origin posts, and the
runs chart's layout."""

from __future__ import annotations

import re

import pytest

from skillreel.ui.chart import run_chart
from skillreel.ui.guard import Guard, new_host_name

NAME = "r-0123456789abcdef.localhost"
GUARD = Guard(port=4321, token="t0ken-value", host_name=NAME)
ORIGIN = f"http://{NAME}:4321"


def test_only_its_own_host_name_and_token() -> None:
    """F5: the page answers at its random name only: never at 127.0.0.1 or localhost."""
    assert GUARD.host_ok(f"{NAME}:4321")
    refused = (
        "127.0.0.1:4321",
        "localhost:4321",
        "127.0.0.1",
        NAME,
        f"{NAME}:4322",
        "r-fedcba9876543210.localhost:4321",
        f"x.{NAME}:4321",
        "evil.example:4321",
        None,
    )
    for host in refused:
        assert not GUARD.host_ok(host), host
    assert GUARD.token_ok("t0ken-value")
    assert not GUARD.token_ok("t0ken-valu")
    assert not GUARD.token_ok(None)
    assert GUARD.url() == f"{ORIGIN}/?token=t0ken-value"


def test_a_fresh_name_for_every_serving() -> None:
    names = {new_host_name() for _ in range(20)}
    assert len(names) == 20
    assert all(re.fullmatch(r"r-[0-9a-f]{16}\.localhost", n) for n in names)
    for bad in ("127.0.0.1", "localhost", "r-x.example", "r-a.b.localhost"):
        with pytest.raises(ValueError):
            Guard(port=1, token="t", host_name=bad)


def test_a_state_change_needs_the_token_beside_the_cookie() -> None:
    assert GUARD.post_token_ok({}, "t0ken-value")
    assert GUARD.post_token_ok({"x-skillreel-token": "t0ken-value"}, None)
    assert not GUARD.post_token_ok({}, None)
    assert not GUARD.post_token_ok({"x-skillreel-token": "wrong"}, "")


def test_a_state_change_must_come_from_the_same_origin() -> None:
    assert GUARD.same_origin({"origin": ORIGIN, "sec-fetch-site": "same-origin"}) is None
    assert GUARD.same_origin({"referer": f"{ORIGIN}/skills/x/diff"}) is None
    refused = [
        {"origin": "http://127.0.0.1:4321"},  # its address is not its origin
        {"origin": f"http://{NAME}:9999"},  # another port
        {"origin": "null"},
        {"origin": ORIGIN, "sec-fetch-site": "same-site"},
        {"sec-fetch-site": "cross-site"},
        {"referer": "http://127.0.0.1:9999/attack"},
        {"referer": f"{ORIGIN}.evil.example/"},
        {},
    ]
    for headers in refused:
        assert GUARD.same_origin(headers) is not None, headers


def test_the_chart_puts_successes_up_and_failures_down_in_time() -> None:
    chart = run_chart(
        [
            ("2026-01-01T00:00:00Z", True, None),
            ("2026-01-01T00:00:10Z", False, "SR_REPLAY_UI_TIMEOUT"),
            ("2026-01-01T00:00:20Z", True, None),
        ]
    )
    xs = [m.x for m in chart.marks]
    assert xs == sorted(xs)
    assert xs[1] - xs[0] == xs[2] - xs[1]
    assert [m.y for m in chart.marks] == [chart.ok_y, chart.failed_y, chart.ok_y]
    assert (chart.succeeded, chart.failed) == (2, 1)
    assert "SR_REPLAY_UI_TIMEOUT" in chart.marks[1].title
    same_second = run_chart([("2026-01-01T00:00:00Z", True, None)] * 2)
    assert same_second.marks[0].x < same_second.marks[1].x
