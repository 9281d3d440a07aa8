"""A real, playable skill on a page served on 127.0.0.1: locator bundles come from
``locate/fingerprint.js`` evaluated on the page itself (tests/support/describe.py), the draft and approval
from the model API, so a replay through MCP runs the real engine in real Chromium against real
bundles."""

from __future__ import annotations

from pathlib import Path

from skillreel.model import lifecycle
from skillreel.model.actions import (
    Action,
    AssertAction,
    ClickAction,
    ExtractAction,
    NavigateAction,
    TypeAction,
    capability_manifest,
)
from skillreel.model.draft import Draft, Parameter
from skillreel.model.refs import ParameterRef
from skillreel.services.agent_access import confirm_enabled_skill
from skillreel.services.packaging import enable_skill
from skillreel.store import Store
from tests.support import factory
from tests.support.describe import describe_on
from tests.support.server import LocalServer

PAGE = """<!doctype html>
<html><head><title>Invoices</title></head><body>
<main>
  <h1>Invoices</h1>
  <form id="search" onsubmit="return false">
    <label for="customer">Customer</label>
    <input id="customer" name="customer" type="text" autocomplete="off">
    <label for="pin">PIN</label>
    <input id="pin" name="pin" type="password">
    <button id="go" type="button">Search</button>
  </form>
  <p id="out" data-testid="result"></p>
</main>
<script>
  document.getElementById("go").addEventListener("click", () => {
    const ok = document.getElementById("customer").value.length > 0;
    document.getElementById("out").textContent = ok ? "Found 3 invoices" : "Nothing found";
  });
</script>
</body></html>
"""


async def live_skill(
    server: LocalServer,
    name: str,
    project_dir: Path,
    *,
    sensitive: bool = False,
    extract: bool = False,
    confirmed: bool = True,
) -> str:
    """Serve the page, describe its elements, and store + enable a validated skill (``confirmed``:
    with a person's confirmation that agents may play it, as ``enable --confirm-agent-play``
    gives). Returns the URL."""
    server.set_page("/invoices", PAGE)
    url = server.url("/invoices")
    environment = factory.url_environment(url)
    b = await describe_on(environment, {s: s for s in ("#customer", "#pin", "#go", "#out")})
    actions: list[Action] = [
        NavigateAction(id="a1", url=environment.start_url),
        TypeAction(id="a2", target=b["#customer"], value=ParameterRef(name="customer")),
    ]
    params = [Parameter(name="customer")]
    if sensitive:
        actions.append(TypeAction(id="a3", target=b["#pin"], value=ParameterRef(name="pin")))
        params.append(Parameter(name="pin", sensitive=True))
    actions += [
        ClickAction(id="a4", target=b["#go"]),
        AssertAction(id="a5", check="text_contains", target=b["#out"], expected="Found"),
    ]
    if extract:  # schema v2: the skill returns how many invoices the page found
        out = factory.content_free(b["#out"])
        actions.append(ExtractAction(id="a6", output="found", target=out, type="integer", pattern=r"(\d+)"))
    log = factory.events_log()
    draft = Draft.build(
        name=name,
        description="Search the invoices of one customer.",
        actions=tuple(actions),
        parameters=tuple(params),
        capabilities=capability_manifest(actions),
        failure_conditions=("The page says Nothing found.",),
        environment=environment,
        fingerprint_salt=factory.SALT,
        events_digest=log.events_digest,
    )
    with Store.open() as store:
        factory.store_entry(store, lifecycle.new_entry(draft, log, factory.T0), "validated")
        enable_skill(
            store, name, "project", project_dir, approve=True, expected_revision=store.get(name).revision
        )
        if confirmed:
            confirm_enabled_skill(store, name, approve=True)
    return url
