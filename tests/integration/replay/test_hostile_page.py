"""A hostile page copies what is typed into it (the recorded password, then the vault's value at
replay) into every place a page controls: a custom element named after it, class names, ids,
attribute names and values, each as typed and hex-encoded. Recording, showing, approving,
replaying (with a heal proposal made on that page), exporting: not one byte of the value, in any of
its forms, reaches the home, an output or an export (issue 11 item 7)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.support.cli import CliResult, run_cli
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PASSWORD = "Hunter2Secret"  # typed while recording
VAULT = "Vault7Passwd"  # the vault's value at replay
COPIER = """
<script>
const hex = (s) => Array.from(new TextEncoder().encode(s), (b) => b.toString(16).padStart(2, "0")).join("");
document.getElementById("pw").addEventListener("input", (event) => {
  const value = event.target.value;
  if (!/^[A-Za-z0-9]+$/.test(value)) return;
  const low = value.toLowerCase(), h = hex(value);
  const go = document.querySelector("#zone button");
  go.id = value;
  go.className = value + " " + h + " btn-" + h;
  if (FULL) {  // names a person reads too: the heal case leaves them, or nothing is similar enough
    go.setAttribute("name", h);
    go.setAttribute("title", value);
    go.setAttribute("aria-label", "go " + h);
  }
  for (const a of Array.from(go.attributes)) if (a.name.startsWith("data-x")) go.removeAttribute(a.name);
  go.setAttribute("data-x" + low, value);
  go.setAttribute("data-x" + h, h);
  const wrap = document.createElement("x-" + low);   // a custom element named after the value
  wrap.appendChild(go);
  document.getElementById("zone").replaceChildren(wrap);
  for (const old of document.querySelectorAll("[data-copy]")) old.remove();
  const next = document.createElement("x-" + h);       // ... and one named after its hex
  next.setAttribute("data-copy", "1");
  next.setAttribute("role", "button");
  next.tabIndex = 0;
  next.textContent = "Next";
  document.body.appendChild(next);
});
</script>"""


def page(button: str, *, hostile: bool, full: bool = True) -> str:
    copier = COPIER.replace("<script>", f"<script>const FULL = {str(full).lower()};", 1)
    return (
        "<!doctype html><html><body><form onsubmit='return false'>"
        "<label for=user>User</label><input id=user name=user>"
        "<label for=pw>Password</label><input id=pw name=pw type=password>"
        f"<div id=zone>{button}</div></form><p id=out></p>"
        "<script>document.addEventListener('click', () => { out.textContent = 'clicked'; });</script>"
        + (copier if hostile else "")
        + "</body></html>"
    )


def forms(value: str) -> list[bytes]:
    """The value in every form a page (or a careless program) might store it."""
    b64 = base64.b64encode(value.encode()).decode()
    texts = {value, value.lower(), value.upper(), value.encode().hex(), value.lower().encode().hex(), b64}
    return sorted(
        {t.encode() for t in texts} | {value.encode().hex().upper().encode(), b64.rstrip("=").encode()}
    )


def assert_nowhere(values: list[str], home: Path, files: list[Path], outputs: list[CliResult]) -> None:
    everything = [p for p in home.rglob("*") if p.is_file()] + files
    for value in values:
        for form in forms(value):
            for path in everything:
                assert form not in path.read_bytes(), (value, form, path)
            for result in outputs:
                assert form.decode() not in result.stdout, (value, form)
                assert form.decode() not in result.stderr, (value, form)


def ok(result: CliResult) -> CliResult:
    assert result.exit_code == 0, result.stdout + result.stderr
    return result


def test_a_page_that_copies_the_typed_password_into_everything_it_controls(
    server: LocalServer, skillreel_home: Path, tmp_path: Path
) -> None:
    server.set_page("/login", page("<button type=button data-test=go>Sign in</button>", hostile=True))
    automation = tmp_path / "automation.json"
    automation.write_text(
        json.dumps(
            {
                "steps": [
                    {"do": "type", "selector": "#user", "text": "clerk"},
                    {"do": "type", "selector": "#pw", "text": PASSWORD},
                    {"do": "click", "selector": "[data-test=go]"},
                    {"do": "click", "selector": "[data-copy]"},
                ]
            }
        )
    )
    outputs = [
        ok(
            run_cli(
                "record", "hostile", "--url", server.url("/login"), "--automation", str(automation), "--json"
            )
        )
    ]
    automation.unlink()  # it held the password; it is the test's, not skillreel's
    draft = outputs[0].data()
    assert [a["kind"] for a in draft["actions"]] == ["navigate", "type", "type", "click", "human"]
    shown = ok(run_cli("show", "hostile", "--json"))
    outputs += [shown, ok(run_cli("show", "hostile"))]
    click = shown.data()["actions"][3]["target"]
    assert [c["selector"] for c in click["candidates"]] == ['[data-test="go"]']  # all the others echoed
    export = tmp_path / "hostile.json"
    outputs.append(ok(run_cli("export", "hostile", "--out", str(export), "--json")))
    outputs.append(ok(run_cli("audit", "--json")))
    assert_nowhere([PASSWORD], skillreel_home, [export], outputs)


def test_a_heal_proposal_made_on_a_page_that_copies_the_vault_value_keeps_none_of_it(
    server: LocalServer, skillreel_home: Path, tmp_path: Path
) -> None:
    server.set_page("/login", page("<button id=go type=button>Sign in</button>", hostile=False))
    automation = tmp_path / "automation.json"
    automation.write_text(
        json.dumps(
            {
                "steps": [
                    {"do": "type", "selector": "#user", "text": "clerk"},
                    {"do": "type", "selector": "#pw", "text": PASSWORD},
                    {"do": "click", "selector": "#zone button"},
                ]
            }
        )
    )
    outputs = [
        ok(
            run_cli(
                "record", "sign-in", "--url", server.url("/login"), "--automation", str(automation), "--json"
            )
        )
    ]
    automation.unlink()
    recorded = outputs[0].data()
    secret = next(p["name"] for p in recorded["parameters"] if p["sensitive"])
    user = next(p["name"] for p in recorded["parameters"] if not p["sensitive"])
    outputs.append(
        ok(run_cli("review", "sign-in", "--reviewer", "rev", "--expected-revision", "1", "--approve"))
    )

    # The page changed (a new id, a stable test id, an aria-label over the caption, a wrapper: the
    # recorded candidates, the role-name one too, fail and the step heals) and copies whatever is
    # typed into the password field (now the vault's value) into the wrapper's tag name, the id,
    # the classes and attribute names and values.
    server.set_page(
        "/login",
        page(
            '<button id=go2 type=button data-test=signin aria-label="Sign in to the ledger">Sign in</button>',
            hostile=True,
            full=False,
        ),
    )
    env = {f"SKILLREEL_SECRET_SIGN_IN_{secret.upper()}": VAULT}
    replayed = ok(run_cli("replay", "sign-in", "--input", f"{user}=clerk", "--json", env=env))
    outputs.append(replayed)
    assert replayed.data()["healProposal"] is True
    shown = ok(run_cli("show", "sign-in", "--json"))
    outputs += [shown, ok(run_cli("show", "sign-in"))]
    proposal = shown.data()["healProposal"]
    healed = [a for a in proposal["actions"] if a["kind"] == "click"]
    candidates = healed[0]["target"]["candidates"]
    assert candidates[0]["selector"] == '[data-test="signin"]'
    # an adopted heal merges: the recorded (clean page's) candidates follow the fresh ones
    click_id = healed[0]["id"]
    approved = next(a for a in shown.data()["actions"] if a["id"] == click_id)
    recorded_selectors = {c["selector"] for c in approved["target"]["candidates"]}
    fresh = [c for c in candidates if c["selector"] not in recorded_selectors]
    assert fresh
    assert fresh[0] == candidates[0]
    # the fresh id and CSS path (through the x-<value> wrapper) held the value: both were dropped
    assert not {c["strategy"] for c in fresh} & {"id", "css"}
    export = tmp_path / "sign-in.json"
    outputs.append(ok(run_cli("export", "sign-in", "--out", str(export), "--json")))
    outputs.append(ok(run_cli("audit", "--json")))
    assert_nowhere([PASSWORD, VAULT], skillreel_home, [export], outputs)
