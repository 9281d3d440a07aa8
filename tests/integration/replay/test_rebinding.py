"""DNS rebinding end to end (issue 30.7): a replay whose page reaches an allowlisted host name that
resolves (through the proxy's resolver seam) to a private address fails the step with
``SR_REPLAY_UI_NETWORK_ADDRESS_REFUSED``, naming nothing, and connects nowhere; the 127.0.0.1
origin of the page itself is used as given and never resolved."""

from __future__ import annotations

import pytest

from skillreel.model.actions import Action, ClickAction, NavigateAction, ObserveAction
from skillreel.sandbox import proxy
from skillreel.services.replaying import ReplayRequest, replay_skill
from skillreel.store import Store
from tests.support.describe import describe_url
from tests.support.factory import build_draft, store_approved, url_environment
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

CDN = "https://cdn.example"
PAGE = f"""<!doctype html><html><body><main>
<button id="go" type="button">Go</button><p id="done" hidden>Done</p></main>
<script>
document.getElementById("go").addEventListener("click", () => {{
  fetch("{CDN}/lib.js").catch(() => {{}});
  setTimeout(() => {{ document.getElementById("done").hidden = false; }}, 600);
}});
</script></body></html>"""


async def test_an_allowlisted_name_that_resolves_to_a_private_address_fails_the_replay(
    server: LocalServer, store: Store, sessions: WarmSessions, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []

    async def rebound(host: str, port: int) -> tuple[str, ...]:
        asked.append(host)
        return ("10.0.0.5",)  # the attacker's DNS answers an address inside the user's network

    monkeypatch.setattr(proxy, "system_resolver", rebound)
    bundles = await describe_url(server, "/app", PAGE, {"go": "#go", "done": "#done"})
    url = server.url("/app")
    actions: list[Action] = [
        NavigateAction(id="a1", url=url),
        ClickAction(id="a2", target=bundles["go"]),
        ObserveAction(id="a3", target=bundles["done"]),
    ]
    store_approved(store, build_draft("rebound", url_environment(url, (CDN,)), actions))

    outcome = await replay_skill(
        store, ReplayRequest(name="rebound", timeout_ms=5_000, settle_ms=200), session_factory=sessions
    )

    assert outcome.error is not None
    assert outcome.error.code == "SR_REPLAY_UI_NETWORK_ADDRESS_REFUSED", outcome.error.to_json()
    assert outcome.error.action_id in ("a2", "a3")
    assert "cdn" not in outcome.error.message
    assert asked == ["cdn.example"]  # the page's own 127.0.0.1 origin was never resolved
