"""The result envelope (model/envelope.py): its published schema, its rules, and the CLI spine's use of it
for errors raised before or around a verb (bad usage, Ctrl-C, a defect), without a subprocess."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import click
import jsonschema  # comes with the MCP SDK
import pytest
from pydantic import ValidationError

from skillreel.cli import list_
from skillreel.cli.main import cli, command_of, main
from skillreel.cli.output import emit, emit_failure
from skillreel.errors import ReplayUIError, SkillreelError
from skillreel.errors.codes import CODES
from skillreel.model.envelope import SCHEMA, Envelope, ResultWarning, failed, succeeded

PUBLISHED = Path(__file__).resolve().parents[2] / "docs" / "result.schema.json"
NOT_RECORDED = ResultWarning(code="SR_RECORD_STORE_IO", message="the run could not be recorded")


def published() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    return schema


def test_the_published_schema_is_the_models() -> None:
    assert published() == Envelope.model_json_schema(by_alias=True), (
        "the envelope's shape changed: publish a new schema version (SCHEMA and docs/result.schema.json, "
        "docs/guide.md#machine-readable-output) instead of changing skillreel.result/v1"
    )
    assert published()["properties"]["schema"]["const"] == SCHEMA


def test_success_and_failure_have_the_same_keys_and_validate_against_the_published_schema() -> None:
    error = ReplayUIError("SR_REPLAY_UI_TARGET_NOT_FOUND", "step a3: no element", action_id="a3")
    ok = succeeded("replay", {"status": "succeeded"}, [NOT_RECORDED])
    refused = failed("replay", error, {"status": "failed", "steps": []})
    assert list(ok) == list(refused) == ["schema", "command", "ok", "data", "error", "warnings"]
    assert ok["warnings"] == [{"code": "SR_RECORD_STORE_IO", "message": "the run could not be recorded"}]
    assert refused["error"] == {
        "code": "SR_REPLAY_UI_TARGET_NOT_FOUND",
        "message": "step a3: no element",
        "fix": CODES["SR_REPLAY_UI_TARGET_NOT_FOUND"].fix,
        "actionId": "a3",
        "details": {},
    }
    assert (refused["ok"], refused["warnings"]) == (False, [])
    for document in (ok, refused, failed(None, SkillreelError("SR_RECORD_USAGE", "bad"))):
        jsonschema.validate(document, published())
        assert Envelope.parse(document).to_json() == document


@pytest.mark.parametrize(
    "change",
    [
        {"ok": False},  # ok without an error
        {"error": {"code": "SR_RECORD_USAGE", "message": "m", "fix": "f", "actionId": None, "details": {}}},
        {"schema": "skillreel.result/v2"},
        {"extra": 1},
        {"warnings": [{"code": "not-a-code", "message": "m"}]},
        {"data": [1, 2]},
    ],
)
def test_both_definitions_refuse_what_the_envelope_is_not(change: dict[str, Any]) -> None:
    document = {**succeeded("list", {"skills": []}), **change}
    with pytest.raises(ValidationError):
        Envelope.parse(document)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, published())
    missing = succeeded("list", {"skills": []})
    del missing["warnings"]
    with pytest.raises(ValidationError):
        Envelope.parse(missing)


def test_both_mcp_tools_publish_the_envelope_as_their_output_schema() -> None:
    from skillreel.mcp.server import build_server

    tools = asyncio.run(build_server().list_tools())
    schemas = {t.name: t.output_schema for t in tools}
    assert schemas == {"skills_list": published(), "skills_play": published()}


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (["list", "--json"], "list"),
        (["--json", "replay", "x", "--input", "a=1"], "replay"),
        (["policy", "set", "f.json", "--json"], "policy set"),
        (["policy", "--json", "set", "f.json"], "policy set"),
        (["policy", "--json"], "policy"),
        (["policy", "nope"], "policy"),
        (["policy-template"], "policy-template"),
        (["login", "set", "shop", "f.json"], "login set"),
        (["session", "set", "shop", "f.json"], "session set"),  # the old verb, an alias: named as typed
        (["nope", "--json"], None),
        (["--json"], None),
    ],
)
def test_an_error_names_the_verb_it_was_meant_for(args: list[str], command: str | None) -> None:
    assert command_of(args) == command


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(args)
    out, err = capsys.readouterr()
    return int(exited.value.code or 0), out, err


@pytest.mark.parametrize(
    ("raised", "code", "status"),
    [
        (KeyboardInterrupt(), "SR_RECORD_USAGE", 2),  # Ctrl-C (click turns it into Abort)
        (ValueError("input_value=planted"), "SR_RECORD_INTERNAL", 1),  # a defect: its text goes nowhere
        (click.exceptions.Abort(), "SR_RECORD_USAGE", 2),
    ],
)
def test_an_interrupted_or_broken_verb_still_prints_one_envelope(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    raised: BaseException,
    code: str,
    status: int,
) -> None:
    def explode(*args: Any) -> Any:
        raise raised

    monkeypatch.setattr(list_, "list_skills", explode)
    exit_status, out, err = run_main(["list", "--json"], capsys)
    document = Envelope.parse(out)
    assert (exit_status, document.command, document.ok, document.data) == (status, "list", False, None)
    assert document.error is not None
    assert document.error.code == code
    assert "planted" not in out + err
    human_status, human_out, human_err = run_main(["list"], capsys)  # without --json: unchanged
    assert (human_status, human_out) == (status, "")
    assert f"error {code}: " in human_err


def test_warnings_ride_in_the_envelope_or_go_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    root = click.Context(cli, info_name="skillreel")
    with click.Context(click.Command("replay"), parent=root, info_name="replay"):
        emit({"status": "succeeded"}, as_json=True, warnings=[NOT_RECORDED])
        document = json.loads(capsys.readouterr().out)
        assert (document["command"], document["warnings"]) == ("replay", [NOT_RECORDED.to_json()])
        emit({"status": "succeeded"}, as_json=False, human="replayed", warnings=[NOT_RECORDED])
        out, err = capsys.readouterr()
        assert (out, err) == ("replayed\n", "warning SR_RECORD_STORE_IO: the run could not be recorded\n")
        emit_failure(SkillreelError("SR_RECORD_USAGE", "bad"), as_json=True, data={"status": "failed"})
        failure = json.loads(capsys.readouterr().out)
        assert (failure["command"], failure["ok"], failure["data"]) == ("replay", False, {"status": "failed"})
