"""Every verb's `--json` output is one result envelope (skillreel.result/v1), on success and on failure.

One journey in one home, one subprocess per case: record (real Chromium on an HTML fixture), show,
review, replay, enable, revoke, export, delete, import, list, audit (the chain broken at the end),
prune, policy, policy set, policy-template, mcp and demo, each once succeeding and once refused. Every
output is validated against the one schema definition (``model/envelope.py``, published as
docs/result.schema.json), and its command, ok flag, error code, fix line and exit status are checked.
A verb added to ``VERBS`` without both cases here fails the test.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import click
import pytest

from skillreel.cli.main import VERBS, cli
from skillreel.errors.codes import CODES
from skillreel.model.envelope import SCHEMA, Envelope
from tests.support.cli import run_cli
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NAME = "sign-up"
PAGE = (
    "<!doctype html><html><head><meta charset=utf-8></head><body>"
    "<form action='javascript:void 0'><label for=email>Email</label><input id=email name=email>"
    "<button id=go type=submit>Go</button></form><p id=msg>Welcome</p></body></html>"
)

# Success cases that this journey cannot run, and where they are covered instead.
ELSEWHERE = {
    ("mcp", True): "a running server speaks MCP on stdout, not an envelope (tests/integration/mcp)",
    ("demo", True): "the whole demo, validated by CliResult.json() in tests/e2e/test_demo.py",
    ("ui", True): "a running server serves the review page, not an envelope (tests/integration/ui)",
    ("worker", True): "a running worker serves Celery tasks, not an envelope (tests/integration/fleet)",
    (
        "show-trace",
        True,
    ): "a running viewer serves the trace, not an envelope (tests/integration/replay/test_trace_steps.py)",
    (
        "rollback",
        True,
    ): ("needs two approved drafts: tests/e2e/test_versions.py (envelope via tests.support.cli.ok)"),
}


def commands() -> set[str]:
    """Every verb, and ``VERB SUB`` for each subcommand of a group verb (``policy set``)."""
    found = set()
    for verb in VERBS:
        command = cli.get_command(click.Context(cli), verb)
        if not isinstance(command, click.Group) or command.invoke_without_command:
            found.add(verb)  # a group that needs a subcommand (``env``) does nothing on its own
        if isinstance(command, click.Group):
            found |= {f"{verb} {sub}" for sub in command.commands}
    return found


def envelope(
    args: list[str], command: str | None, code: str | None, *, status: int | None = None
) -> dict[str, Any]:
    """Run ``skillreel ARGS --json``; check that stdout is exactly one valid envelope for ``command``
    that succeeded (``code`` None) or failed with ``code``, and the exit status; return it."""
    result = run_cli(*args, "--json")
    assert "Traceback" not in result.stderr, result.stderr
    document = json.loads(result.stdout)  # the whole of stdout is one document
    parsed = Envelope.parse(document)  # the one schema definition (strict: no unknown or missing key)
    assert (parsed.schema_, parsed.command, parsed.ok) == (SCHEMA, command, code is None), result.stdout
    assert isinstance(document["warnings"], list)
    if code is None:
        assert result.exit_code == 0, result.stdout + result.stderr
        assert isinstance(document["data"], dict)
        assert document["error"] is None
    else:
        assert parsed.error is not None
        assert parsed.error.code == code, result.stdout
        assert parsed.error.fix == CODES[code].fix
        assert result.exit_code == (status if status is not None else CODES[code].exit_status), result.stdout
    checked: dict[str, Any] = document
    return checked


def test_every_verb_prints_one_envelope_on_success_and_on_failure(
    tmp_path: Path, skillreel_home: Path, project_dir: Path
) -> None:
    html = tmp_path / "form.html"
    html.write_text(PAGE)
    automation = tmp_path / "demo.json"
    automation.write_text(
        json.dumps(
            {
                "steps": [
                    {"do": "type", "selector": "#email", "text": "a@example.com"},
                    {"do": "click", "selector": "#go"},
                ]
            }
        )
    )
    export = tmp_path / "sign-up.json"
    policy = tmp_path / "policy.json"
    seen: set[tuple[str, bool]] = set()

    def pin(name: str) -> list[str]:
        """``--expected-revision N``: the revision `show` prints now."""
        return ["--expected-revision", str(run_cli("show", name, "--json").data()["revision"])]

    def case(command: str, args: list[str], code: str | None = None, **kw: Any) -> dict[str, Any]:
        seen.add((command, code is None))
        return envelope(args, command, code, **kw)

    recorded = case("record", ["record", NAME, "--html", str(html), "--automation", str(automation)])
    assert (recorded["data"]["name"], recorded["data"]["status"]) == (NAME, "draft")
    case("record", ["record", "Bad_Name", "--html", str(html)], "SR_RECORD_NAME_INVALID")
    assert case("show", ["show", NAME])["data"]["revision"] == 1
    case("show", ["show", "no-such-skill"], "SR_RECORD_NOT_FOUND")
    patch = tmp_path / "patch.json"
    patch.write_text(
        json.dumps(
            {
                "schema": "skillreel.edit/v1",
                "revision": 1,
                "edits": [{"op": "set-step", "step": "a3", "intent": "Sign up with the e-mail"}],
            }
        )
    )
    checked = case("edit", ["edit", NAME, "--patch", str(patch), "--check"])["data"]
    assert checked["stored"] is False  # --check stores nothing
    patch.write_text(
        json.dumps({"schema": "skillreel.edit/v1", "edits": [{"op": "delete-step", "step": "a42"}]})
    )
    case("edit", ["edit", NAME, "--patch", str(patch)], "SR_RECORD_EDIT_REFERENCE")
    case("review", ["review", NAME, "--reviewer", "alice"], "SR_RECORD_APPROVAL_REQUIRED")
    case("review", ["review", NAME, "--reviewer", "alice", "--approve"], "SR_RECORD_REVIEW_UNPINNED")
    case("review", ["review", NAME, "--reviewer", "alice", "--expected-revision", "1", "--approve"])

    failed = case(
        "replay", ["replay", NAME, "--html", str(html), "--input", "nope=1"], "SR_REPLAY_PARAMETER_UNKNOWN"
    )
    assert (failed["data"]["status"], failed["data"]["name"], failed["data"]["steps"]) == ("failed", NAME, [])
    replayed = case("replay", ["replay", NAME, "--html", str(html), "--input", "email=b@example.com"])
    assert set(replayed["data"]) == set(failed["data"])  # one replay document, success or failure
    assert replayed["data"]["status"] == "succeeded"
    case("replay", ["replay", NAME, "--timeout", "1"], "SR_RECORD_USAGE")  # bad usage: no replay document
    runs = case("runs", ["runs", NAME])["data"]
    assert [r["outcome"] for r in runs["runs"]] == ["succeeded"]  # refused before acting: no run
    case("runs", ["runs", "no-such-skill"], "SR_RECORD_NOT_FOUND")
    assert case("diff", ["diff", NAME])["data"]["to"]["label"] == "approved"
    case("diff", ["diff", NAME, "40"], "SR_RECORD_REVISION_NOT_FOUND")
    case("rollback", ["rollback", NAME, "--to", "40", "--approve"], "SR_RECORD_REVISION_NOT_FOUND")
    case("ui", ["ui", "--port", "70000"], "SR_RECORD_USAGE")
    case("show-trace", ["show-trace", str(tmp_path / "no-trace")], "SR_RECORD_TRACE_MISSING")

    case("enable", ["enable", "no-such-skill", "--approve"], "SR_RECORD_NOT_FOUND")
    case(
        "enable",
        ["enable", NAME, "--approve", "--project-dir", str(project_dir)],
        "SR_RECORD_REVISION_UNPINNED",
    )
    case("enable", ["enable", NAME, *pin(NAME), "--approve", "--project-dir", str(project_dir)])
    case(
        "delete", ["delete", NAME, *pin(NAME), "--approve"], "SR_RECORD_STATE_INVALID"
    )  # enabled: revoke first
    case("revoke", ["revoke", NAME, *pin(NAME), "--approve"])
    case("revoke", ["revoke", NAME, *pin(NAME), "--approve"], "SR_RECORD_STATE_INVALID")  # already revoked
    case("export", ["export", NAME, "--out", str(export)])
    case("export", ["export", NAME, "--out", str(export)], "SR_RECORD_OUTPUT_EXISTS")
    case("delete", ["delete", NAME, *pin(NAME), "--approve"])
    case("import", ["import", str(tmp_path / "missing.json")], "SR_RECORD_INPUT_NOT_REGULAR")
    case("import", ["import", str(export)])
    assert [s["name"] for s in case("list", ["list"])["data"]["skills"]] == [NAME]
    case("list", ["list", "--all"], "SR_RECORD_USAGE")

    template = case("policy-template", ["policy-template"])["data"]
    assert json.loads(run_cli("policy-template").stdout) == template  # without --json: the bare file
    case("policy-template", ["policy-template", "--out", "x"], "SR_RECORD_USAGE")
    policy.write_text(json.dumps({**template, "retentionDays": 30}))
    case("policy set", ["policy", "set", str(policy), "--approve"])
    case(
        "policy set",
        ["policy", "--json", "set", str(tmp_path / "missing.json")],
        "SR_RECORD_INPUT_NOT_REGULAR",
    )
    assert case("policy", ["policy"])["data"]["policy"]["retentionDays"] == 30
    case("policy", ["policy", "get"], "SR_RECORD_USAGE")
    case("prune", ["prune"])
    case("prune", ["prune", "--days", "1"], "SR_RECORD_USAGE")
    case("mcp", ["mcp", "--port", "1"], "SR_RECORD_USAGE")
    case("worker", ["worker", "--broker", "redis://127.0.0.1:6379/0"], "SR_RECORD_USAGE")  # no --trust
    case("demo", ["demo", "--port", "99999"], "SR_RECORD_USAGE")

    assert case("audit", ["audit", "--name", NAME])["data"]["events"]
    case("audit", ["audit", "--verify"])
    with sqlite3.connect(skillreel_home / "store.db") as conn:
        conn.execute("DELETE FROM audit WHERE seq = 2")
    broken = case("audit", ["audit", "--verify"], "SR_RECORD_STORE_CORRUPT")
    assert (broken["data"]["ok"], broken["data"]["brokenAt"]) == (False, 2)  # what is known, beside the error

    wanted = {
        (command, ok) for command in commands() if not command.startswith(NEED_A_URL) for ok in (True, False)
    }
    wanted -= set(ELSEWHERE)
    assert not wanted - seen, f"verbs without an envelope check here: {sorted(wanted - seen)}"


# Verbs about URL skills (declared environments) and vault logins: their own journey below.
NEED_A_URL = ("env ", "login ")


def test_environment_and_login_verbs_print_envelopes(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    server.set_page("/orders", PAGE)
    automation = tmp_path / "a.json"
    automation.write_text(
        json.dumps({"steps": [{"do": "type", "selector": "#email", "text": "a@example.com"}]})
    )
    cookie = {"name": "sid", "value": "v", "domain": "127.0.0.1", "path": "/", "expires": -1}
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"cookies": [cookie], "origins": []}))
    seen: set[tuple[str, bool]] = set()

    def pin(name: str) -> list[str]:
        """``--expected-revision N``: the revision `show` prints now."""
        return ["--expected-revision", str(run_cli("show", name, "--json").data()["revision"])]

    def case(command: str, args: list[str], code: str | None = None, **kw: Any) -> dict[str, Any]:
        seen.add((command, code is None))
        return envelope(args, command, code, **kw)

    recorded = run_cli("record", "orders", "--url", server.url("/orders"), "--automation", str(automation))
    assert recorded.exit_code == 0, recorded.stdout + recorded.stderr
    for verb in ("login", "session"):  # the verb, then its old name (an alias): named as typed
        assert case(f"{verb} set", [verb, "set", "shop", str(state)])["data"]["name"] == "shop"
        case(
            f"{verb} set",
            [verb, "set", "shop", str(tmp_path / "missing.json")],
            "SR_RECORD_INPUT_NOT_REGULAR",
        )
        assert [s["name"] for s in case(f"{verb} list", [verb, "list"])["data"]["sessions"]] == ["shop"]
        case(f"{verb} list", [verb, "list", "extra"], "SR_RECORD_USAGE")
    case("env list", ["env", "list", "orders"])
    case("env list", ["env", "list", "no-such-skill"], "SR_RECORD_NOT_FOUND")
    case("env set", ["env", "set", "orders", "staging", "http://127.0.0.1:1"], "SR_RECORD_REVISION_UNPINNED")
    case("env set", ["env", "set", "orders", "staging", "http://127.0.0.1:1", *pin("orders")])
    case("env set", ["env", "set", "no-such-skill", "staging", "http://127.0.0.1:1"], "SR_RECORD_NOT_FOUND")
    case("env strip-query", ["env", "strip-query", "orders", "ref", *pin("orders")])
    case("env strip-query", ["env", "strip-query", "no-such-skill", "ref"], "SR_RECORD_NOT_FOUND")
    case("env remove", ["env", "remove", "orders", "staging", *pin("orders")])
    case("env remove", ["env", "remove", "no-such-skill", "staging"], "SR_RECORD_NOT_FOUND")
    case("session delete", ["session", "delete", "shop"], "SR_RECORD_APPROVAL_REQUIRED")
    case("login delete", ["login", "delete", "shop"], "SR_RECORD_APPROVAL_REQUIRED")
    case("login delete", ["login", "delete", "shop", "--approve"])
    case("session delete", ["session", "delete", "shop", "--approve"], "SR_RECORD_SESSION_MISSING")

    wanted = {
        (command, ok) for command in commands() if command.startswith(NEED_A_URL) for ok in (True, False)
    }
    # success and failure of env: list, set, remove, strip-query; login: set, list, delete
    assert len(wanted) == 14
    assert not wanted - seen, f"verbs without an envelope check here: {sorted(wanted - seen)}"


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (["no-such-verb"], None),
        ([], None),
        (["policy", "no-such-sub"], "policy"),
    ],
)
def test_errors_before_any_verb_runs_are_envelopes_too(args: list[str], command: str | None) -> None:
    envelope(args, command, "SR_RECORD_USAGE", status=2)


HUGE = "99999999999999999999"  # past SQLite's largest integer


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (["audit", "--limit", HUGE], "audit"),
        (["show", NAME, "--revision", HUGE], "show"),
        (["runs", NAME, "--before", HUGE], "runs"),
        (["rollback", NAME, "--to", HUGE], "rollback"),
    ],
)
def test_a_number_past_what_the_store_holds_is_bad_usage_not_an_internal_error(
    args: list[str], command: str
) -> None:
    envelope(args, command, "SR_RECORD_USAGE", status=2)
