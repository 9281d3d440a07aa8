"""Bad input for every governance use case: each gets its SR_* code and exit status (1 or 2), and
the store and the files around it are exactly as they were. The console script's own share (usage
errors, the JSON and human forms of a refusal) is in tests/e2e/test_governance_bad_input.py."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillreel.model.limits import MAX_JSON_INPUT_BYTES
from skillreel.model.policy import Policy, PolicySettings
from skillreel.services.auditing import audit_log
from skillreel.services.deleting import delete_skill
from skillreel.services.exporting import export_skill
from skillreel.services.importing import import_skill
from skillreel.services.pruning import prune_skills
from skillreel.services.reviewing import review_skill
from skillreel.services.showing import show_skill
from skillreel.services.store_policy import set_policy
from skillreel.store import Store
from skillreel.store.transfer import export_bytes, export_document
from tests.integration.services.store_checks import NAME, refused
from tests.support.factory import T1, seed

Setup = Callable[[Path], list[Path]]
Call = Callable[[Store, list[Path]], object]


def _file(name: str, data: bytes | str) -> Setup:
    def make(tmp: Path) -> list[Path]:
        path = tmp / name
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return [path]

    return make


def _json(name: str, value: object) -> Setup:
    return _file(name, json.dumps(value))


def _symlink(tmp: Path) -> list[Path]:
    real = tmp / "real.json"
    real.write_text(json.dumps(PolicySettings(retention_days=5).to_json()))
    link = tmp / "link.json"
    link.symlink_to(real)
    return [link]


def _export(
    name: str = NAME, status: str = "validated", change: Callable[[dict[str, Any]], None] | None = None
) -> Setup:
    def make(tmp: Path) -> list[Path]:
        with Store.open(tmp / "source-home") as source:
            entry = seed(source, name, status)
        data = json.loads(export_bytes(export_document(entry, T1)))
        if change:
            change(data)
        path = tmp / f"export-{name}.json"
        path.write_text(json.dumps(data))
        return [path]

    return make


def _set(*keys: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        target = data
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


def _existing_output(tmp: Path) -> list[Path]:
    out = tmp / "exists.json"
    out.write_text("{}")
    return [out]


def _symlinked_output(tmp: Path) -> list[Path]:
    out = tmp / "out-link.json"
    out.symlink_to(tmp / "nowhere.json")
    return [out]


def _fifo(tmp: Path) -> list[Path]:
    path = tmp / "fifo.json"
    os.mkfifo(path)
    return [path]


def _none(tmp: Path) -> list[Path]:
    return []


def _set_policy(approve: bool = True) -> Call:
    return lambda store, paths: set_policy(store, paths[0], approve=approve)


def _import(*, replace: bool = False, approve: bool = False, expected_revision: int | None = None) -> Call:
    return lambda store, paths: import_skill(
        store, paths[0], replace=replace, approve=approve, expected_revision=expected_revision
    )


def _review(
    name: str = NAME,
    reviewer: str = "alice",
    *,
    approve: bool = True,
    expected_revision: int | None = None,
    draft_digest: str | None = None,
    heal_proposal: bool = False,
) -> Call:
    return lambda store, _: review_skill(
        store,
        name,
        reviewer,
        approve=approve,
        expected_revision=expected_revision,
        draft_digest=draft_digest,
        heal_proposal=heal_proposal,
    )


def _delete(name: str = NAME, *, approve: bool = True, expected_revision: int | None = None) -> Call:
    return lambda store, _: delete_skill(store, name, approve=approve, expected_revision=expected_revision)


def _export_to(name: str = NAME, force: bool = False) -> Call:
    return lambda store, paths: export_skill(store, name, paths[0], force=force)


BIG = b'{"pad": "' + b"x" * MAX_JSON_INPUT_BYTES + b'"}'
CASES: list[tuple[str, Setup, Call, str, int]] = [
    # id, setup (files the call reads), the call, code (without SR_RECORD_), exit status
    ("policy-malformed", _file("p.json", "{"), _set_policy(), "INPUT_MALFORMED", 2),
    ("policy-not-object", _file("p.json", "[]"), _set_policy(), "INPUT_MALFORMED", 2),
    ("policy-oversize", _file("p.json", BIG), _set_policy(), "INPUT_TOO_LARGE", 2),
    ("policy-symlink", _symlink, _set_policy(), "INPUT_NOT_REGULAR", 2),
    ("policy-directory", lambda tmp: [tmp], _set_policy(), "INPUT_NOT_REGULAR", 2),
    ("policy-fifo", _fifo, _set_policy(), "INPUT_NOT_REGULAR", 2),
    ("policy-missing", lambda tmp: [tmp / "nope.json"], _set_policy(), "INPUT_NOT_REGULAR", 2),
    (
        "policy-unknown-key",
        _json("p.json", _policy_with(retentionDay=5)),
        _set_policy(),
        "INPUT_MALFORMED",
        2,
    ),
    (
        "policy-out-of-bounds",
        _json("p.json", _policy_with(retentionDays=0)),
        _set_policy(),
        "INPUT_MALFORMED",
        2,
    ),
    (
        "policy-schema",
        _json("p.json", _policy_with(schema="skillreel.policy/v2")),
        _set_policy(),
        "SCHEMA_VERSION",
        2,
    ),
    ("policy-digest", _json("p.json", _tampered_policy()), _set_policy(), "DIGEST_MISMATCH", 2),
    (
        "policy-no-approve",
        _json("p.json", _policy_with(retentionDays=5)),
        _set_policy(approve=False),
        "APPROVAL_REQUIRED",
        1,
    ),
    ("import-malformed", _file("e.json", b"\xff{"), _import(), "INPUT_MALFORMED", 2),
    ("import-oversize", _file("e.json", BIG), _import(), "INPUT_TOO_LARGE", 2),
    ("import-symlink", _symlink, _import(), "INPUT_NOT_REGULAR", 2),
    ("import-unknown-key", _export("fresh", change=_set("extra", value=1)), _import(), "INPUT_MALFORMED", 2),
    (
        "import-nested-unknown-key",
        _export("fresh", change=_set("entry", "draft", "note", value=1)),
        _import(),
        "INPUT_MALFORMED",
        2,
    ),
    (
        "import-schema",
        _export("fresh", change=_set("entry", "draft", "schema", value="skillreel.draft/v9")),
        _import(),
        "SCHEMA_VERSION",
        2,
    ),
    (
        "import-digest",
        _export("fresh", change=_set("entry", "draft", "description", value="Changed after export.")),
        _import(),
        "DIGEST_MISMATCH",
        2,
    ),
    (
        "import-forged-state",
        _export("fresh", change=_set("entry", "status", value="enabled")),
        _import(),
        "DIGEST_MISMATCH",
        2,
    ),
    ("import-not-an-export", _json("e.json", PolicySettings().to_json()), _import(), "SCHEMA_VERSION", 2),
    ("import-collision", _export(), _import(), "EXISTS", 1),
    ("import-replace-no-approve", _export(), _import(replace=True), "APPROVAL_REQUIRED", 1),
    (
        "import-replace-stale",
        _export(),
        _import(replace=True, approve=True, expected_revision=7),
        "REVISION_CONFLICT",
        1,
    ),
    (
        "import-replace-enabled",
        _export("live-skill"),
        _import(replace=True, approve=True),
        "STATE_INVALID",
        1,
    ),
    ("show-unknown", _none, lambda store, _: show_skill(store, "missing-skill"), "NOT_FOUND", 1),
    ("show-bad-name", _none, lambda store, _: show_skill(store, "Not_A_Name"), "NAME_INVALID", 2),
    ("show-unknown-revision", _none, lambda store, _: show_skill(store, NAME, 9), "REVISION_NOT_FOUND", 1),
    ("review-unknown", _none, _review("missing-skill"), "NOT_FOUND", 1),
    ("review-bad-name", _none, _review("../etc"), "NAME_INVALID", 2),
    ("review-stale", _none, _review(expected_revision=2), "REVISION_CONFLICT", 1),
    ("review-no-approve", _none, _review(approve=False), "APPROVAL_REQUIRED", 1),
    ("review-bad-reviewer", _none, _review(reviewer="alice smith"), "REVIEWER_INVALID", 2),
    ("review-enabled", _none, _review("live-skill"), "STATE_INVALID", 1),
    ("review-no-heal-proposal", _none, _review(heal_proposal=True), "STATE_INVALID", 1),
    ("review-unpinned", _none, _review(), "REVIEW_UNPINNED", 2),
    ("review-bad-digest", _none, _review(draft_digest="sha256:xyz"), "USAGE", 2),
    ("delete-unknown", _none, _delete("missing-skill"), "NOT_FOUND", 1),
    ("delete-stale", _none, _delete(expected_revision=3), "REVISION_CONFLICT", 1),
    ("delete-no-approve", _none, _delete(approve=False), "APPROVAL_REQUIRED", 1),
    ("delete-enabled", _none, _delete("live-skill"), "STATE_INVALID", 1),
    ("prune-no-approve", _none, lambda store, _: prune_skills(store, approve=False), "APPROVAL_REQUIRED", 1),
    ("export-unknown", _existing_output, _export_to("missing-skill", force=True), "NOT_FOUND", 1),
    ("export-exists", _existing_output, _export_to(), "OUTPUT_EXISTS", 1),
    ("export-symlink", _symlinked_output, _export_to(force=True), "OUTPUT_FAILED", 1),
    ("export-no-directory", lambda tmp: [tmp / "no" / "e.json"], _export_to(), "OUTPUT_FAILED", 1),
    ("audit-bad-name", _none, lambda store, _: audit_log(store, "Bad Name"), "NAME_INVALID", 2),
]


@pytest.mark.parametrize(
    ("setup", "call", "code", "status"), [pytest.param(*case[1:], id=case[0]) for case in CASES]
)
def test_bad_input_is_refused_cleanly(
    store: Store, skillreel_home: Path, tmp_path: Path, setup: Setup, call: Call, code: str, status: int
) -> None:
    seed(store, NAME)
    seed(store, "live-skill", "enabled")
    seed(store, "old-draft", now="2020-01-01T00:00:00Z")
    paths = setup(tmp_path)
    files = sorted(p.name for p in tmp_path.iterdir())

    refused(skillreel_home, f"SR_RECORD_{code}", lambda: call(store, paths), exit_status=status)

    assert sorted(p.name for p in tmp_path.iterdir()) == files
