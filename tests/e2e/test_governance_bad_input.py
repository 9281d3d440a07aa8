"""Bad input for every governance verb: each gets its SR_* code and exit status (1 or 2), in JSON and
in human form, never a traceback, and the store is exactly as it was."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillreel.model.limits import MAX_JSON_INPUT_BYTES
from skillreel.model.policy import Policy, PolicySettings
from skillreel.store import Store
from skillreel.store.transfer import export_bytes, export_document
from tests.cli import run_cli
from tests.factory import T1, seed
from tests.readback import assert_owner_only

NAME = "search-invoices"
Setup = Callable[[Path], list[str]]


def _file(name: str, data: bytes | str) -> Setup:
    def make(tmp: Path) -> list[str]:
        path = tmp / name
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return [str(path)]
    return make


def _json(name: str, value: object) -> Setup:
    return _file(name, json.dumps(value))


def _symlink(tmp: Path) -> list[str]:
    real = tmp / "real.json"
    real.write_text(json.dumps(PolicySettings(retention_days=5).to_json()))
    link = tmp / "link.json"
    link.symlink_to(real)
    return [str(link)]


def _export(name: str = NAME, status: str = "validated",
            change: Callable[[dict[str, Any]], None] | None = None) -> Setup:
    def make(tmp: Path) -> list[str]:
        with Store.open(tmp / "source-home") as source:
            entry = seed(source, name, status)
        data = json.loads(export_bytes(export_document(entry, T1)))
        if change:
            change(data)
        path = tmp / f"export-{name}.json"
        path.write_text(json.dumps(data))
        return [str(path)]
    return make


def _set(*keys: object, value: object) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        target: Any = data
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value
    return change


def _policy_with(**values: object) -> dict[str, object]:
    return {**PolicySettings().to_json(), **values}


def _tampered_policy() -> dict[str, object]:
    policy = Policy.from_settings(PolicySettings(retention_days=30)).to_json()
    policy["retentionDays"] = 31
    return policy


def _existing_output(tmp: Path) -> list[str]:
    out = tmp / "exists.json"
    out.write_text("{}")
    return ["--out", str(out)]


def _symlinked_output(tmp: Path) -> list[str]:
    out = tmp / "out-link.json"
    out.symlink_to(tmp / "nowhere.json")
    return ["--out", str(out)]


def _fifo(tmp: Path) -> list[str]:
    path = tmp / "fifo.json"
    os.mkfifo(path)
    return [str(path)]


def _none(tmp: Path) -> list[str]:
    return []


BIG = b'{"pad": "' + b"x" * MAX_JSON_INPUT_BYTES + b'"}'
CASES: list[tuple[str, list[str], Setup, list[str], str, int]] = [
    # id, verb args before the setup's, setup, args after, code (without SR_RECORD_), exit status
    ("policy-malformed", ["policy", "set"], _file("p.json", "{"), ["--approve"], "INPUT_MALFORMED", 2),
    ("policy-not-object", ["policy", "set"], _file("p.json", "[]"), ["--approve"], "INPUT_MALFORMED", 2),
    ("policy-oversize", ["policy", "set"], _file("p.json", BIG), ["--approve"], "INPUT_TOO_LARGE", 2),
    ("policy-symlink", ["policy", "set"], _symlink, ["--approve"], "INPUT_NOT_REGULAR", 2),
    ("policy-directory", ["policy", "set"], lambda tmp: [str(tmp)], ["--approve"],
     "INPUT_NOT_REGULAR", 2),
    ("policy-fifo", ["policy", "set"], _fifo, ["--approve"], "INPUT_NOT_REGULAR", 2),
    ("policy-missing", ["policy", "set"], lambda tmp: [str(tmp / "nope.json")], ["--approve"],
     "INPUT_NOT_REGULAR", 2),
    ("policy-unknown-key", ["policy", "set"], _json("p.json", _policy_with(retentionDay=5)), ["--approve"],
     "INPUT_MALFORMED", 2),
    ("policy-out-of-bounds", ["policy", "set"], _json("p.json", _policy_with(retentionDays=0)), ["--approve"],
     "INPUT_MALFORMED", 2),
    ("policy-schema", ["policy", "set"], _json("p.json", _policy_with(schema="skillreel.policy/v2")),
     ["--approve"], "SCHEMA_VERSION", 2),
    ("policy-digest", ["policy", "set"], _json("p.json", _tampered_policy()), ["--approve"],
     "DIGEST_MISMATCH", 2),
    ("policy-no-approve", ["policy", "set"], _json("p.json", _policy_with(retentionDays=5)), [],
     "APPROVAL_REQUIRED", 1),
    ("import-malformed", ["import"], _file("e.json", b"\xff{"), [], "INPUT_MALFORMED", 2),
    ("import-oversize", ["import"], _file("e.json", BIG), [], "INPUT_TOO_LARGE", 2),
    ("import-symlink", ["import"], _symlink, [], "INPUT_NOT_REGULAR", 2),
    ("import-unknown-key", ["import"], _export("fresh", change=_set("extra", value=1)), [],
     "INPUT_MALFORMED", 2),
    ("import-nested-unknown-key", ["import"],
     _export("fresh", change=_set("entry", "draft", "note", value=1)), [], "INPUT_MALFORMED", 2),
    ("import-schema", ["import"],
     _export("fresh", change=_set("entry", "draft", "schema", value="skillreel.draft/v2")), [],
     "SCHEMA_VERSION", 2),
    ("import-digest", ["import"],
     _export("fresh", change=_set("entry", "draft", "description", value="Changed after export.")), [],
     "DIGEST_MISMATCH", 2),
    ("import-forged-state", ["import"], _export("fresh", change=_set("entry", "status", value="enabled")), [],
     "DIGEST_MISMATCH", 2),
    ("import-not-an-export", ["import"], _json("e.json", PolicySettings().to_json()), [],
     "SCHEMA_VERSION", 2),
    ("import-collision", ["import"], _export(), [], "EXISTS", 1),
    ("import-replace-no-approve", ["import"], _export(), ["--replace"], "APPROVAL_REQUIRED", 1),
    ("import-replace-stale", ["import"], _export(), ["--replace", "--approve", "--expected-revision", "7"],
     "REVISION_CONFLICT", 1),
    ("import-replace-enabled", ["import"], _export("live-skill"), ["--replace", "--approve"],
     "STATE_INVALID", 1),
    ("show-unknown", ["show", "missing-skill"], _none, [], "NOT_FOUND", 1),
    ("show-bad-name", ["show", "Not_A_Name"], _none, [], "NAME_INVALID", 2),
    ("show-unknown-revision", ["show", NAME, "--revision", "9"], _none, [], "NOT_FOUND", 1),
    ("show-revision-zero", ["show", NAME, "--revision", "0"], _none, [], "USAGE", 2),
    ("review-unknown", ["review", "missing-skill", "--reviewer", "alice", "--approve"], _none, [],
     "NOT_FOUND", 1),
    ("review-bad-name", ["review", "../etc", "--reviewer", "alice", "--approve"], _none, [],
     "NAME_INVALID", 2),
    ("review-stale", ["review", NAME, "--reviewer", "alice", "--approve", "--expected-revision", "2"],
     _none, [], "REVISION_CONFLICT", 1),
    ("review-no-approve", ["review", NAME, "--reviewer", "alice"], _none, [], "APPROVAL_REQUIRED", 1),
    ("review-bad-reviewer", ["review", NAME, "--reviewer", "alice smith", "--approve"], _none, [],
     "INPUT_MALFORMED", 2),
    ("review-no-reviewer", ["review", NAME, "--approve"], _none, [], "USAGE", 2),
    ("review-enabled", ["review", "live-skill", "--reviewer", "alice", "--approve"], _none, [],
     "STATE_INVALID", 1),
    ("review-no-heal-proposal", ["review", NAME, "--reviewer", "alice", "--heal-proposal", "--approve"],
     _none, [], "STATE_INVALID", 1),
    ("delete-unknown", ["delete", "missing-skill", "--approve"], _none, [], "NOT_FOUND", 1),
    ("delete-stale", ["delete", NAME, "--approve", "--expected-revision", "3"], _none, [],
     "REVISION_CONFLICT", 1),
    ("delete-no-approve", ["delete", NAME], _none, [], "APPROVAL_REQUIRED", 1),
    ("delete-enabled", ["delete", "live-skill", "--approve"], _none, [], "STATE_INVALID", 1),
    ("prune-no-approve", ["prune"], _none, [], "APPROVAL_REQUIRED", 1),
    ("export-unknown", ["export", "missing-skill"], _existing_output, ["--force"], "NOT_FOUND", 1),
    ("export-exists", ["export", NAME], _existing_output, [], "OUTPUT_EXISTS", 1),
    ("export-symlink", ["export", NAME], _symlinked_output, ["--force"], "OUTPUT_FAILED", 1),
    ("export-no-directory", ["export", NAME, "--out"], lambda tmp: [str(tmp / "no" / "e.json")], [],
     "OUTPUT_FAILED", 1),
    ("export-no-out", ["export", NAME], _none, [], "USAGE", 2),
    ("audit-bad-name", ["audit", "--name", "Bad Name"], _none, [], "NAME_INVALID", 2),
    ("audit-bad-limit", ["audit", "--limit", "0"], _none, [], "USAGE", 2),
    ("list-unknown-option", ["list", "--all"], _none, [], "USAGE", 2),
    ("template-unknown-option", ["policy-template", "--out"], _none, [], "USAGE", 2),
]


def _snapshot(home: Path) -> list[object]:
    with sqlite3.connect(f"file:{home / 'store.db'}?mode=ro", uri=True) as conn:
        return [conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
                for table in ("entries", "revisions", "audit", "policy", "schema_migrations")]


@pytest.mark.parametrize(("before", "setup", "after", "code", "status"),
                         [pytest.param(*case[1:], id=case[0]) for case in CASES])
def test_bad_input_is_refused_cleanly(skillreel_home: Path, tmp_path: Path, before: list[str], setup: Setup,
                                      after: list[str], code: str, status: int) -> None:
    with Store.open() as store:
        seed(store, NAME)
        seed(store, "live-skill", "enabled")
        seed(store, "old-draft", now="2020-01-01T00:00:00Z")
    args, code = [*before, *setup(tmp_path), *after], f"SR_RECORD_{code}"
    snapshot = _snapshot(skillreel_home)
    files = sorted(p.name for p in tmp_path.iterdir())

    result = run_cli(*args, "--json")
    assert "Traceback" not in result.stderr + result.stdout
    assert result.json()["error"]["code"] == code, result.stdout
    assert result.exit_code == status

    human = run_cli(*args)
    assert "Traceback" not in human.stderr + human.stdout
    assert human.exit_code == status
    assert code in human.stderr

    assert _snapshot(skillreel_home) == snapshot
    assert sorted(p.name for p in tmp_path.iterdir()) == files
    assert_owner_only(skillreel_home)
