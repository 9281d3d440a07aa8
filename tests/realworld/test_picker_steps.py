"""The popup-picker step (``Pick``) of the corpus, driven in real Chromium on a local MUI-like
Select (opens on mousedown behind a backdrop, its listbox appended to the end of ``<body>``): the
baseline's script opens the combobox by its generated locator and picks the option named by the
input, so a replay with another input chooses another option."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.realworld import codegen_tool
from bench.realworld.spec import Change, Check, Click, Pick, Task
from playwright.sync_api import expect, sync_playwright

from skillreel.sandbox.chromium import find_chromium

pytestmark = [pytest.mark.realworld, pytest.mark.browser]

PAGE = Path(__file__).resolve().parent / "pages" / "picker.html"
TASK = Task(
    "set-priority",
    "Set the priority",
    "/",
    (Pick("#priority", "priority"), Click("#save")),
    (Check("#save", "Save"),),
    {"priority": "High"},
    {"priority": "Low"},
    lambda tables, inputs: Change(),
)


def _replayed(script: Path, priority: str) -> str:
    namespace: dict[str, object] = {}
    exec(compile(script.read_text(), str(script), "exec"), namespace)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(find_chromium(headless=True)), headless=True)
        try:
            page = browser.new_page()
            page.set_default_timeout(5_000)
            namespace["run"](page, {"priority": priority}, expect)  # type: ignore[operator]
            return page.locator("#saved").inner_text()
        finally:
            browser.close()


def test_the_baseline_picks_the_option_the_input_names(tmp_path: Path) -> None:
    script = codegen_tool.record(TASK, PAGE.as_uri(), tmp_path / "set-priority.py")
    assert script.ok, script.detail
    assert script.path is not None
    code = script.path.read_text()
    assert 'get_by_role("option", name=inputs["priority"], exact=True).click()' in code
    assert '"High"' not in code  # the recorded label became the input
    assert _replayed(script.path, "Low") == "Low"
    assert _replayed(script.path, "Highest") == "Highest"  # exact: not "High"


def test_a_label_no_option_has_fails_the_baseline(tmp_path: Path) -> None:
    script = codegen_tool.record(TASK, PAGE.as_uri(), tmp_path / "set-priority.py")
    assert script.path is not None
    ran = codegen_tool.replay(script.path, {"priority": "Urgent"})
    assert not ran.ok
