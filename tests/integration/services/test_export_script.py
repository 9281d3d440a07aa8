"""`skillreel export NAME --playwright FILE.py` (issue 32 point 7): a skill recorded on a local site
is written as a Playwright sync Python script; the script, run with this venv's Python and the
system's Chromium (``SKILLREEL_CHROMIUM``), performs the task again with other inputs (the site's
log shows what it did) and prints what it extracted as JSON. The values typed at recording and the
sensitive value are nowhere in the script; the sensitive input comes from its vault variable only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from skillreel.errors import SkillreelError
from skillreel.model.lifecycle import approve
from skillreel.sandbox.chromium import find_chromium
from skillreel.services.exporting import export_playwright
from skillreel.store import AuditNote, Store, utc_now
from skillreel.vault import secret_env_name
from tests.integration.record.rig import page_html
from tests.support.record_replay import record_result
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RECORDED_CUSTOMER = "Recorded Customer Zqx"
RECORDED_PIN = "s3cret-pin-991"
RUN_PIN = "run-pin-5521"

ORDER_PAGE = page_html(
    """
<form id=order action="javascript:void 0">
  <label for=customer>Customer</label><input id=customer name=customer>
  <label for=pin>PIN</label><input id=pin name=pin type=password>
  <label for=plan>Plan</label>
  <select id=plan name=plan><option value=bronze>Bronze</option><option value=silver>Silver</option>
    <option value=gold>Gold</option></select>
  <button class=primary type=submit>Place order</button>
</form>
<p>Total: <output id=total></output></p>
<script>
const prices = {bronze: 10, silver: 25, gold: 40};
document.getElementById("order").addEventListener("submit", () => {
  const customer = document.getElementById("customer").value;
  const plan = document.getElementById("plan").value;
  const pin = document.getElementById("pin").value;
  fetch("/log?customer=" + encodeURIComponent(customer) + "&plan=" + plan + "&pinLength=" + pin.length)
    .then(() => { document.getElementById("total").textContent = String(prices[plan]) + " EUR"; });
});
</script>
"""
)

STEPS = [
    {"do": "type", "selector": "#customer", "text": RECORDED_CUSTOMER},
    {"do": "type", "selector": "#pin", "text": RECORDED_PIN},
    {"do": "select", "selector": "#plan", "value": "gold"},
    {"do": "click", "selector": "button.primary"},
    {"do": "wait", "selector": "#total", "text": "EUR"},
    {"do": "extract", "selector": "#total", "as": "total", "type": "integer"},
]


@pytest.fixture
def store(skillreel_home: Path) -> Iterator[Store]:
    with Store.open() as opened:
        yield opened


def _approve(store: Store, name: str) -> None:
    store.update(
        name, lambda e: approve(e, "reviewer", utc_now()), AuditNote(kind="review", reviewer="reviewer")
    )


async def test_an_exported_script_performs_the_task_with_other_inputs(
    server: LocalServer, store: Store, tmp_path: Path
) -> None:
    recorded = await record_result(server, store, tmp_path, ORDER_PAGE, STEPS, "place-order")
    params = {p.name: p for p in recorded.entry.draft.parameters}
    assert params["pin"].sensitive
    assert not params["customer"].sensitive
    script = tmp_path / "place_order.py"
    with pytest.raises(SkillreelError) as refused:  # a draft is not exported
        export_playwright(store, "place-order", script)
    assert refused.value.code == "SR_RECORD_STATE_INVALID"
    assert not script.exists()
    _approve(store, "place-order")

    result = export_playwright(
        store, "place-order", script, expected_revision=store.get("place-order").revision
    )

    text = script.read_text()
    assert result.path == script
    assert oct(script.stat().st_mode & 0o777) == "0o600"
    for recorded_value in (RECORDED_CUSTOMER, RECORDED_PIN, RECORDED_CUSTOMER.lower()):
        assert recorded_value not in text
    assert "'--pin'" not in text
    assert secret_env_name("place-order", "pin") in text
    assert "get_by_" in text or ".locator(" in text
    server.requests.clear()
    env = {
        **os.environ,
        "SKILLREEL_CHROMIUM": str(find_chromium(headless=True)),
        secret_env_name("place-order", "pin"): RUN_PIN,
    }
    args = ["--customer", "Ada Lovelace", "--plan", "silver", "--origin", server.origin]
    done = subprocess.run(
        [sys.executable, str(script), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == {"total": 25}
    logged = [parse_qs(urlsplit(path).query) for _, path in server.requests if path.startswith("/log")]
    assert logged == [{"customer": ["Ada Lovelace"], "plan": ["silver"], "pinLength": [str(len(RUN_PIN))]}]
    assert RUN_PIN not in done.stdout + done.stderr


async def test_a_sensitive_input_is_refused_on_the_command_line_and_required_from_the_environment(
    server: LocalServer, store: Store, tmp_path: Path
) -> None:
    await record_result(server, store, tmp_path, ORDER_PAGE, STEPS, "place-order")
    _approve(store, "place-order")
    script = tmp_path / "place_order.py"
    export_playwright(store, "place-order", script)
    server.requests.clear()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLREEL_SECRET_")}
    base = [sys.executable, str(script), "--customer", "Ada", "--plan", "silver"]

    on_argv = subprocess.run([*base, "--pin", RUN_PIN], env=env, capture_output=True, text=True, check=False)
    missing = subprocess.run(base, env=env, capture_output=True, text=True, check=False)

    assert on_argv.returncode == 2
    assert "unrecognized arguments" in on_argv.stderr
    assert missing.returncode == 1
    assert secret_env_name("place-order", "pin") in missing.stderr
    assert not [p for _, p in server.requests if p.startswith("/log")]
