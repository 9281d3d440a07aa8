"""A session's routing: the first of its two enforcement layers (the enforcing proxy is the second).

``context.route`` serves an HTML fixture's document (and nothing else: the fixture's context is
offline) and admits only allowlisted origins; ``context.route_web_socket`` does the same for page
sockets. Every refusal is counted in the session's :class:`~skillreel.sandbox.ledger.NetworkLedger`.
"""

from __future__ import annotations

import contextlib
import logging
import re
from typing import Final

from playwright.async_api import BrowserContext, Route, WebSocketRoute
from playwright.async_api import Error as PlaywrightError

from skillreel.model.environment import FIXTURE_ORIGIN, FIXTURE_URL, Environment

from .allowlist import decide, routed_pattern
from .ledger import NetworkLedger

log = logging.getLogger(__name__)

# The fixture origin's favicon is asked for by the browser itself (headed), not by the page.
_FIXTURE_FAVICON: Final = FIXTURE_ORIGIN + "/favicon.ico"


async def install_routes(
    context: BrowserContext, ledger: NetworkLedger, environment: Environment, fixture: str | None
) -> None:
    """Route every request and page socket of ``context``: the fixture's document served, an
    allowlisted origin continued, anything else refused and counted in ``ledger``."""
    allowed = () if fixture is not None else environment.allowed_origins

    async def on_request(route: Route) -> None:
        url = route.request.url
        try:
            if fixture is not None and url == FIXTURE_URL:
                await route.fulfill(status=200, content_type="text/html; charset=utf-8", body=fixture)
                return
            if fixture is not None and url == _FIXTURE_FAVICON:
                await route.fulfill(status=404, body="")
                return
            decision = decide(url, allowed)
            if decision.allowed:
                await route.continue_()
                return
            ledger.refuse(decision.origin)
            await route.abort("blockedbyclient")
        except PlaywrightError as exc:  # the context is closing or the page went away
            log.debug("route handler: %s", type(exc).__name__)

    async def on_web_socket(ws: WebSocketRoute) -> None:
        decision = decide(ws.url, allowed)
        if decision.allowed:
            ws.connect_to_server()
            return
        ledger.refuse(decision.origin)
        with contextlib.suppress(PlaywrightError):
            await ws.close(code=1008, reason="refused by skillreel")

    # Requests that begin with exactly an allowlisted origin are continued by Playwright's process
    # without a round trip to this handler (routed_pattern: decide would allow each of them; the
    # proxy still judges every request); every other request meets decide here.
    routed = None if fixture is not None else routed_pattern(allowed)
    await context.route(re.compile(routed) if routed is not None else "**/*", on_request)
    await context.route_web_socket(lambda _url: True, on_web_socket)
