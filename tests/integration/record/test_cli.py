"""`skillreel record` end to end (the console script in a subprocess, real Chromium)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from skillreel.model.actions import HumanAction, NavigateAction
from skillreel.store import Store
from tests.integration.record.rig import page_html
from tests.support.cli import CliResult, run_cli
from tests.support.narrow import narrow
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

FORM = page_html("""
<form id=f action="javascript:void 0">
  <label for=email>Email</label><input id=email name=email>
  <select id=plan name=plan><option value=free>Free</option><option value=pro>Pro</option></select>
  <button id=go type=submit>Go</button>
</form>
<p id=msg>Welcome back</p>
""")


def write(path: Path, data: Any) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def stored(home: Path) -> list[str]:
    if not (home / "store.db").exists():
        return []
    with Store.open(home) as store:
        return [e.name for e in store.entries()]


def assert_refused(result: CliResult, code: str, exit_code: int = 2) -> None:
    assert result.exit_code == exit_code, result.stderr
    assert result.json()["error"]["code"] == code
    assert "Traceback" not in result.stderr


def test_record_stores_a_draft_and_prints_it(tmp_path: Path, skillreel_home: Path) -> None:
    html = write(tmp_path / "form.html", FORM)
    automation = write(
        tmp_path / "a.json",
        {
            "steps": [
                {"do": "type", "selector": "#email", "text": "ann@example.com"},
                {"do": "select", "selector": "#plan", "value": "pro"},
                {"do": "click", "selector": "#go"},
            ]
        },
    )
    assertions = write(
        tmp_path / "c.json",
        {
            "assertions": [
                {"kind": "observe", "selector": "#msg"},
                {"kind": "assert", "selector": "#msg", "check": "text_contains", "expected": "Welcome"},
            ]
        },
    )
    first = run_cli(
        "record",
        "sign-up",
        "--html",
        str(html),
        "--automation",
        str(automation),
        "--assertions",
        str(assertions),
        "--failure",
        "No welcome message",
        "--json",
    )
    assert first.exit_code == 0, first.stdout + first.stderr
    doc = first.data()
    assert set(doc) == {
        "name",
        "revision",
        "status",
        "draftDigest",
        "strippedQueryKeys",
        "environments",
        "parameters",
        "actions",
        "deniedOrigins",
        "deniedOriginCount",
        "deniedOriginsHidden",
        "warnings",
        "dropped",
    }
    assert (doc["name"], doc["revision"], doc["status"]) == ("sign-up", 1, "draft")
    assert doc["dropped"] == []  # nothing the person did was lost
    assert (doc["strippedQueryKeys"], doc["environments"]) == ([], [])  # an HTML fixture has no URL
    plan = {"name": "plan", "required": True, "sensitive": False, "type": "enum", "values": ["free", "pro"]}
    labels = doc["parameters"][1].pop("labelHashes")  # the options' labels, hashed (issue 33)
    assert len(labels) == 2
    assert doc["parameters"] == [{"name": "email", "required": True, "sensitive": False}, plan]
    assert [(a["id"], a["kind"]) for a in doc["actions"]] == [
        ("a1", "navigate"),
        ("a2", "type"),
        ("a3", "select"),
        ("a4", "click"),
        ("a5", "observe"),
        ("a6", "assert"),
    ]
    assert doc["deniedOrigins"] == []
    with Store.open(skillreel_home) as store:
        entry = store.get("sign-up")
        assert entry.draft.draft_digest == doc["draftDigest"]
        assert entry.draft.events_digest == entry.events.events_digest
        assert entry.draft.failure_conditions == ("No welcome message",)
        (event,) = store.audit_events("sign-up")
        assert event.kind == "record"
        assert set(event.digests) == {"entry", "draft", "events"}
    again = run_cli(
        "record",
        "sign-up",
        "--html",
        str(html),
        "--automation",
        str(automation),
        "--json",
        "--sensitive",
        "email",
    )
    assert again.exit_code == 0, again.stdout
    assert again.data()["revision"] == 2
    assert again.data()["parameters"][0] == {"name": "email", "required": True, "sensitive": True}
    with Store.open(skillreel_home) as store:
        entry = store.get("sign-up")
    edits = [e for e in entry.events.events if e.type == "input"]
    assert [e.value_digest for e in edits] == [None]  # a --sensitive value leaves no digest


def test_human_output_lists_steps_without_values(tmp_path: Path) -> None:
    html = write(tmp_path / "form.html", FORM)
    automation = write(
        tmp_path / "a.json", {"steps": [{"do": "type", "selector": "#email", "text": "zed@x.test"}]}
    )
    result = run_cli("record", "one-field", "--html", str(html), "--automation", str(automation))
    assert result.exit_code == 0, result.stderr
    assert "a2" in result.stdout
    assert "email" in result.stdout
    assert "zed@x.test" not in result.stdout + result.stderr


CANARIES = {
    "password": "CanaryPwd7Q1x",
    "otp": "CanaryOtp83Xy",
    "show": "CanaryShow5Zk",
    "echo": "CanaryEcho2Kw",
    "rich": "CanaryRich9Mv",
    "code": "CanaryCode4Tn",
    "token": "CanaryTok6Wq",
    "start": "CanaryStart3P",
}

LOGIN = page_html("""
<form id=f action="javascript:void 0">
  <input id=user name=user>
  <input id=pw name=pw type=password>
  <input id=otp name=code autocomplete="one-time-code">
  <input id=pw2 name=pw2 type=password><button type=button id=show
    onclick="document.getElementById('pw2').type = 'text'">show</button>
  <input id=nick name=nick oninput="
      document.getElementById('echo').textContent = 'Hello ' + this.value;
      document.querySelector('.greet').setAttribute('aria-label', 'Greet ' + this.value);
      document.querySelector('.greet').dataset.testid = 'greet-' + this.value;
      document.title = this.value;">
  <p id=echo></p><button type=button class=greet>greet</button>
</form>
<div id=card role=button tabindex=0 aria-label="Note card" onclick="this.dataset.opened = 1">
  <h3>Note</h3><div id=editor contenteditable=true style="min-height:30px;border:1px solid"></div>
</div>
""")

CALLBACK = page_html("""<p id=done>Signed in</p>
<script>
  document.getElementById('done').dataset.code = new URLSearchParams(location.search).get('code');
</script>""")


def grep_canaries(texts: list[str], home: Path) -> list[str]:
    hits = []
    blobs = [("output", t.encode()) for t in texts]
    blobs += [(str(p), p.read_bytes()) for p in home.rglob("*") if p.is_file()]
    for where, blob in blobs:
        for name, canary in CANARIES.items():
            for form in (canary, canary.lower(), canary.upper()):
                if form.encode() in blob:
                    hits.append(f"{name} in {where}")
    return hits


@pytest.mark.slow
def test_canaries_never_reach_the_store_or_any_output(
    tmp_path: Path,
    skillreel_home: Path,
    server: LocalServer,
    second_server: LocalServer,
) -> None:
    pixel = f"<img src='{second_server.url('/pixel.png')}'>"
    server.set_page("/login", LOGIN.replace("</form>", pixel + "</form>"))
    server.set_page("/cb", CALLBACK)
    c = CANARIES
    automation = write(
        tmp_path / "a.json",
        {
            "steps": [
                {"do": "type", "selector": "#user", "text": "someone"},
                {"do": "type", "selector": "#pw", "text": c["password"]},
                {"do": "type", "selector": "#otp", "text": c["otp"]},
                {"do": "click", "selector": "#show"},
                {"do": "type", "selector": "#pw2", "text": c["show"]},
                {"do": "type", "selector": "#nick", "text": c["echo"]},
                {"do": "click", "selector": ".greet"},
                {"do": "type", "selector": "#editor", "text": c["rich"]},
                {"do": "press", "key": "Tab"},
                {"do": "goto", "url": server.url(f"/cb?code={c['code']}&view=2#access_token={c['token']}")},
            ]
        },
    )
    assertions = write(
        tmp_path / "c.json",
        {
            "assertions": [
                {"kind": "observe", "selector": "#done"},
                {"kind": "assert", "check": "url_matches", "expected": "/cb"},
            ]
        },
    )
    url = server.url(f"/login?code={c['start']}&tab=1")
    outputs = []
    for as_json in (True, False):
        result = run_cli(
            "record",
            "canary-check" if as_json else "canary-human",
            "--url",
            url,
            "--automation",
            str(automation),
            "--assertions",
            str(assertions),
            *(["--json"] if as_json else []),
        )
        outputs += [result.stdout, result.stderr]
        assert result.exit_code == 0, result.stdout + result.stderr
        if as_json:  # a password was typed: refused origins are counted, not named
            doc = result.data()
            denied = (doc["deniedOrigins"], doc["deniedOriginCount"], doc["deniedOriginsHidden"])
            assert denied == ([], 1, True)
        else:
            assert "1 refused origin(s)" in result.stdout
            assert "not named" in result.stdout
    assert second_server.requests == []
    assert grep_canaries(outputs, skillreel_home) == []
    with Store.open(skillreel_home) as store:
        draft = store.get("canary-check").draft
    assert [a.kind for a in draft.actions] == [
        "navigate",
        "type",
        "type",
        "human",
        "click",
        "type",
        "type",
        "click",
        "human",
        "press",
        "navigate",
        "observe",
        "assert",
    ]
    assert {p.name: p.sensitive for p in draft.parameters} == {
        "user": False,
        "pw": True,
        "pw2": True,
        "nick": False,
    }
    assert narrow(HumanAction, draft.actions[3]).reason == "otp"
    assert narrow(HumanAction, draft.actions[8]).reason == "rich-text"
    assert narrow(NavigateAction, draft.actions[0]).url == server.url("/login?tab=1")
    assert narrow(NavigateAction, draft.actions[10]).url == server.url("/cb?view=2")


def test_a_value_typed_right_before_an_address_bar_navigation_is_kept_as_a_parameter(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    """A ``goto`` leaves the page without the field losing focus: the value typed last was lost (no
    step, no parameter), and the URL that echoed it was then kept as it was. (A password echoed by
    a later URL is the documented gap: it never leaves the page, so Python cannot compare it.)"""
    server.set_page("/login", LOGIN)
    server.set_page("/app", page_html("<input id=q>"))
    typed = "TypedLast5Qz"
    automation = write(
        tmp_path / "a.json",
        {
            "steps": [  # a type step after the goto: the script's inputs are not over at the goto
                {"do": "type", "selector": "#pw", "text": CANARIES["password"]},
                {"do": "type", "selector": "#user", "text": typed},
                {"do": "goto", "url": server.url(f"/app?hint={typed}&view=2")},
                {"do": "type", "selector": "#q", "text": "INV-77"},
            ]
        },
    )
    result = run_cli(
        "record", "goto-after-typing", "--url", server.url("/login"), "--automation", str(automation)
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    with Store.open(skillreel_home) as store:
        draft = store.get("goto-after-typing").draft
    assert [a.kind for a in draft.actions] == ["navigate", "type", "type", "navigate", "type"]
    assert {p.name: p.sensitive for p in draft.parameters} == {"pw": True, "user": False, "q": False}
    assert narrow(NavigateAction, draft.actions[3]).url == server.url("/app?view=2")
    blobs = [
        result.stdout,
        result.stderr,
        *(p.read_bytes().decode("latin-1") for p in skillreel_home.rglob("*") if p.is_file()),
    ]
    assert not [b for b in blobs if typed in b or CANARIES["password"] in b]


def test_a_value_the_description_already_showed_is_no_secret_finding(
    tmp_path: Path, skillreel_home: Path
) -> None:
    """Issue 10 finding 5: text the user gave before anything was typed (here the description)
    cannot be a secret the recording leaked; the draft keeps no other copy of the value."""
    html = write(tmp_path / "form.html", FORM)
    automation = write(
        tmp_path / "a.json", {"steps": [{"do": "type", "selector": "#email", "text": "acme-corp"}]}
    )
    result = run_cli(
        "record",
        "public",
        "--html",
        str(html),
        "--automation",
        str(automation),
        "--json",
        "--description",
        "Sign up acme-corp.",
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    with Store.open(skillreel_home) as store:
        entry = store.get("public")
    assert entry.draft.description == "Sign up acme-corp."
    stored_json = json.dumps([a.to_json() for a in entry.draft.actions]) + entry.events.model_dump_json()
    assert "acme" not in stored_json.lower()


def test_a_typed_value_the_user_did_not_give_before_is_still_a_finding(
    tmp_path: Path, skillreel_home: Path
) -> None:
    """Only the start URL, the description, the failure conditions and the page's URL make a typed
    value public; an assertion's expected text holding it is still a finding."""
    html = write(tmp_path / "form.html", FORM.replace("Welcome back", "Welcome back acme-corp"))
    automation = write(
        tmp_path / "a.json", {"steps": [{"do": "type", "selector": "#email", "text": "acme-corp"}]}
    )
    assertions = write(
        tmp_path / "c.json",
        {
            "assertions": [
                {"kind": "assert", "selector": "#msg", "check": "text_contains", "expected": "acme-corp"}
            ]
        },
    )
    result = run_cli(
        "record",
        "leaky",
        "--html",
        str(html),
        "--automation",
        str(automation),
        "--json",
        "--assertions",
        str(assertions),
    )
    assert_refused(result, "SR_RECORD_SECRET_FINDING", exit_code=1)
    assert {"path": "actions[2].expected", "category": "typed-value"} in result.json()["error"]["details"][
        "findings"
    ]
    assert "acme-corp" not in result.stdout
    assert stored(skillreel_home) == []


def bad_inputs(tmp: Path, server_url: str) -> dict[str, tuple[list[str], str]]:
    html = write(tmp / "ok.html", FORM)
    big = write(tmp / "big.html", "<p>" + "x" * 1_000_000 + "</p>")
    link = tmp / "link.html"
    if not link.exists():
        link.symlink_to(html)
    script = write(tmp / "ok.json", {"steps": [{"do": "click", "selector": "#go"}]})
    return {
        "no target": ([], "SR_RECORD_TARGET_INVALID"),
        "both targets": (["--html", str(html), "--url", server_url], "SR_RECORD_TARGET_INVALID"),
        "html with origin": (
            ["--html", str(html), "--allowed-origin", server_url],
            "SR_RECORD_TARGET_INVALID",
        ),
        "html with identity": (["--html", str(html), "--identity", "ops"], "SR_RECORD_TARGET_INVALID"),
        "missing html": (["--html", str(tmp / "nope.html")], "SR_RECORD_INPUT_NOT_REGULAR"),
        "html directory": (["--html", str(tmp)], "SR_RECORD_INPUT_NOT_REGULAR"),
        "html symlink": (["--html", str(link)], "SR_RECORD_INPUT_NOT_REGULAR"),
        "html over limit": (["--html", str(big)], "SR_RECORD_INPUT_TOO_LARGE"),
        "http off loopback": (["--url", "http://example.com/app"], "SR_RECORD_TARGET_INVALID"),
        "credentials in url": (["--url", "https://user:pw@example.com/"], "SR_RECORD_TARGET_INVALID"),
        "not http": (["--url", "file:///etc/passwd"], "SR_RECORD_TARGET_INVALID"),
        "origin with path": (
            ["--url", server_url, "--allowed-origin", "https://a.example/x"],
            "SR_RECORD_TARGET_INVALID",
        ),
        "http origin off loopback": (
            ["--url", server_url, "--allowed-origin", "http://a.example"],
            "SR_RECORD_TARGET_INVALID",
        ),
        "too many origins": (
            [
                "--url",
                server_url,
                *[a for i in range(8) for a in ("--allowed-origin", f"https://o{i}.example")],
            ],
            "SR_RECORD_TARGET_INVALID",
        ),
        "bad name": (["--html", str(html), "--name-override"], "SR_RECORD_USAGE"),
        "bad viewport": (["--html", str(html), "--viewport", "10x10"], "SR_RECORD_USAGE"),
        "bad timeout": (["--html", str(html), "--timeout", "5"], "SR_RECORD_USAGE"),
        "bad sensitive": (["--html", str(html), "--sensitive", "Card Number"], "SR_RECORD_USAGE"),
        "automation not json": (
            ["--html", str(html), "--automation", str(write(tmp / "x.json", "{oops"))],
            "SR_RECORD_INPUT_MALFORMED",
        ),
        "automation unknown step": (
            [
                "--html",
                str(html),
                "--automation",
                str(write(tmp / "y.json", {"steps": [{"do": "eval", "js": "1"}]})),
            ],
            "SR_RECORD_INPUT_MALFORMED",
        ),
        "automation missing": (
            ["--html", str(html), "--automation", str(tmp / "none.json")],
            "SR_RECORD_INPUT_NOT_REGULAR",
        ),
        "assertions malformed": (
            [
                "--html",
                str(html),
                "--automation",
                str(script),
                "--assertions",
                str(write(tmp / "z.json", {"assertions": [{"kind": "assert", "check": "visible"}]})),
            ],
            "SR_RECORD_INPUT_MALFORMED",
        ),
        "storage state with html": (
            ["--html", str(html), "--storage-state", str(script)],
            "SR_RECORD_TARGET_INVALID",
        ),
        "storage state not json": (
            ["--url", server_url, "--storage-state", str(write(tmp / "s.json", "[1"))],
            "SR_RECORD_INPUT_MALFORMED",
        ),
    }


@pytest.mark.slow
def test_bad_input_is_refused_before_anything_starts(tmp_path: Path, skillreel_home: Path) -> None:
    cases = bad_inputs(tmp_path, "http://127.0.0.1:9/app")
    for label, (args, code) in cases.items():
        name = "Bad_Name" if label == "bad name" else "bad-input"
        args = [a for a in args if a != "--name-override"]
        result = run_cli("record", name, *args, "--json")
        expected = "SR_RECORD_NAME_INVALID" if label == "bad name" else code
        assert result.exit_code == 2, (label, result.stdout, result.stderr)
        assert result.json()["error"]["code"] == expected, label
        assert "Traceback" not in result.stderr, label
    assert not skillreel_home.exists() or stored(skillreel_home) == []


@pytest.mark.parametrize(
    ("headed", "env"),
    [(False, {"SKILLREEL_CHROMIUM": "/nonexistent/chromium"}), (True, {"DISPLAY": ""})],
    ids=["no-chromium", "no-display"],
)
def test_chromium_that_cannot_start_is_a_recording_code(
    tmp_path: Path, skillreel_home: Path, headed: bool, env: dict[str, str]
) -> None:
    """Issue 31.7: a recording whose Chromium cannot start said SR_REPLAY_UI_CHROMIUM_SETUP, a
    replay's code; it is SR_RECORD_CHROMIUM_SETUP, whose fix speaks of recording."""
    page = write(tmp_path / "page.html", FORM)
    steps = {"steps": [{"do": "click", "selector": "#go"}]}
    automation = () if headed else ("--automation", str(write(tmp_path / "a.json", steps)))
    result = run_cli("record", "no-browser", "--html", str(page), *automation, "--json", env=env)
    assert_refused(result, "SR_RECORD_CHROMIUM_SETUP", exit_code=1)
    assert "--automation FILE" in result.json()["error"]["fix"]
    assert stored(skillreel_home) == []


def test_selectors_that_match_nothing_fail_the_demonstration(tmp_path: Path, skillreel_home: Path) -> None:
    html = write(tmp_path / "form.html", FORM)
    nothing = write(
        tmp_path / "a.json",
        {
            "steps": [
                {"do": "type", "selector": "#email", "text": "a@b.c"},
                {"do": "click", "selector": "#missing"},
            ]
        },
    )
    result = run_cli(
        "record", "broken", "--html", str(html), "--automation", str(nothing), "--timeout", "3000", "--json"
    )
    assert_refused(result, "SR_RECORD_AUTOMATION_FAILED")
    assert "step 2" in result.json()["error"]["message"]
    assert "#missing" not in result.stdout
    good = write(tmp_path / "b.json", {"steps": [{"do": "click", "selector": "#go"}]})
    for spec in (
        {"kind": "observe", "selector": "#missing"},
        {"kind": "assert", "selector": "p, button", "check": "visible"},
        {"kind": "observe", "selector": "p[["},
    ):
        assertions = write(tmp_path / "c.json", {"assertions": [spec]})
        result = run_cli(
            "record",
            "broken",
            "--html",
            str(html),
            "--automation",
            str(good),
            "--assertions",
            str(assertions),
            "--json",
        )
        assert_refused(result, "SR_RECORD_AUTOMATION_FAILED")
    assert stored(skillreel_home) == []


def test_a_secret_in_the_users_own_text_is_refused_before_recording(
    tmp_path: Path, skillreel_home: Path
) -> None:
    html = write(tmp_path / "form.html", FORM)
    result = run_cli("record", "leaky", "--html", str(html), "--failure", "token=abcd1234efgh", "--json")
    assert_refused(result, "SR_RECORD_SECRET_FINDING", exit_code=1)
    assert result.json()["error"]["details"]["findings"] == [
        {"path": "failureConditions[0]", "category": "password-assignment"}
    ]
    assert "abcd1234" not in result.stdout
    assert not skillreel_home.exists()


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _browser_process(pid: int) -> int | None:
    for child in _descendants(pid):
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"--remote-debugging-pipe" in cmdline and b"--type=" not in cmdline:
            return child
    return None


def test_a_browser_crash_stores_nothing_and_says_so(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    server.set_page("/app", FORM)
    automation = write(
        tmp_path / "a.json",
        {"steps": [{"do": "type", "selector": "#email", "text": "a@b.c"}, {"do": "wait", "ms": 30_000}]},
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "skillreel",
            "record",
            "crashy",
            "--url",
            server.url("/app"),
            "--automation",
            str(automation),
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    try:
        browser = None
        while browser is None and proc.poll() is None:
            time.sleep(0.05)
            if server.request_count():
                browser = _browser_process(proc.pid)
        assert browser is not None, "the recording ended before Chromium could be stopped"
        os.kill(browser, signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 1, out + err
    assert CliResult(proc.returncode, out, err).json()["error"]["code"] == "SR_RECORD_CAPTURE_FAILED"
    assert "nothing was stored" in json.loads(out)["error"]["message"]
    assert "Traceback" not in err
    assert stored(skillreel_home) == []


SIGNUP = page_html("""
<form id=f method=post action="/save">
  <label for=email>Email</label><input id=email name=email>
  <button id=go type=submit>Save</button>
</form>
""")


def test_an_unknown_sensitive_name_stops_a_scripted_demonstration_before_it_acts(
    tmp_path: Path, skillreel_home: Path, server: LocalServer
) -> None:
    """Issue 11 item 10: a --sensitive name that matches no parameter is refused once the script's
    last field is filled, before the click that posts the form (it used to post, then refuse)."""
    server.set_page("/signup", SIGNUP)
    server.set_page("/save", page_html("<p>saved</p>"))
    automation = write(
        tmp_path / "a.json",
        {
            "steps": [
                {"do": "type", "selector": "#email", "text": "ana@example.org"},
                {"do": "click", "selector": "#go"},
            ]
        },
    )

    def record(sensitive: str) -> CliResult:
        args = ("--url", server.url("/signup"), "--automation", str(automation), "--json")
        return run_cli("record", "signup", *args, "--sensitive", sensitive)

    refused = record("card_number")
    assert_refused(refused, "SR_RECORD_PARAMETER_UNKNOWN")
    assert "parameters: email" in refused.json()["error"]["message"]
    assert [r for r in server.requests if r[0] == "POST"] == []  # the form was never posted
    assert stored(skillreel_home) == []
    assert "ana@example.org" not in refused.stdout + refused.stderr

    accepted = record("email")
    assert accepted.exit_code == 0, accepted.stdout + accepted.stderr
    assert ("POST", "/save") in server.requests
    assert [p["sensitive"] for p in accepted.data()["parameters"]] == [True]
