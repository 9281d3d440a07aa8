"""The recording's summary lists what the recorder could not keep (issue 28, point 2): in
``record --json``'s ``dropped`` list and as a ``not recorded`` line of the text output, by reason
code and count only."""

from __future__ import annotations

from rich.console import Console

from skillreel.cli.record import _human
from skillreel.record.capture import DROP_REASONS, Dropped
from skillreel.services.recording import RecordResult
from tests.support.factory import entry


def rendered(result: RecordResult) -> str:
    out = Console(record=True, width=200)
    _human(result)(out)
    return out.export_text()


def test_nothing_dropped_is_an_empty_list_and_no_line() -> None:
    result = RecordResult(entry(), ())
    assert result.to_json()["dropped"] == []
    assert "not recorded" not in rendered(result)


def test_each_reason_is_listed_with_its_count() -> None:
    result = RecordResult(entry(), (), (), (Dropped("mark-unarmed", 1), Dropped("page-left", 2)))
    assert result.to_json()["dropped"] == [
        {"reason": "mark-unarmed", "count": 1, "summary": DROP_REASONS["mark-unarmed"]},
        {"reason": "page-left", "count": 2, "summary": DROP_REASONS["page-left"]},
    ]
    text = rendered(result)
    assert f"not recorded: 1 x mark-unarmed: {DROP_REASONS['mark-unarmed']}" in text
    assert f"not recorded: 2 x page-left: {DROP_REASONS['page-left']}" in text
