"""The name a downloaded file is saved under (``model/downloads.py``, pure) and the conversion of a
recorded click into a download (``CaptureLog.downloaded``)."""

from __future__ import annotations

import pytest

from skillreel.model.downloads import MAX_NAME_CHARS, numbered, safe_filename
from skillreel.record.capture import CaptureLog
from tests.support.factory import SALT, bundle


@pytest.mark.parametrize(
    ("suggested", "saved"),
    [
        ("receipt.pdf", "receipt.pdf"),
        ("../../etc/passwd", "passwd"),
        ("..\\..\\boot.ini", "boot.ini"),
        (".bashrc", "bashrc"),
        ("..", "download"),
        ("", "download"),
        ("a\x00b\nc.txt", "a_b_c.txt"),
        ('re<ce>ipt:"1"|?.csv', "re_ce_ipt__1___.csv"),
        ("CON.txt", "_CON.txt"),
    ],
)
def test_a_suggested_name_keeps_no_path_part_and_no_leading_dot(suggested: str, saved: str) -> None:
    assert safe_filename(suggested) == saved


def test_a_long_name_is_bounded_and_keeps_its_extension() -> None:
    name = safe_filename("x" * 500 + ".pdf")
    assert len(name) == MAX_NAME_CHARS
    assert name.endswith(".pdf")


def test_a_taken_name_is_numbered_before_its_extension() -> None:
    named = [numbered("receipt.pdf", n) for n in range(3)]
    assert named == ["receipt.pdf", "receipt (1).pdf", "receipt (2).pdf"]
    assert numbered("README", 2) == "README (2)"


def test_the_last_click_of_the_page_becomes_a_download_with_a_free_name() -> None:
    log = CaptureLog(salt=SALT)
    log.append_event("navigate", url="http://127.0.0.1/", reason="start")
    log.append_event("click", target=bundle("#a"))
    assert log.downloaded(0)
    log.append_event("click", target=bundle("#b"))
    log.append_event("click", page=1, target=bundle("#c"))
    assert log.downloaded(0)
    assert [(e.type, e.output) for e in log.events] == [
        ("navigate", None),
        ("download", "download"),
        ("download", "download_2"),
        ("click", None),
    ]
    assert not log.downloaded(0)  # its last event is a download already: nothing changes
    assert not log.downloaded(3)  # a page with no event
    assert log.downloaded(1, "receipt")
    assert log.events[-1].output == "receipt"
