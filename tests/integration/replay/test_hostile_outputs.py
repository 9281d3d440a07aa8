"""A hostile page on an allowed origin (issue 30, F1 and F6): it reads the password field a skill typed
into and ``document.cookie``, and writes them base64'd, hex'd, %-encoded, reversed, upper-cased and
spaced, and split unevenly (13 and 5 characters) across two elements, into what the skill extracts.
No exit carries any of them: ``replay --json`` and the terminal, a batch, an MCP ``skills_play``, a
fleet worker's result; each masked output is named in an ``SR_REPLAY_OUTPUT_MASKED`` warning, the
harmless one is returned. ``--artifacts`` keeps no trace or screenshot holding them (withheld, with
a warning); ``show`` flags the extracts. Every test here fails before the scanner: masking was a
raw-substring check then."""

from __future__ import annotations

import base64
import io
import json
import secrets
import zipfile
from pathlib import Path

import pytest

from skillreel.fleet.worker import result_of
from skillreel.model import lifecycle
from skillreel.model.actions import Action, ClickAction, ExtractAction, NavigateAction, TypeAction
from skillreel.model.draft import Parameter
from skillreel.model.policy import Policy
from skillreel.model.refs import ParameterRef
from skillreel.services.agent_access import confirm_enabled_skill
from skillreel.services.packaging import enable_skill
from skillreel.services.preflight import ReplayRequest, run_preflight
from skillreel.services.replaying import play_checked
from skillreel.store import Store
from skillreel.vault import secret_env_name
from tests.integration.mcp.client import data, envelope, mcp_session
from tests.support import factory
from tests.support.cli import run_cli
from tests.support.describe import describe_url
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

NAME = "hostile-read"
PASSWORD = "Tr0ub4dor-Horse-93"
COOKIE = "sess-5eb7c1d9a2f48e63"
VAULT = {secret_env_name(NAME, "password"): PASSWORD}
LEAKS = ("b64", "hex", "pct", "rev", "loud", "head", "tail", "cookie")
PAGE = """<!doctype html><html><body><main>
<form onsubmit="return false"><label for="user">User</label><input id="user">
<label for="pw">Password</label><input id="pw" type="password">
<button id="go" type="button">Sign in</button></form>
<p id="ok"></p><p id="b64"></p><p id="hex"></p><p id="pct"></p><p id="rev"></p><p id="loud"></p>
<p id="head"></p><p id="tail"></p><p id="cookie"></p>
</main><script>
const bytes = (s) => Array.from(new TextEncoder().encode(s));
const put = (id, text) => { document.getElementById(id).textContent = text; };
document.getElementById("go").addEventListener("click", () => {
  const pw = document.getElementById("pw").value;
  const sid = document.cookie.split("sid=")[1] || "";
  put("ok", "Signed in");
  put("b64", btoa("x" + pw));
  put("hex", bytes(pw).map((b) => b.toString(16).padStart(2, "0")).join("").toUpperCase());
  put("pct", bytes(pw).map((b) => "%" + b.toString(16)).join(""));
  put("rev", pw.split("").reverse().join(""));
  put("loud", pw.toUpperCase().split("").join(" "));
  put("head", pw.slice(0, 13));
  put("tail", pw.slice(13));
  put("cookie", btoa(sid));
});
</script></body></html>"""


def forms() -> list[str]:
    """What the page writes of the secrets: none may reach any exit."""
    raw = PASSWORD.encode()
    return [
        PASSWORD,
        base64.b64encode(b"x" + raw).decode()[2:-2],
        raw.hex(),
        raw.hex().upper(),
        "".join(f"%{b:x}" for b in raw),
        PASSWORD[::-1],
        " ".join(PASSWORD.upper()),
        PASSWORD[:13],
        PASSWORD[13:],
        COOKIE,
        base64.b64encode(COOKIE.encode()).decode()[:-2],
    ]


def assert_clean(text: str) -> None:
    for form in forms():
        assert form not in text, form


async def hostile_skill(server: LocalServer, project_dir: Path | None = None) -> None:
    """The skill: sign in with the vault's password, then read every element; stored validated (and
    enabled into ``project_dir`` for MCP)."""
    b = await describe_url(server, "/login", PAGE, {s: f"#{s}" for s in ("user", "pw", "go", "ok", *LEAKS)})
    server.set_route(
        "/login",
        body=PAGE.encode(),
        headers={"Content-Type": "text/html; charset=utf-8", "Set-Cookie": f"sid={COOKIE}; Path=/"},
    )
    url = server.url("/login")
    actions: list[Action] = [
        NavigateAction(id="a1", url=url),
        TypeAction(id="a2", target=b["user"], value=ParameterRef(name="user")),
        TypeAction(id="a3", target=b["pw"], value=ParameterRef(name="password")),
        ClickAction(id="a4", target=b["go"]),
        ExtractAction(id="a5", output="ok", target=factory.content_free(b["ok"])),
    ]
    actions += [
        ExtractAction(id=f"a{6 + i}", output=name, target=factory.content_free(b[name]))
        for i, name in enumerate(LEAKS)
    ]
    draft = factory.graph_draft(
        actions,
        name=NAME,
        parameters=[Parameter(name="user"), Parameter(name="password", sensitive=True)],
        environment=factory.url_environment(url),
    )
    log = factory.events_log()
    with Store.open() as store:
        factory.store_entry(store, lifecycle.new_entry(draft, log, factory.T0), "validated")
        if project_dir is not None:
            enable_skill(
                store, NAME, "project", project_dir, approve=True, expected_revision=store.get(NAME).revision
            )
            confirm_enabled_skill(store, NAME, approve=True)  # a person confirmed agent plays


def assert_masked(outputs: dict[str, object], warnings: list[dict[str, str]]) -> None:
    assert outputs == {"ok": "Signed in", **dict.fromkeys(LEAKS, "[masked]")}
    (masked,) = [w for w in warnings if w["code"] == "SR_REPLAY_OUTPUT_MASKED"]
    assert all(name in masked["message"] for name in LEAKS)
    assert "output(s) b64, cookie, head, hex, loud, pct, rev, tail held" in masked["message"]


async def test_replay_json_and_the_terminal_carry_no_form_of_the_secrets(
    server: LocalServer, store: Store
) -> None:
    await hostile_skill(server)
    result = run_cli("replay", NAME, "--input", "user=ada", "--json", env=VAULT)
    assert result.exit_code == 0, result.stdout + result.stderr
    doc = result.json()
    assert_masked(doc["data"]["outputs"], doc["warnings"])
    assert_clean(result.stdout + result.stderr)
    human = run_cli("replay", NAME, "--input", "user=ada", env=VAULT)
    assert human.exit_code == 0, human.stderr
    assert "warning SR_REPLAY_OUTPUT_MASKED: output(s) b64, cookie," in " ".join(human.stderr.split())
    assert_clean(human.stdout + human.stderr)


async def test_a_batch_carries_no_form_of_the_secrets(
    server: LocalServer, store: Store, tmp_path: Path
) -> None:
    await hostile_skill(server)
    rows = tmp_path / "rows.csv"
    rows.write_text("user\nada\nbob\n")
    result = run_cli("replay", NAME, "--batch", str(rows), "--json", env=VAULT)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert_clean(result.stdout + result.stderr)
    listed = result.data()["results"]
    assert len(listed) == 2
    for row in listed:
        assert row["outputs"] == {"ok": "Signed in", **dict.fromkeys(LEAKS, "[masked]")}
    (warning,) = result.json()["warnings"]
    assert warning["code"] == "SR_REPLAY_OUTPUT_MASKED"
    assert warning["message"].startswith(
        "row(s) 1, 2: output(s) b64, cookie, head, hex, loud, pct, rev, tail"
    )


async def test_an_mcp_play_carries_no_form_of_the_secrets(
    server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    await hostile_skill(server, project_dir)
    async with mcp_session(skillreel_home, tmp_path / "stderr.log", env=VAULT) as session:
        result = await session.call("skills_play", {"name": NAME, "inputs": {"user": "ada"}})
    body = data(result)
    assert not result.is_error, body
    assert_masked(body["outputs"], envelope(result)["warnings"])
    assert_clean(json.dumps(result.model_dump(mode="json")))


class Vault:
    def get(self, skill: str, param: str) -> str | None:
        return PASSWORD if (skill, param) == (NAME, "password") else None


async def test_a_fleet_workers_result_carries_no_form_of_the_secrets(
    server: LocalServer, store: Store
) -> None:
    """What a worker puts on the queue: ``play_checked`` (the store-less browser phase) and its
    ``result_of``, exactly as ``fleet.worker.run_row`` composes them."""
    await hostile_skill(server)
    request = ReplayRequest(name=NAME, inputs={"user": "ada"})
    checked = run_preflight(store.get(NAME), Policy.default(), request, Vault())
    played = await play_checked(checked, store.now)
    result = result_of(secrets.token_hex(16), played, worker="w1", signer=None)
    assert result.status == "succeeded"
    assert result.outputs == {"ok": "Signed in", **dict.fromkeys(LEAKS, "[masked]")}
    assert [w.code for w in played.masked] == ["SR_REPLAY_OUTPUT_MASKED"]
    assert result.masked == tuple(sorted(LEAKS))  # the coordinator warns its caller by these names
    assert_clean(json.dumps(result.to_wire()))


async def test_artifacts_keep_no_trace_or_screenshot_holding_a_form(
    server: LocalServer, store: Store, tmp_path: Path
) -> None:
    await hostile_skill(server)
    directory = tmp_path / "debug"
    result = run_cli(
        "replay",
        NAME,
        "--input",
        "user=ada",
        "--json",
        "--artifacts",
        str(directory),
        "--artifacts-on",
        "always",
        env=VAULT,
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    warnings = {w["code"]: w["message"] for w in result.json()["warnings"]}
    withheld = warnings["SR_REPLAY_ARTIFACTS_WITHHELD"]
    assert "trace.zip (" in withheld
    assert "holds a sensitive value in an encoded form" in withheld
    assert "screenshot.png (the page shows a sensitive value)" in withheld
    assert sorted(p.name for p in directory.iterdir()) == ["failure.json"]
    everything = b""
    for path in directory.iterdir():
        everything += path.read_bytes()
        if path.name == "trace.zip":
            with zipfile.ZipFile(io.BytesIO(path.read_bytes())) as archive:
                everything += b"".join(archive.read(n) for n in archive.namelist())
    assert_clean(everything.decode("latin-1"))
    assert_clean(result.stdout + result.stderr)


async def test_show_flags_the_extracts_after_the_sensitive_input(server: LocalServer, store: Store) -> None:
    await hostile_skill(server)
    shown = run_cli("show", NAME, "--json")
    assert shown.exit_code == 0, shown.stderr
    flagged = [f"a{5 + i}" for i in range(len(LEAKS) + 1)]
    assert shown.data()["extractsAfterSecret"] == flagged
    human = run_cli("show", NAME)
    assert human.exit_code == 0, human.stderr
    assert "extracts after a sensitive input on the same page: masking cannot be complete" in " ".join(
        human.stdout.split()
    )
