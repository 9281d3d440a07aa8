"""Debugging on request, never by default (issue 13, item 7), through the real console script.

A skill types a sensitive API key (from the vault), clicks Save and then Next. The server sets a
session cookie; Save posts the key and puts a token into the page's URL. When the replayed page has
no Next button the replay fails and ``--artifacts DIR`` leaves a Playwright trace, a screenshot and
failure.json, owner-only, that hold neither the key, nor the cookie, nor the URL token; the trace
still is a trace (its actions are there, the key replaced by ``[redacted]``). A page that shows the
key as text gets no screenshot. Without ``--artifacts`` nothing is written; ``--headed`` needs a
display and works under Xvfb.
"""

from __future__ import annotations

import io
import json
import stat
import zipfile
from pathlib import Path

import pytest

from skillreel.model.actions import Action, ClickAction, NavigateAction, TypeAction
from skillreel.model.refs import ParameterRef
from skillreel.store import Store
from skillreel.vault import secret_env_name
from tests.support.cli import CliResult, run_cli
from tests.support.describe import describe_url
from tests.support.factory import build_draft, store_approved, url_environment
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

NAME = "save-key"
KEY = "sk-live-0f9e8d7c6b5a4321"
COOKIE = "sess-9a8b7c6d5e4f"
URL_TOKEN = "tok-77aa88bb99cc"
SCRIPT = """<script>
document.getElementById("save").addEventListener("click", () => {
  const key = document.getElementById("key").value;
  fetch("/save", {method: "POST", body: "key=" + encodeURIComponent(key)});
  history.pushState({}, "", "?token=%s");
  document.getElementById("out").textContent = %s;
});
</script>"""


def page(*, next_button: bool, echo: bool) -> str:
    shown = '"Saved " + key' if echo else '"Saved"'
    nxt = '<button id="next" type="button">Next</button>' if next_button else ""
    return (
        '<!doctype html><html><body><main><form><label for="key">API key</label>'
        '<input id="key" name="key" autocomplete="off">'
        f'<button id="save" type="button">Save</button>{nxt}</form><p id="out"></p></main>'
        + SCRIPT % (URL_TOKEN, shown)
        + "</body></html>"
    )


async def skill_on(server: LocalServer, store: Store) -> None:
    bundles = await describe_url(
        server, "/form", page(next_button=True, echo=False), {"key": "#key", "save": "#save", "next": "#next"}
    )
    url = server.url("/form")
    server.set_route(
        "/form",
        body=page(next_button=False, echo=False).encode(),
        headers={"Content-Type": "text/html; charset=utf-8", "Set-Cookie": f"sid={COOKIE}; Path=/"},
    )
    server.set_page("/save", "ok", "text/plain")
    steps: list[Action] = [
        NavigateAction(id="a1", url=url),
        TypeAction(id="a2", target=bundles["key"], value=ParameterRef(name="apikey")),
        ClickAction(id="a3", target=bundles["save"]),
        ClickAction(id="a4", target=bundles["next"]),
    ]
    store_approved(store, build_draft(NAME, url_environment(url), steps, sensitive=("apikey",)))


def replay(*args: str, env: dict[str, str] | None = None) -> CliResult:
    vault = {secret_env_name(NAME, "apikey"): KEY}
    return run_cli("replay", NAME, "--timeout", "5000", "--json", *args, env={**vault, **(env or {})})


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def every_byte(directory: Path) -> bytes:
    """Every file of the directory, and every entry of trace.zip decompressed."""
    out = b""
    for path in sorted(directory.iterdir()):
        data = path.read_bytes()
        out += data
        if path.name == "trace.zip":
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                out += b"".join(archive.read(n) for n in archive.namelist())
    return out


async def test_a_failed_replay_leaves_a_scrubbed_trace_a_screenshot_and_the_failing_step(
    server: LocalServer, store: Store, tmp_path: Path, skillreel_home: Path
) -> None:
    await skill_on(server, store)
    plain = replay()  # no --artifacts: nothing is written anywhere
    assert plain.exit_code == 1
    assert plain.json()["warnings"] == []
    assert [p.name for p in tmp_path.iterdir() if p.name != "home"] == []

    directory = tmp_path / "debug"
    result = replay("--artifacts", str(directory))
    assert result.exit_code == 1, result.stderr
    envelope = result.json()
    assert envelope["error"]["code"] == "SR_REPLAY_UI_TARGET_NOT_FOUND"
    assert [w["code"] for w in envelope["warnings"]] == ["SR_REPLAY_ARTIFACTS_WRITTEN"]
    assert "page content" in envelope["warnings"][0]["message"]
    assert sorted(p.name for p in directory.iterdir()) == ["failure.json", "screenshot.png", "trace.zip"]
    assert mode(directory) == 0o700
    assert all(mode(p) == 0o600 for p in directory.iterdir())
    failure = json.loads((directory / "failure.json").read_text())
    assert (failure["actionId"], failure["code"], failure["outcome"]) == (
        "a4",
        "SR_REPLAY_UI_TARGET_NOT_FOUND",
        "failed",
    )
    assert failure["url"] == server.url("/form")  # the token the page put into its URL is dropped
    assert (directory / "screenshot.png").read_bytes().startswith(b"\x89PNG")
    # The key was typed and posted (the server saw it) but no artifact holds it, nor the cookie.
    assert any(KEY.encode() in body for body in server.bodies)
    everything = every_byte(directory)
    for hidden in (KEY, COOKIE, URL_TOKEN):
        assert hidden.encode() not in everything, hidden
    with zipfile.ZipFile(directory / "trace.zip") as archive:
        events = [json.loads(line) for line in archive.read("trace.trace").decode().splitlines()]
    fills = [e["params"] for e in events if e.get("type") == "before" and e.get("method") == "fill"]
    # the typing went straight over CDP (replay/direct.py), not through Playwright's fill: the trace
    # shows its effect (the post it led to, its body scrubbed as checked above), not the call
    assert fills == []
    with zipfile.ZipFile(directory / "trace.zip") as archive:
        assert "/save" in archive.read("trace.network").decode()
    # Nothing about the artifacts went into the store or the audit log.
    assert str(directory).encode() not in b"".join(
        p.read_bytes() for p in skillreel_home.rglob("*") if p.is_file()
    )
    assert KEY not in result.stdout + result.stderr


async def test_always_writes_on_success_and_a_page_showing_the_key_gets_no_screenshot(
    server: LocalServer, store: Store, tmp_path: Path
) -> None:
    await skill_on(server, store)
    server.set_page("/form", page(next_button=True, echo=True))
    directory = tmp_path / "ok"
    directory.mkdir(mode=0o755)
    result = replay("--artifacts", str(directory), "--artifacts-on", "always")
    assert result.exit_code == 0, result.stderr
    warnings = {w["code"]: w["message"] for w in result.json()["warnings"]}
    assert set(warnings) == {"SR_REPLAY_ARTIFACTS_WRITTEN", "SR_REPLAY_ARTIFACTS_WITHHELD"}
    assert "screenshot.png (the page shows a sensitive value)" in warnings["SR_REPLAY_ARTIFACTS_WITHHELD"]
    assert sorted(p.name for p in directory.iterdir()) == ["failure.json", "trace.zip"]
    assert json.loads((directory / "failure.json").read_text())["outcome"] == "succeeded"
    assert KEY.encode() not in every_byte(directory)


async def test_bad_artifact_directories_and_options_are_refused_before_any_browser(
    server: LocalServer, store: Store, tmp_path: Path
) -> None:
    await skill_on(server, store)
    server.requests.clear()
    a_file = tmp_path / "file"
    a_file.write_text("x")
    link = tmp_path / "link"
    link.symlink_to(tmp_path)
    for target in (a_file, link, tmp_path / "no" / "parent"):
        result = replay("--artifacts", str(target))
        assert (result.exit_code, result.json()["error"]["code"]) == (1, "SR_RECORD_OUTPUT_FAILED"), target
    usage = replay("--artifacts-on", "always")
    assert (usage.exit_code, usage.json()["error"]["code"]) == (2, "SR_RECORD_USAGE")
    slow = replay("--slow-mo", "9000")
    assert slow.exit_code == 2
    assert server.requests == []
    assert not (tmp_path / "no").exists()


async def test_headed_needs_a_display_and_shows_the_browser_under_xvfb(
    server: LocalServer, store: Store, xvfb_display: str
) -> None:
    await skill_on(server, store)
    server.set_page("/form", page(next_button=True, echo=False))
    blind = replay("--headed", env={"DISPLAY": "", "WAYLAND_DISPLAY": ""})
    assert (blind.exit_code, blind.json()["error"]["code"]) == (1, "SR_REPLAY_UI_CHROMIUM_SETUP")
    assert "display" in blind.json()["error"]["message"]
    headed = replay("--headed", "--slow-mo", "20", env={"DISPLAY": xvfb_display})
    assert headed.exit_code == 0, headed.stdout + headed.stderr
    assert headed.json()["warnings"] == []
