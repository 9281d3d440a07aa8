"""The events log a recording builds (record/capture.py): which navigations it records.

The browser side (payloads a real page sends, navigations Chromium reports) runs in
tests/integration/record.
"""

from __future__ import annotations

from skillreel.record.capture import classify_start


def test_classification_rules() -> None:
    assert classify_start("differentDocument", page_requested=False) == "address-bar"
    assert classify_start("historyDifferentDocument", page_requested=False) == "address-bar"
    assert classify_start("reload", page_requested=False) == "reload"
    assert classify_start("reloadBypassingCache", page_requested=False) == "reload"
    assert classify_start("reload", page_requested=True) is None  # location.reload()
    assert classify_start("differentDocument", page_requested=True) is None  # a link, a form, a script
    assert classify_start("sameDocument", page_requested=False) is None
    assert classify_start("historySameDocument", page_requested=False) is None
