"""`skillreel demo` is the main job and a smoke test of the whole product: run it for real."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli import CliResult, run_cli

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
        "invoices": [{"invoice": "INV-1042", "amount": 1250}, {"invoice": "INV-1043", "amount": 310}],
        "matches": 2,
    }
    assert stages["audit"]["data"]["ok"] is True
    # the home the demo used holds the revoked skill, the extraction skill and no typed password
    listing = run_cli("list", "--json", env={"SKILLREEL_HOME": str(home)}).data()
    assert [(s["name"], s["status"]) for s in listing["skills"]] == [
        ("approve-invoice", "revoked"),
        ("find-invoices", "enabled"),
    ]
    for path in home.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"demo-Recorded-Pw" not in data
            assert b"demo-Vault-Pw" not in data


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
    assert error["details"] == {"stage": "record", "cause": "SR_REPLAY_UI_CHROMIUM_SETUP"}
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
