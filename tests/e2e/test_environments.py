"""Environments, logins (the `login` verb and its old name `session`, an alias) and query keys through
the console script, end to end: a planted cookie value reaches the vault and nothing else (store,
audit, export, package, any output)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import CliResult, cli, run_cli
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

FIRST_COOKIE = "cookie-canary-9Tq4Wz"
SECOND_COOKIE = "cookie-canary-2Mv7Xk"
APP = """<!doctype html><html><head><title>Orders</title></head><body><main>
<label for="q">Order number</label><input id="q" name="q" autocomplete="off">
<button id="go" type="button">Find</button><p id="out"></p>
<script>
  if (!document.cookie.split("; ").some((c) => c.startsWith("sid="))) {
    document.querySelector("main").innerHTML = "<p>Please sign in</p>";
  }
  const go = document.getElementById("go");
  if (go) go.addEventListener("click", () => {
    document.getElementById("out").textContent = "Found " + document.getElementById("q").value;
  });
</script>
</main></body></html>"""


def pin(name: str = "orders") -> list[str]:
    """``--expected-revision N``: the revision `show` prints now."""
    return ["--expected-revision", str(run_cli("show", name, "--json").data()["revision"])]


def write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document))
    return path


def state(tmp_path: Path, value: str) -> Path:
    cookie = {"name": "sid", "value": value, "domain": "127.0.0.1", "path": "/", "expires": -1}
    return write(tmp_path / f"{value}.json", {"cookies": [cookie], "origins": []})


class Outputs:
    """Every stdout and stderr the console script printed in this test."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.texts: list[str] = []

    def keep(self, result: CliResult) -> CliResult:
        self.texts += [result.stdout, result.stderr]
        return result

    def ok(self, *args: str) -> Any:
        result = self.keep(cli(self.home, *args))
        assert result.exit_code == 0, result.stdout + result.stderr
        return result.data()

    def refused(self, *args: str, code: str, exit_code: int = 1) -> None:
        result = self.keep(cli(self.home, *args))
        assert (result.exit_code, result.json()["error"]["code"]) == (exit_code, code), result.stdout


def hits(canaries: tuple[str, ...], texts: list[str], root: Path, skip: Path) -> list[str]:
    """Where a canary shows: an output (by index) or a file under ``root`` outside ``skip``."""
    found = [f"output {i}" for i, text in enumerate(texts) for c in canaries if c in text]
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_relative_to(skip):
            data = path.read_bytes()
            found += [str(path) for c in canaries if c.encode() in data]
    return sorted(set(found))


def test_logins_environments_and_query_keys_end_to_end(
    skillreel_home: Path, project_dir: Path, tmp_path: Path, server: LocalServer, second_server: LocalServer
) -> None:
    production, staging = server, second_server
    production.set_page("/orders", APP)
    staging.set_page("/orders", APP)
    out = Outputs(skillreel_home)
    home = skillreel_home

    stored = out.ok("login", "set", "shop", str(state(tmp_path, FIRST_COOKIE)))
    assert (stored["name"], stored["cookies"], stored["replaced"], stored["backend"]) == (
        "shop",
        1,
        False,
        "file",
    )
    staged = out.ok("session", "set", "shop-staging", str(state(tmp_path, SECOND_COOKIE)))
    assert staged["skills"] == []
    audit_text = out.keep(run_cli("audit")).stdout
    assert "session" in audit_text
    assert "rNone" not in audit_text  # a login event (audit kind "session") names no revision

    order_id = str(uuid.uuid4())
    url = production.url(f"/orders?state=open&code=FR&key=orders&id={order_id}&token=abc123")
    automation = write(
        tmp_path / "a.json",
        {"steps": [{"do": "type", "selector": "#q", "text": "A-1"}, {"do": "click", "selector": "#go"}]},
    )
    recorded = out.keep(
        run_cli(
            "record",
            "orders",
            "--url",
            url,
            "--login",
            "shop",
            "--env",
            f"staging={staging.origin}",
            "--keep-query",
            "id",
            "--strip-query",
            "key",
            "--automation",
            str(automation),
            "--json",
        )
    )
    assert recorded.exit_code == 0, recorded.stdout + recorded.stderr
    assert recorded.data()["strippedQueryKeys"] == ["key", "token"]
    assert recorded.data()["environments"] == [{"name": "staging", "origin": staging.origin}]

    shown = out.ok("show", "orders")["environment"]
    assert shown["url"] == production.url(f"/orders?state=open&code=FR&id={order_id}")
    assert shown["query"] == {"keep": ["id"], "strip": ["key"], "stripped": ["key", "token"]}
    assert (shown["session"], shown["storageStateDigest"]) == ("shop", None)
    human = out.keep(run_cli("show", "orders"))
    assert "query keys kept by the reviewer: id" in human.stdout
    assert "signs in with vault login shop" in human.stdout

    env_set = out.keep(
        run_cli(
            "env", "set", "orders", "staging", staging.origin, "--session", "shop-staging", *pin(), "--json"
        )
    )
    assert env_set.data()["changed"] is True
    out.keep(run_cli("env", "set", "orders", "qa", "http://127.0.0.1:9", *pin(), "--json"))
    stripped = out.ok("env", "strip-query", "orders", "code", *pin())  # the reviewer's later choice
    assert (stripped["changed"], stripped["query"]["strip"]) == (True, ["code", "key"])
    again = out.keep(run_cli("env", "strip-query", "orders", "code"))
    assert again.exit_code == 0, again.stderr
    assert "already strips them; nothing changed" in again.stdout
    approved = out.ok(
        "review",
        "orders",
        "--reviewer",
        "alice",
        "--env",
        "staging",
        "--expected-revision",
        str(stripped["revision"]),
        "--approve",
    )
    assert approved["approvedEnvironments"] == ["staging"]

    replayed = out.keep(run_cli("replay", "orders", "--input", "q=B-2", "--json"))
    assert replayed.exit_code == 0, replayed.stdout
    assert production.cookies[-1] == f"sid={FIRST_COOKIE}"
    assert ("GET", f"/orders?state=open&id={order_id}") in production.requests  # code=FR stripped
    before = production.request_count()
    on_staging = out.keep(run_cli("replay", "orders", "--env", "staging", "--input", "q=B-3", "--json"))
    assert on_staging.exit_code == 0, on_staging.stdout
    assert on_staging.data()["environment"] == "staging"
    assert production.request_count() == before
    assert staging.cookies[-1] == f"sid={SECOND_COOKIE}"
    out.refused(
        "replay", "orders", "--env", "qa", "--input", "q=x", code="SR_RECORD_ENVIRONMENT_NOT_APPROVED"
    )
    out.refused(
        "replay",
        "orders",
        "--env",
        "preprod",
        "--input",
        "q=x",
        code="SR_RECORD_ENVIRONMENT_UNKNOWN",
        exit_code=2,
    )

    refreshed = out.ok("login", "set", "shop", str(state(tmp_path, FIRST_COOKIE + "-2")))
    assert (refreshed["replaced"], refreshed["skills"]) == (True, ["orders"])
    again = out.keep(run_cli("replay", "orders", "--input", "q=B-4", "--json"))
    assert again.exit_code == 0, again.stdout
    assert production.cookies[-1] == f"sid={FIRST_COOKIE}-2"

    listed = out.keep(run_cli("login", "list", "--json")).data()["sessions"]
    assert [(s["name"], s["skills"]) for s in listed] == [("shop", ["orders"]), ("shop-staging", ["orders"])]
    out.keep(run_cli("session", "list"))
    out.keep(run_cli("env", "list", "orders"))
    enabled = out.keep(
        run_cli("enable", "orders", "--project-dir", str(project_dir), *pin(), "--approve", "--json")
    )
    assert enabled.exit_code == 0, enabled.stdout
    skill_md = (project_dir / ".agents" / "skills" / "orders" / "SKILL.md").read_text()
    assert "Signed in with the vault login `shop`" in skill_md
    assert f"- `staging`: `{staging.origin}`" in skill_md
    assert "`qa`" not in skill_md  # not approved
    export = tmp_path / "orders.export.json"
    out.keep(run_cli("export", "orders", "--out", str(export), "--json"))
    out.keep(run_cli("audit", "--json"))
    out.keep(run_cli("audit", "--verify", "--json"))

    out.refused("login", "delete", "shop", code="SR_RECORD_APPROVAL_REQUIRED")
    out.keep(run_cli("revoke", "orders", "--project-dir", str(project_dir), *pin(), "--approve", "--json"))
    out.ok("login", "delete", "shop", "--approve")
    out.refused("replay", "orders", "--input", "q=x", code="SR_RECORD_SESSION_MISSING")

    canaries = (FIRST_COOKIE, SECOND_COOKIE)
    vault = home / "sessions"
    assert hits(canaries, [], vault, skip=tmp_path / "nothing")  # the planted values are there
    written = sorted(str(p) for p in tmp_path.glob("cookie-canary-*.json"))  # the files the test wrote
    assert len(written) == 3
    assert hits(canaries, out.texts, tmp_path, skip=vault) == written  # and nowhere else
