"""A real, playable skill on a page served on 127.0.0.1: locator bundles come from
``locate/fingerprint.js`` evaluated on the page itself, the draft and approval from the model API,
so a replay through MCP runs the real engine in real Chromium against real bundles."""

from __future__ import annotations

from pathlib import Path

from skillreel.locate import locate_script
from skillreel.model import lifecycle
from skillreel.model.actions import (
    AssertAction,
    ClickAction,
    NavigateAction,
    ParameterRef,
    TypeAction,
    capability_manifest,
)
from skillreel.model.draft import Draft, Parameter
from skillreel.model.environment import Environment
from skillreel.model.locators import LocatorBundle
from skillreel.sandbox.browser import browser_session
from skillreel.services.packaging import enable_skill
from skillreel.store import AuditNote, Store
from tests import factory
from tests.integration.skills.builders import REVIEWER, T1, T2, report_for
from tests.server import LocalServer

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


async def describe(environment: Environment, selectors: list[str]) -> dict[str, LocatorBundle]:
    """The recorder's own description of each element, as ``SkillreelLocate.describe`` makes it."""
    script = locate_script()
    bundles: dict[str, LocatorBundle] = {}
    async with browser_session(environment) as session:
        await session.goto_start()
        locate = await session.page.evaluate_handle("(() => {\n" + script + "\nreturn SkillreelLocate;\n})()")
        for selector in selectors:
            found = await session.page.evaluate(
                "([L, selector, salt]) => L.describe(document.querySelector(selector), salt)",
                [locate, selector, factory.SALT],
            )
            bundles[selector] = LocatorBundle.parse(found)
    return bundles


async def live_skill(server: LocalServer, name: str, project_dir: Path, *, sensitive: bool = False) -> str:
    """Serve the page, describe its elements, and store + enable a validated skill. Returns the URL."""
    server.set_page("/invoices", PAGE)
    url = server.url("/invoices")
    environment = factory.url_environment(url)
    b = await describe(environment, ["#customer", "#pin", "#go", "#out"])
    actions = [
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
        store.insert(lifecycle.new_entry(draft, log, factory.T0), AuditNote(kind="record"))
        store.update(
            name, lambda e: lifecycle.approve(e, REVIEWER, T1), AuditNote(kind="review", reviewer=REVIEWER)
        )
        store.update(
            name, lambda e: lifecycle.replay_succeeded(e, report_for(e), T2), AuditNote(kind="replay")
        )
        enable_skill(store, name, "project", project_dir, approve=True)
    return url
