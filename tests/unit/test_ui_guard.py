"""The review page's pure decisions: its own Host only, the page token, same-origin posts, and the
runs chart's layout."""

from __future__ import annotations

from skillreel.ui.chart import run_chart
from skillreel.ui.guard import Guard

GUARD = Guard(port=4321, token="t0ken-value")


def test_only_its_own_host_and_token() -> None:
    assert GUARD.host_ok("127.0.0.1:4321")
    for host in ("localhost:4321", "127.0.0.1", "evil.example:4321", "127.0.0.1:4322", None):
        assert not GUARD.host_ok(host), host
    assert GUARD.token_ok("t0ken-value")
    assert not GUARD.token_ok("t0ken-valu")
    assert not GUARD.token_ok(None)
    assert GUARD.url() == "http://127.0.0.1:4321/?token=t0ken-value"


def test_a_state_change_must_come_from_the_same_origin() -> None:
    assert GUARD.same_origin({"origin": "http://127.0.0.1:4321", "sec-fetch-site": "same-origin"}) is None
    assert GUARD.same_origin({"referer": "http://127.0.0.1:4321/skills/x/diff"}) is None
    refused = [
        {"origin": "http://127.0.0.1:9999"},  # another local port: same site, another origin
        {"origin": "null"},
        {"origin": "http://127.0.0.1:4321", "sec-fetch-site": "same-site"},
        {"sec-fetch-site": "cross-site"},
        {"referer": "http://127.0.0.1:9999/attack"},
        {"referer": "http://127.0.0.1:4321.evil.example/"},
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
