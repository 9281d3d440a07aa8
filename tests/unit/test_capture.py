"""The events log a recording builds (record/capture.py): which navigations it records, and what
it could not keep (counted by reason, never with page text).

The browser side (payloads a real page sends, navigations Chromium reports) runs in
tests/integration/record.
"""

from __future__ import annotations

import json

from skillreel.record.capture import DROP_REASONS, CaptureLog, Dropped, classify_start
from tests.support.factory import SALT


def test_classification_rules() -> None:
    assert classify_start("differentDocument", page_requested=False) == "address-bar"
    assert classify_start("historyDifferentDocument", page_requested=False) == "address-bar"
    assert classify_start("reload", page_requested=False) == "reload"
    assert classify_start("reloadBypassingCache", page_requested=False) == "reload"
    assert classify_start("reload", page_requested=True) is None  # location.reload()
    assert classify_start("differentDocument", page_requested=True) is None  # a link, a form, a script
    assert classify_start("sameDocument", page_requested=False) is None
    assert classify_start("historySameDocument", page_requested=False) is None


def test_what_could_not_be_kept_is_counted_by_reason_in_a_fixed_order() -> None:
    log = CaptureLog(salt=SALT)
    log.start("https://app.example/")
    assert log.finish().dropped == ()
    log.navigated("chrome-error://chromewebdata/", "address-bar")
    log.drop("page-left")
    log.navigated("data:text/html,<p>secret</p>", "address-bar")
    captured = log.finish()
    assert [e.type for e in captured.events.events] == ["navigate"]  # nothing invented
    assert captured.dropped == (Dropped("navigation-unrecordable", 2), Dropped("page-left", 1))
    shown = json.dumps([d.to_json() for d in captured.dropped])
    assert "secret" not in shown
    assert "chromewebdata" not in shown
    assert captured.dropped[1].to_json() == {
        "reason": "page-left",
        "count": 1,
        "summary": DROP_REASONS["page-left"],
    }
