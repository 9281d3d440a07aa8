"""`skillreel demo` is the main job and a smoke test of the whole product: run it for real."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import CliResult, run_cli

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STAGES = [
    "record",
    "show",
    "review",
    "replay",
    "heal",
    "refuse",
    "enable",
    "mcp",
    "extract",
    "attach",
    "revoke",
    "audit",
]


def test_demo_runs_every_stage_and_each_outcome_holds(tmp_path: Path) -> None:
    home = tmp_path / "demo-home"
    result = run_cli("demo", "--fast", "--json", "--home", str(home), timeout=300)
    assert result.exit_code == 0, result.stdout + result.stderr
    envelope = result.json()
    assert (envelope["command"], envelope["ok"]) == ("demo", True)
    doc = envelope["data"]
    assert doc["home"] == str(home)
    assert doc["keptDirectory"] is None  # without --keep the temporary directory is gone
    stages = {s["stage"]: s for s in doc["stages"]}
    assert list(stages) == STAGES
    assert all(s["ok"] for s in doc["stages"])
    sensitive = [p["name"] for p in stages["record"]["data"]["parameters"] if p["sensitive"]]
    assert sensitive == ["password"]
    assert stages["review"]["data"]["status"] == "approved"
    assert stages["replay"]["data"]["status"] == "validated"
    assert stages["heal"]["data"]["healed"], "the redesign must need healing"
    assert stages["refuse"]["data"]["code"] == "SR_REPLAY_UI_TARGET_AMBIGUOUS"
    assert stages["enable"]["data"]["status"] == "enabled"
    assert stages["mcp"]["data"]["listed"] == ["approve-invoice"]
    assert stages["extract"]["data"]["outputs"] == {
        "total": 1250,
        "invoices": [{"invoice": "INV-1042", "amount": 1250}, {"invoice": "INV-1043", "amount": 310}],
        "matches": 2,
        "last": "INV-1043",  # read, then typed into the search (a value between steps, issue 33)
        "narrowed": 1,
    }
    # one upload, one popup and one download (issue 32): the app got the second document's size
    attach = stages["attach"]["data"]
    assert {"upload", "page", "download"} <= set(attach["kinds"])
    assert attach["received"] == 2048
    assert stages["audit"]["data"]["ok"] is True
    # the home the demo used holds the revoked skill, the attach and extraction skills and no typed password
    listing = run_cli("list", "--json", env={"SKILLREEL_HOME": str(home)}).data()
    assert [(s["name"], s["status"]) for s in listing["skills"]] == [
        ("approve-invoice", "revoked"),
        ("attach-document", "validated"),
        ("find-invoices", "enabled"),
    ]
    for path in home.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"demo-Recorded-Pw" not in data
            assert b"demo-Vault-Pw" not in data
    assert guessed_values(home) == []


def guessed_values(home: Path) -> list[str]:
    """What an attacker holding the store (or an export) recovers from the events logs' value
    digests by guessing: every short string, and every word of the site the skill runs on. Logs used
    to keep a digest of each typed value salted with the log's own salt, stored beside it, so the
    demo's search and region came straight back (issue 11 item 7); they keep none now."""
    import itertools
    import re
    import string

    import skillreel.demo
    from skillreel.store import Store
    from tests.support.factory import legacy_value_digest

    site = Path(skillreel.demo.__file__).parent
    words = {
        w.lower()
        for f in site.rglob("*.*")
        if f.is_file() and "__pycache__" not in f.parts  # the site's text, not Python's bytecode
        for w in re.findall(r"[A-Za-z0-9]+", f.read_text())
    }
    alphabet = string.ascii_lowercase + string.digits
    words |= {"".join(t) for n in (1, 2, 3) for t in itertools.product(alphabet, repeat=n)}
    with Store.open(home) as store:
        logs = {
            (log := store.revision("approve-invoice", r.revision).events).events_digest: log
            for r in store.revisions("approve-invoice")
        }
    found: set[str] = set()
    for log in logs.values():
        digests = {e.value_digest for e in log.events if e.value_digest is not None}
        if digests:
            found |= {w for w in words if legacy_value_digest(log.salt, w) in digests}
    return sorted(found)


def test_demo_port_in_use_is_a_clear_error() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        result = run_cli("demo", "--json", "--port", str(port))
    assert result.exit_code == 2
    assert result.json()["error"]["code"] == "SR_RECORD_USAGE"
    assert "port" in result.json()["error"]["message"]
    assert "Traceback" not in result.stderr


def test_demo_without_chromium_names_the_stage_and_the_fix(tmp_path: Path) -> None:
    result = run_cli(
        "demo",
        "--json",
        "--home",
        str(tmp_path / "h"),
        env={"SKILLREEL_CHROMIUM": str(tmp_path / "no-such-chromium")},
    )
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "SR_RECORD_DEMO_FAILED"
    # the record stage fails with the recording's own code (issue 31.7), not a replay's
    assert error["details"] == {"stage": "record", "cause": "SR_RECORD_CHROMIUM_SETUP"}
    assert "SKILLREEL_CHROMIUM" in error["message"]  # the cause's fix travels with it
    assert "Traceback" not in result.stderr


SETPRIV = shutil.which("setpriv")


@pytest.mark.skipif(os.geteuid() == 0 and SETPRIV is None, reason="root writes anywhere without setpriv")
def test_demo_with_a_read_only_home_names_the_stage_and_the_fix(tmp_path: Path) -> None:
    parent = tmp_path / "read-only"
    parent.mkdir()
    parent.chmod(0o555)  # the home cannot be created (a home that exists is made 0700 by its owner)
    home = parent / "home"
    prefix: list[str] = []
    if os.geteuid() == 0:  # drop the capabilities that let root write anywhere
        assert SETPRIV is not None
        prefix = [SETPRIV, "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]
    proc = subprocess.run(
        [*prefix, sys.executable, "-m", "skillreel", "demo", "--json", "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    error = CliResult(proc.returncode, proc.stdout, proc.stderr).json()["error"]
    assert error["code"] == "SR_RECORD_DEMO_FAILED"
    assert error["details"]["stage"] == "record"
    assert error["details"]["cause"] == "SR_RECORD_STORE_IO"
    assert "writable" in error["message"]
    assert "Traceback" not in proc.stderr
    assert not home.exists()
