"""record.automation: the scripted-demonstration and assertions file formats (no browser)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from skillreel.errors import InputError
from skillreel.record.automation import AssertionsFile, AutomationScript, ClickStep, SelectStep, TypeStep
from skillreel.user_files import parse_document


def parse(cls: Any, doc: Any) -> Any:
    return parse_document(cls, json.dumps(doc).encode(), what="automation file")


def test_every_step_kind_parses() -> None:
    script = parse(
        AutomationScript,
        {
            "steps": [
                {"do": "goto", "url": "https://example.test/app"},
                {"do": "goto", "url": "http://127.0.0.1:8/x"},
                {"do": "click", "selector": "#go"},
                {"do": "type", "selector": "#q", "text": "hello"},
                {"do": "select", "selector": "#c", "value": "fr"},
                {"do": "press", "key": "Enter"},
                {"do": "press", "key": "Shift+Tab"},
                {"do": "wait", "ms": 100},
            ]
        },
    )
    assert [s.do for s in script.steps] == [
        "goto",
        "goto",
        "click",
        "type",
        "select",
        "press",
        "press",
        "wait",
    ]
    assert isinstance(script.steps[2], ClickStep)
    assert isinstance(script.steps[3], TypeStep)
    assert isinstance(script.steps[4], SelectStep)


@pytest.mark.parametrize(
    "doc",
    [
        {},
        {"steps": []},
        {"steps": [{"do": "teleport", "selector": "#x"}]},
        {"steps": [{"do": "click"}]},
        {"steps": [{"do": "click", "selector": ""}]},
        {"steps": [{"do": "click", "selector": "#x", "extra": 1}]},
        {"steps": [{"do": "click", "selector": "x" * 1025}]},
        {"steps": [{"do": "type", "selector": "#q", "text": "x" * 8193}]},
        {"steps": [{"do": "select", "selector": "#q", "value": "x" * 1025}]},
        {"steps": [{"do": "goto", "url": "http://example.com/"}]},
        {"steps": [{"do": "goto", "url": "https://u:p@example.com/"}]},
        {"steps": [{"do": "goto", "url": "file:///etc/passwd"}]},
        {"steps": [{"do": "press", "key": "Enter; rm"}]},
        {"steps": [{"do": "wait", "ms": 30_001}]},
        {"steps": [{"do": "wait", "ms": "100"}]},
        {"steps": "click"},
    ],
)
def test_malformed_scripts_are_input_errors(doc: Any) -> None:
    with pytest.raises(InputError) as info:
        parse(AutomationScript, doc)
    assert info.value.code == "SR_RECORD_INPUT_MALFORMED"
    assert info.value.exit_status == 2


def test_assertions_parse() -> None:
    found = parse(
        AssertionsFile,
        {
            "assertions": [
                {"kind": "observe", "selector": "#r"},
                {"kind": "assert", "selector": "#r", "check": "text_contains", "expected": "done"},
                {"kind": "assert", "selector": "#r", "check": "visible"},
                {"kind": "assert", "selector": "li", "check": "count", "expected": 3},
                {"kind": "assert", "check": "url_matches", "expected": "/done"},
            ]
        },
    )
    assert [a.check for a in found.assertions] == [None, "text_contains", "visible", "count", "url_matches"]


@pytest.mark.parametrize(
    "entry",
    [
        {"kind": "observe"},
        {"kind": "observe", "selector": "#r", "check": "visible"},
        {"kind": "assert", "selector": "#r"},
        {"kind": "assert", "selector": "#r", "check": "url_matches", "expected": "/x"},
        {"kind": "assert", "check": "text_equals", "expected": "x"},
        {"kind": "assert", "selector": "#r", "check": "count", "expected": "3"},
        {"kind": "assert", "selector": "#r", "check": "text_equals"},
        {"kind": "assert", "selector": "#r", "check": "visible", "expected": "x"},
        {"kind": "assert", "selector": "#r", "check": "matches_regex", "expected": "x"},
        {"kind": "click", "selector": "#r"},
    ],
)
def test_malformed_assertions_are_input_errors(entry: Any) -> None:
    with pytest.raises(InputError) as info:
        parse(AssertionsFile, {"assertions": [entry]})
    assert info.value.code == "SR_RECORD_INPUT_MALFORMED"


def test_error_messages_do_not_repeat_values() -> None:
    with pytest.raises(InputError) as info:
        parse(AutomationScript, {"steps": [{"do": "goto", "url": "http://secret-host.example/"}]})
    assert "secret-host" not in info.value.message
