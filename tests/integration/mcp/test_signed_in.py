"""A signed-in skill (bound to a vault login by name) is playable over MCP, on its recorded site
and on an approved environment with that environment's own login; nothing of a login reaches
the agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillreel.model import lifecycle
from skillreel.model.actions import AssertAction, ClickAction, NavigateAction, TypeAction
from skillreel.model.environment import Environment, NamedEnvironment, build_url_target
from skillreel.model.refs import ParameterRef
from skillreel.services.agent_access import confirm_enabled_skill
from skillreel.services.logins import set_login
from skillreel.services.packaging import enable_skill
from skillreel.store import Store
from tests.integration.mcp.client import data, error, mcp_session
from tests.support import factory
from tests.support.describe import describe_url
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

NAME = "find-order"
PRODUCTION_COOKIE = "prod-cookie-Zr8w"
STAGING_COOKIE = "staging-cookie-Km3t"
FORM = """<!doctype html><html><body><main>
<label for="q">Order number</label><input id="q" name="q" autocomplete="off">
<button id="go" type="button">Find</button><p id="out"></p>
<script>
  document.getElementById("go").addEventListener("click", () => {
    document.getElementById("out").textContent = "Found " + document.getElementById("q").value;
  });
</script>
</main></body></html>"""
# The same page for signed-in visitors only (cookie sid), as a real app would serve it.
GUARDED = FORM.replace(
    "</main>",
    """</main><script>
  if (!document.cookie.split("; ").some((c) => c.startsWith("sid="))) {
    document.querySelector("main").innerHTML = "<p>Please sign in</p>";
  }
</script>""",
)


def state_file(tmp_path: Path, name: str, value: str) -> Path:
    path = tmp_path / f"{name}.json"
    cookie = {"name": "sid", "value": value, "domain": "127.0.0.1", "path": "/", "expires": -1}
    path.write_text(json.dumps({"cookies": [cookie], "origins": []}))
    return path


async def signed_in_skill(
    production: LocalServer, staging: LocalServer, project_dir: Path, tmp_path: Path
) -> None:
    bundles = await describe_url(production, "/form", FORM, {"q": "#q", "go": "#go", "out": "#out"})
    production.set_page("/orders", GUARDED)
    staging.set_page("/orders", GUARDED)
    environment = Environment.build(
        target=build_url_target(production.url("/orders?state=open")),
        login="shop",
        environments=(
            NamedEnvironment(
                name="staging",
                origin=staging.origin,
                allowed_origins=(staging.origin,),
                login="shop-staging",
            ),
        ),
    )
    actions = (
        NavigateAction(id="a1", url=environment.start_url),
        TypeAction(id="a2", target=bundles["q"], value=ParameterRef(name="q")),
        ClickAction(id="a3", target=bundles["go"]),
        AssertAction(id="a4", check="text_contains", target=bundles["out"], expected="Found"),
    )
    draft = factory.build_draft(NAME, environment, actions)
    with Store.open() as store:
        set_login(store, "shop", state_file(tmp_path, "shop", PRODUCTION_COOKIE))
        set_login(store, "shop-staging", state_file(tmp_path, "shop-staging", STAGING_COOKIE))
        factory.store_entry(store, lifecycle.new_entry(draft, factory.events_log(), factory.T0), "validated")
        enable_skill(
            store, NAME, "project", project_dir, approve=True, expected_revision=store.get(NAME).revision
        )
        confirm_enabled_skill(store, NAME, approve=True)  # a person confirmed agent plays


async def test_a_signed_in_skill_is_playable_over_mcp_on_each_approved_environment(
    server: LocalServer, second_server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    production, staging = server, second_server
    await signed_in_skill(production, staging, project_dir, tmp_path)
    stderr = tmp_path / "stderr.log"
    async with mcp_session(skillreel_home, stderr) as session:
        listed = data(await session.call("skills_list"))["skills"][0]
        played = await session.call("skills_play", {"name": NAME, "inputs": {"q": "B-2"}})
        mark = staging.request_count(), production.request_count()
        on_staging = await session.call(
            "skills_play", {"name": NAME, "inputs": {"q": "B-3"}, "environment": "staging"}
        )
        after = staging.request_count(), production.request_count()
        unknown = await session.call(
            "skills_play", {"name": NAME, "inputs": {"q": "B-4"}, "environment": "qa"}
        )
    assert (listed["playable"], listed["signedIn"]) == (True, True)
    assert "needs" not in listed
    assert listed["environments"] == [
        {"name": "staging", "origin": staging.origin, "allowedOrigins": [staging.origin]}
    ]
    assert data(played)["status"] == "succeeded", played.structured_content
    assert f"sid={PRODUCTION_COOKIE}" in production.cookies
    assert data(on_staging)["status"] == "succeeded", on_staging.structured_content
    assert data(on_staging)["environment"] == "staging"
    assert after[1] == mark[1]  # production saw nothing of the staging play
    assert set(staging.cookies[mark[0] :]) == {f"sid={STAGING_COOKIE}"}
    assert error(unknown)["code"] == "SR_RECORD_ENVIRONMENT_UNKNOWN"
    seen = json.dumps([r.model_dump(mode="json") for r in (played, on_staging, unknown)]) + json.dumps(listed)
    seen += stderr.read_text()
    assert PRODUCTION_COOKIE not in seen
    assert STAGING_COOKIE not in seen


async def test_a_missing_login_is_refused_before_any_browser(
    server: LocalServer, second_server: LocalServer, skillreel_home: Path, project_dir: Path, tmp_path: Path
) -> None:
    await signed_in_skill(server, second_server, project_dir, tmp_path)
    for path in (skillreel_home / "sessions").glob("*.json"):
        path.unlink()
    before = server.request_count()
    async with mcp_session(skillreel_home, tmp_path / "stderr.log") as session:
        result = await session.call("skills_play", {"name": NAME, "inputs": {"q": "B-2"}})
    assert error(result)["code"] == "SR_RECORD_SESSION_MISSING"
    assert "skillreel login set shop FILE" in error(result)["message"]
    assert server.request_count() == before
