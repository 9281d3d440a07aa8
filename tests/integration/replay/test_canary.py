"""Canary: no typed value, selector, page text or URL in reports, audit events, errors or outputs.

Distinctive strings are planted in every place content could come from (a non-sensitive input, a
sensitive input from the vault, the page's text, an element id that ends up in selectors, the URL
path); then a successful and a failing replay run in-process and through the console script, and
everything a user, a log or an auditor can see is searched for them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from skillreel.model.actions import (
    Action,
    AssertAction,
    ClickAction,
    NavigateAction,
    ObserveAction,
    TypeAction,
)
from skillreel.model.refs import ParameterRef
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import Store
from skillreel.vault import secret_env_name
from tests.support.cli import run_cli
from tests.support.describe import describe_url
from tests.support.factory import build_draft, store_approved, url_environment
from tests.support.narrow import present
from tests.support.readback import audit_json
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

QUERY = "CanaryQuery7Q3"
PASSWORD = "CanaryPw91X"
PAGE_TEXT = "CanaryPageText55"
SELECTOR = "canary-sel-42"
PATH = "/canary-path-77"
CANARIES = (QUERY, PASSWORD, PAGE_TEXT, SELECTOR, PATH.strip("/"), QUERY.lower(), PASSWORD.lower())

PAGE = f"""<!doctype html><html><body><main><h1>{PAGE_TEXT}</h1>
<label for="{SELECTOR}">Query</label><input id="{SELECTOR}" name="{SELECTOR}">
<label for="pw">Password</label><input id="pw" name="pw" type="password">
<button id="go" type="button">Go</button><p id="echo"></p></main>
<script>
document.getElementById("go").addEventListener("click", () => {{
  document.getElementById("echo").textContent = "You searched " + document.getElementById("{SELECTOR}").value;
}});
</script></body></html>"""


def actions(b: dict[str, Any], url: str, expected: str) -> list[Action]:
    return [
        NavigateAction(id="a1", url=url),
        TypeAction(id="a2", target=b["q"], value=ParameterRef(name="query")),
        TypeAction(id="a3", target=b["pw"], value=ParameterRef(name="password")),
        ClickAction(id="a4", target=b["go"]),
        ObserveAction(id="a5", target=b["echo"]),
        AssertAction(id="a6", check="text_contains", target=b["echo"], expected=expected),
    ]


def assert_clean(where: str, text: str) -> None:
    for canary in CANARIES:
        assert canary not in text, f"{canary!r} leaked into {where}"


@pytest.mark.slow
async def test_nothing_planted_reaches_any_output(
    server: LocalServer, store: Store, monkeypatch: pytest.MonkeyPatch, sessions: WarmSessions
) -> None:
    bundles = await describe_url(
        server, PATH, PAGE, {"q": f"#{SELECTOR}", "pw": "#pw", "go": "#go", "echo": "#echo"}
    )
    url = server.url(PATH)
    good = build_draft(
        "canary-good", url_environment(url), actions(bundles, url, "You searched"), sensitive=["password"]
    )
    bad = build_draft(
        "canary-bad", url_environment(url), actions(bundles, url, "never shown"), sensitive=["password"]
    )
    store_approved(store, good)
    store_approved(store, bad)
    env = {
        secret_env_name("canary-good", "password"): PASSWORD,
        secret_env_name("canary-bad", "password"): PASSWORD,
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)

    seen: dict[str, str] = {}
    ok = await replay_skill(
        store, ReplayRequest(name="canary-good", inputs={"query": QUERY}), session_factory=sessions
    )
    assert ok.status == "succeeded", ok.error
    seen["success document"] = json.dumps(ok.to_json())
    seen["report"] = present(store.get("canary-good").last_report).model_dump_json()

    failed = await replay_skill(
        store,
        ReplayRequest(name="canary-bad", inputs={"query": QUERY}, timeout_ms=5_000),
        session_factory=sessions,
    )
    assert failed.error is not None
    assert failed.error.code == "SR_REPLAY_UI_ASSERTION_FAILED"
    seen["failure document"] = json.dumps(failed.to_json())
    seen["failure repr"] = repr(failed.error) + str(failed.error)

    refused = await replay_skill(
        store,
        ReplayRequest(name="canary-good", inputs={"query": QUERY, "password": PASSWORD}),
        session_factory=sessions,
    )
    assert refused.error is not None
    assert refused.error.code == "SR_REPLAY_SENSITIVE_ON_ARGV"
    seen["argv refusal"] = json.dumps(refused.to_json())

    for name, extra in (("canary-good", ()), ("canary-bad", ("--timeout", "5000"))):
        for mode in (("--json",), ()):
            result = run_cli("replay", name, "--input", f"query={QUERY}", *extra, *mode, env=env)
            seen[f"cli {name} {mode}"] = result.stdout + result.stderr
            assert result.exit_code == (0 if name == "canary-good" else 1), result.stderr
    seen["audit"] = json.dumps(audit_json(store))
    result = run_cli("audit", "--json")
    seen["audit verb"] = result.stdout + result.stderr

    for where, text in seen.items():
        assert_clean(where, text)
