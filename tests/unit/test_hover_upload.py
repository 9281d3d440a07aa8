"""Hover and upload steps (issue 32) without a browser: the model's rules for a ``file`` input,
the engine over the fake driver, the projection of recorded events, and the checks of a file
input's path (none of which ever names the path)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from skillreel.errors import ReplayError
from skillreel.model.actions import (
    CAPABILITY_OF_KIND,
    Action,
    HoverAction,
    NavigateAction,
    TypeAction,
    UploadAction,
)
from skillreel.model.draft import Parameter
from skillreel.model.events import FieldInfo, PageEvent, RecordedEvent
from skillreel.model.graph import check_graph
from skillreel.model.graph_problem import GraphProblem
from skillreel.model.limits import MAX_UPLOAD_BYTES
from skillreel.model.locators import LocatorBundle
from skillreel.model.policy import PolicySettings
from skillreel.model.refs import ParameterRef
from skillreel.model.values import check_input, value_schema
from skillreel.record.project import plan
from skillreel.replay.engine import EngineOptions, ReplayEngine
from skillreel.replay.fake import FakeDriver, FakeElement, FakePage
from skillreel.user_files import upload_paths, upload_problem
from tests.support.clock import Clock
from tests.support.factory import SALT, bundle

URL = "https://app.test/form"
FIELD, MENU = bundle("#q", type_="file"), bundle("#menu", tag="li", type_=None)
FILE = Parameter(name="receipt", type="file")
UPLOAD = UploadAction(id="a2", target=FIELD, value=ParameterRef(name="receipt"))


def engine(driver: FakeDriver) -> ReplayEngine:
    clock = Clock()
    return ReplayEngine(driver, EngineOptions(salt=SALT, timeout_ms=1000), clock=clock, sleep=clock.sleep)


def element(target: LocatorBundle, **kw: Any) -> FakeElement:
    return FakeElement(target.fingerprint, {target.candidates[0].selector}, **kw)


def test_hover_and_upload_need_ui_interact() -> None:
    assert CAPABILITY_OF_KIND["hover"] == CAPABILITY_OF_KIND["upload"] == "ui.interact"


def test_a_file_input_has_no_default_and_its_schema_is_a_path() -> None:
    with pytest.raises(ValueError, match="no default"):
        Parameter(name="receipt", type="file", required=False, default="/etc/passwd")
    assert value_schema("file") == {"type": "string", "format": "path"}
    assert check_input("file", None, "/tmp/x") == "/tmp/x"
    with pytest.raises(ValueError, match="path of a file"):
        check_input("file", None, "")


def test_a_file_input_is_used_by_upload_steps_only() -> None:
    check_graph([NavigateAction(id="a1", url=URL), UPLOAD], [FILE])
    typed = TypeAction(id="a2", target=FIELD, value=ParameterRef(name="receipt"))
    with pytest.raises(GraphProblem, match="only an upload"):
        check_graph([NavigateAction(id="a1", url=URL), typed], [FILE])
    with pytest.raises(GraphProblem, match="must be a file"):
        check_graph([NavigateAction(id="a1", url=URL), UPLOAD], [Parameter(name="receipt")])


def test_an_upload_event_carries_nothing_of_the_file() -> None:
    field = {"control": "file", "paramHint": "receipt"}
    target = FIELD.to_json()
    PageEvent.parse({"v": 1, "type": "upload", "target": target, "field": field})
    with pytest.raises(ValueError, match="nothing of the file"):
        PageEvent.parse({"v": 1, "type": "upload", "target": target, "field": field, "value": "a.pdf"})
    with pytest.raises(ValueError, match="file field"):
        PageEvent.parse({"v": 1, "type": "input", "target": target, "field": field, "value": "x"})


def test_a_file_chooser_click_then_the_file_chosen_project_to_one_upload_step() -> None:
    target = FIELD
    info = FieldInfo(control="file", param_hint="receipt")
    events = [
        RecordedEvent(seq=0, type="navigate", url=URL, reason="start"),
        RecordedEvent(seq=1, type="human", reason="upload", target=target),
        RecordedEvent(seq=2, type="upload", target=target, field=info),
        RecordedEvent(seq=3, type="hover", target=MENU),
        RecordedEvent(seq=4, type="click", target=MENU),
    ]
    result = plan(events)
    assert [a.kind for a in result.actions] == ["navigate", "upload", "hover", "click"]
    assert result.parameters == (Parameter(name="receipt", required=True, type="file"),)
    # a file chooser closed with no file chosen stays a person's step
    assert [a.kind for a in plan(events[:2]).actions] == ["navigate", "human"]


async def test_the_engine_hovers_and_uploads_through_the_driver(tmp_path: Path) -> None:
    page = FakePage(
        URL,
        [
            element(FIELD),
            element(MENU),
        ],
    )
    driver = FakeDriver({URL: page}, start_url=URL)
    chosen = tmp_path / "secret-name.pdf"
    chosen.write_bytes(b"z" * 1234)
    actions: list[Action] = [
        NavigateAction(id="a1", url=URL),
        HoverAction(id="a3", target=MENU),
        UPLOAD,
    ]
    records = await engine(driver).run(actions, {"receipt": str(chosen)}, parameters=(FILE,))
    assert driver.actions == [("start", None), ("hover", 1), ("upload", 0)]
    assert page.elements[0].value == "1234 bytes"
    dumped = json.dumps([r.evidence.to_json() for r in records])
    assert "secret-name" not in dumped
    assert str(tmp_path) not in dumped


async def test_an_upload_whose_file_went_away_fails_without_naming_it(tmp_path: Path) -> None:
    driver = FakeDriver({URL: FakePage(URL, [element(FIELD)])}, start_url=URL)
    gone = tmp_path / "gone-file.pdf"
    with pytest.raises(ReplayError) as info:
        await engine(driver).run(
            [NavigateAction(id="a1", url=URL), UPLOAD], {"receipt": str(gone)}, parameters=(FILE,)
        )
    assert info.value.code == "SR_REPLAY_UPLOAD_REFUSED"
    assert "gone-file" not in info.value.message
    assert "upload" not in [a for a, _ in driver.actions]


def test_upload_problems_name_the_rule_never_the_path(tmp_path: Path) -> None:
    ok = tmp_path / "ok.txt"
    ok.write_bytes(b"1")
    big = tmp_path / "big.bin"
    with big.open("wb") as f:
        f.truncate(MAX_UPLOAD_BYTES + 1)
    link = tmp_path / "link.txt"
    link.symlink_to(ok)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert upload_problem(str(ok), None) is None
    cases = {
        str(tmp_path / "missing.txt"): "SR_REPLAY_UPLOAD_REFUSED",
        str(tmp_path): "SR_REPLAY_UPLOAD_REFUSED",
        str(link): "SR_REPLAY_UPLOAD_REFUSED",
        str(fifo): "SR_REPLAY_UPLOAD_REFUSED",
        str(big): "SR_REPLAY_UPLOAD_TOO_LARGE",
    }
    for path, code in cases.items():
        problem = upload_problem(path, None)
        assert problem is not None
        assert problem[0] == code
        assert path not in problem[1]
        assert tmp_path.name not in problem[1]


def test_the_policy_dirs_bound_an_mcp_callers_paths(tmp_path: Path) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    inside = allowed / "a.txt"
    inside.write_bytes(b"1")
    outside = tmp_path / "b.txt"
    outside.write_bytes(b"1")
    escape = allowed / "escape"  # a directory link inside that leads outside
    escape.symlink_to(tmp_path, target_is_directory=True)
    roots = (str(allowed),)
    assert upload_problem(str(inside), roots) is None
    for path in (str(outside), str(escape / "b.txt"), "allowed/a.txt"):
        problem = upload_problem(path, roots)
        assert problem is not None
        assert problem[0] == "SR_REPLAY_UPLOAD_OUTSIDE"
    assert upload_problem(str(inside), ())[0] == "SR_REPLAY_UPLOAD_OUTSIDE"  # type: ignore[index]
    assert PolicySettings().upload_dirs is None
    with pytest.raises(ValueError):
        PolicySettings(upload_dirs=("relative/dir",))


def test_at_path_is_read_for_file_inputs_only(tmp_path: Path) -> None:
    chosen = tmp_path / "c.txt"
    chosen.write_bytes(b"1")
    params = (FILE, Parameter(name="handle"))
    given = {"receipt": f"@{chosen}", "handle": "@alice"}
    assert upload_paths(params, given, None) == {"receipt": str(chosen)}
    with pytest.raises(ReplayError) as info:
        upload_paths(params, {"receipt": f"@{tmp_path}/none"}, None)
    assert info.value.code == "SR_REPLAY_UPLOAD_REFUSED"
    assert "'receipt'" in info.value.message
    assert str(tmp_path) not in info.value.message
