"""A page that counts what replays do to it: a real skill on 127.0.0.1 whose click posts to ``/act``
(the "business system"), so a test knows exactly how many replays acted, whatever they reported.

Locator bundles come from ``locate/fingerprint.js`` on the page itself (tests/support/describe.py); the draft
and the skill's state from the model API and the real store (tests/support/factory.py)."""

from __future__ import annotations

import os
from pathlib import Path

from skillreel.model import lifecycle
from skillreel.model.actions import Action, AssertAction, ClickAction, NavigateAction, TypeAction
from skillreel.model.refs import ParameterRef
from skillreel.services.agent_access import confirm_enabled_skill
from skillreel.services.packaging import enable_skill
from skillreel.store import Store
from tests.support import factory
from tests.support.describe import describe_on
from tests.support.server import LocalServer

NAME = "place-order"
PAGE = """<!doctype html>
<html><head><title>Orders</title></head><body>
<main>
  <h1>Orders</h1>
  <label for="qty">Quantity</label>
  <input id="qty" name="qty" type="text" autocomplete="off">
  <button id="act" type="button">Place order</button>
  <p id="out" data-testid="result"></p>
</main>
<script>
  document.getElementById("act").addEventListener("click", async () => {
    const response = await fetch("/act", {method: "POST", body: document.getElementById("qty").value});
    document.getElementById("out").textContent = response.ok ? "Order placed" : "Order failed";
  });
</script>
</body></html>
"""
WITHOUT_QUANTITY = PAGE.replace('<input id="qty" name="qty" type="text" autocomplete="off">', "")
STEPS = ["a1", "a2", "a3", "a4"]


async def counting_skill(
    server: LocalServer, *, status: str = "validated", project_dir: Path | None = None, name: str = NAME
) -> str:
    """Serve the page, describe its elements, store the skill at ``status`` (and install it into
    ``project_dir`` when given, which makes it enabled). Returns the page's URL."""
    server.set_page("/orders", PAGE)
    server.set_route("/act", body=b"ok", headers={"Content-Type": "text/plain"})
    url = server.url("/orders")
    environment = factory.url_environment(url)
    found = await describe_on(environment, {"qty": "#qty", "act": "#act", "out": "#out"})
    actions: list[Action] = [
        NavigateAction(id="a1", url=environment.start_url),
        TypeAction(id="a2", target=found["qty"], value=ParameterRef(name="qty")),
        ClickAction(id="a3", target=found["act"]),
        AssertAction(id="a4", check="text_contains", target=found["out"], expected="Order placed"),
    ]
    draft = factory.build_draft(name, environment, actions)
    with Store.open() as store:
        factory.store_entry(store, lifecycle.new_entry(draft, factory.events_log(), factory.T0), status)
        if project_dir is not None:
            enable_skill(
                store, name, "project", project_dir, approve=True, expected_revision=store.get(name).revision
            )
            confirm_enabled_skill(store, name, approve=True)  # a person confirmed agent plays
    return url


def acted(server: LocalServer) -> int:
    """How many orders were placed: the side effects replays really had."""
    return server.count("POST", "/act")


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "SKILLREEL_HOME": str(home), **extra}


def fleet_args(rows: Path, broker: str, key: Path, name: str = NAME) -> list[str]:
    """``skillreel replay NAME --batch ROWS --broker URL --sign KEY`` (a fleet batch), a long timeout."""
    return [
        "replay",
        name,
        "--batch",
        str(rows),
        "--broker",
        broker,
        "--sign",
        str(key),
        "--timeout",
        "30000",
    ]
